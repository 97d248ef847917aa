// Package safefs writes and reads model-supplied paths beneath a root
// without ever following a symlink.
//
// os.Root stops escapes out of the root but follows a symlink inside it (a
// link s -> .git turns s/config into .git/config). Here every directory on a
// path is opened with openat(O_NOFOLLOW|O_DIRECTORY), one component at a
// time, so the kernel refuses a symlink anywhere on the way; the last step
// is done relative to the parent's descriptor. A rename over a final symlink
// replaces the link and never follows it, so temp-and-rename in the parent
// is safe. Temp files take the same path discipline.
package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Root is an open directory that confines every operation beneath it.
type Root struct {
	Dir string
	fd  int
	// Inject, when set, is called before each filesystem operation with
	// its name (open, mkdir, create, write, chmod, fsync, close, rename,
	// exchange, unlink, rmdir, read) and the path; a non-nil error fails
	// the operation. Fault-injection tests count and fail operations
	// through it, the way SQLite's I/O error tests do.
	Inject func(op, path string) error
}

func (r *Root) inject(op, path string) error {
	if r.Inject == nil {
		return nil
	}
	if err := r.Inject(op, path); err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	return nil
}

// Open opens dir as a root.
func Open(dir string) (*Root, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &Root{Dir: dir, fd: fd}, nil
}

// Close releases the root's descriptor.
func (r *Root) Close() error { return unix.Close(r.fd) }

// ErrSymlink is returned when a path passes through a symlink.
var ErrSymlink = errors.New("a component of the path is a symlink")

func split(rel string) (dirs []string, name string) {
	parts := strings.Split(rel, "/")
	return parts[:len(parts)-1], parts[len(parts)-1]
}

// parent opens the directory holding rel. With create, missing directories
// are made (0755) and listed, outermost first, in created.
func (r *Root) parent(rel string, create bool) (fd int, created []string, err error) {
	dirs, _ := split(rel)
	fd, err = unix.Dup(r.fd)
	if err != nil {
		return -1, nil, err
	}
	for i, d := range dirs {
		if err := r.inject("open", strings.Join(dirs[:i+1], "/")); err != nil {
			unix.Close(fd)
			return -1, created, err
		}
		nfd, err := unix.Openat(fd, d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err := r.inject("mkdir", strings.Join(dirs[:i+1], "/")); err != nil {
				unix.Close(fd)
				return -1, created, err
			}
			if err = unix.Mkdirat(fd, d, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				unix.Close(fd)
				return -1, created, pathErr("mkdir", strings.Join(dirs[:i+1], "/"), err)
			}
			if err == nil {
				created = append(created, strings.Join(dirs[:i+1], "/"))
			}
			nfd, err = unix.Openat(fd, d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
		unix.Close(fd)
		if err != nil {
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				// ENOTDIR: O_DIRECTORY on a non-directory, or a symlink
				// with O_NOFOLLOW on some kernels.
				var st unix.Stat_t
				if r.lstatAt(dirs[:i+1], &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
					return -1, created, pathErr("open", strings.Join(dirs[:i+1], "/"), ErrSymlink)
				}
			}
			return -1, created, pathErr("open", strings.Join(dirs[:i+1], "/"), err)
		}
		fd = nfd
	}
	return fd, created, nil
}

func (r *Root) lstatAt(comps []string, st *unix.Stat_t) error {
	return unix.Fstatat(r.fd, strings.Join(comps, "/"), st, unix.AT_SYMLINK_NOFOLLOW)
}

func pathErr(op, p string, err error) error {
	if errors.Is(err, unix.ELOOP) {
		err = ErrSymlink
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// Info is what Lstat reports of a path.
type Info struct {
	Exists  bool
	Regular bool
	Dir     bool
	Symlink bool
	Mode    os.FileMode
	Stat    unix.Stat_t
}

// Lstat inspects rel without following any symlink on the way.
func (r *Root) Lstat(rel string) (Info, error) {
	fd, _, err := r.parent(rel, false)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return Info{}, nil
		}
		return Info{}, err
	}
	defer unix.Close(fd)
	_, name := split(rel)
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return Info{}, nil
		}
		return Info{}, pathErr("lstat", rel, err)
	}
	t := st.Mode & unix.S_IFMT
	return Info{Exists: true, Regular: t == unix.S_IFREG, Dir: t == unix.S_IFDIR, Symlink: t == unix.S_IFLNK, Mode: os.FileMode(st.Mode & 0o777), Stat: st}, nil
}

// ReadFile reads a regular file at rel, refusing symlinks anywhere.
func (r *Root) ReadFile(rel string) ([]byte, error) {
	fd, _, err := r.parent(rel, false)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	_, name := split(rel)
	if err := r.inject("read", rel); err != nil {
		return nil, err
	}
	ffd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, pathErr("open", rel, err)
	}
	f := os.NewFile(uintptr(ffd), rel)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: errors.New("not a regular file")}
	}
	return io.ReadAll(f)
}

// WriteTemp writes data to a new temp file beside rel (same directory, so a
// rename is atomic), with mode perm exactly (umask does not apply). It
// returns the temp file's path relative to the root and the directories it
// had to create.
func (r *Root) WriteTemp(rel string, data []byte, perm os.FileMode, sync bool) (tmp string, created []string, err error) {
	return r.WriteTempNamed(rel, "", data, perm, sync)
}

// WriteTempNamed is WriteTemp with the temp file's name chosen by the
// caller (in rel's directory), so that recovery can find it; "" picks a
// random one. An existing file of that name is refused.
func (r *Root) WriteTempNamed(rel, tname string, data []byte, perm os.FileMode, sync bool) (tmp string, created []string, err error) {
	fd, created, err := r.parent(rel, true)
	if err != nil {
		return "", created, err
	}
	defer unix.Close(fd)
	dirs, name := split(rel)
	if tname == "" {
		tname = tempName(name)
	}
	if err := r.inject("create", rel); err != nil {
		return "", created, err
	}
	ffd, err := unix.Openat(fd, tname, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return "", created, pathErr("create", rel, err)
	}
	f := os.NewFile(uintptr(ffd), tname)
	tmp = strings.Join(append(append([]string{}, dirs...), tname), "/")
	fail := func(op string, err error) (string, []string, error) {
		f.Close()
		unix.Unlinkat(fd, tname, 0)
		return "", created, pathErr(op, rel, err)
	}
	if err := r.inject("write", rel); err != nil {
		return fail("write", unwrap(err))
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", unwrap(err))
	}
	if err := r.inject("chmod", rel); err != nil {
		return fail("chmod", unwrap(err))
	}
	if err := f.Chmod(perm); err != nil {
		return fail("chmod", unwrap(err))
	}
	if sync {
		if err := r.inject("fsync", rel); err != nil {
			return fail("fsync", unwrap(err))
		}
		if err := f.Sync(); err != nil {
			return fail("fsync", unwrap(err))
		}
	}
	if err := r.inject("close", rel); err != nil {
		return fail("close", unwrap(err))
	}
	if err := f.Close(); err != nil {
		unix.Unlinkat(fd, tname, 0)
		return "", created, pathErr("close", rel, unwrap(err))
	}
	return tmp, created, nil
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func tempName(name string) string {
	var b [6]byte
	rand.Read(b[:])
	n := name
	if len(n) > 200 {
		n = n[:200]
	}
	return fmt.Sprintf(".%s.nika-%s", n, hex.EncodeToString(b[:]))
}

// Rename renames from to to; both must be in the same directory.
func (r *Root) Rename(from, to string) error {
	fd, _, err := r.parent(to, false)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	fdirs, fname := split(from)
	tdirs, tname := split(to)
	if strings.Join(fdirs, "/") != strings.Join(tdirs, "/") {
		return &fs.PathError{Op: "rename", Path: from, Err: errors.New("not in the same directory")}
	}
	if err := r.inject("rename", to); err != nil {
		return err
	}
	if err := unix.Renameat(fd, fname, fd, tname); err != nil {
		return pathErr("rename", to, err)
	}
	return nil
}

// ErrNoExchange is returned by Exchange where the filesystem or kernel
// cannot swap two names atomically.
var ErrNoExchange = errors.New("atomic exchange is not supported here")

// Exchange swaps a and b (same directory) atomically with
// renameat2(RENAME_EXCHANGE): each name then holds what the other held.
func (r *Root) Exchange(a, b string) error {
	return r.rename2(a, b, unix.RENAME_EXCHANGE, "exchange")
}

// RenameNoReplace renames from to to (same directory), failing with
// fs.ErrExist if to exists, atomically (renameat2(RENAME_NOREPLACE)).
func (r *Root) RenameNoReplace(from, to string) error {
	return r.rename2(from, to, unix.RENAME_NOREPLACE, "rename")
}

func (r *Root) rename2(a, b string, flags uint, op string) error {
	fd, _, err := r.parent(b, false)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	adirs, aname := split(a)
	bdirs, bname := split(b)
	if strings.Join(adirs, "/") != strings.Join(bdirs, "/") {
		return &fs.PathError{Op: op, Path: a, Err: errors.New("not in the same directory")}
	}
	if err := r.inject(op, b); err != nil {
		return err
	}
	if err := unix.Renameat2(fd, aname, fd, bname, flags); err != nil {
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
			return &fs.PathError{Op: op, Path: b, Err: ErrNoExchange}
		}
		return pathErr(op, b, err)
	}
	return nil
}

// RenameAcross renames from to to in another directory of the root (the
// same filesystem), making to's missing directories.
func (r *Root) RenameAcross(from, to string) error {
	ffd, _, err := r.parent(from, false)
	if err != nil {
		return err
	}
	defer unix.Close(ffd)
	tfd, _, err := r.parent(to, true)
	if err != nil {
		return err
	}
	defer unix.Close(tfd)
	_, fname := split(from)
	_, tname := split(to)
	if err := r.inject("rename", to); err != nil {
		return err
	}
	if err := unix.Renameat2(ffd, fname, tfd, tname, unix.RENAME_NOREPLACE); err != nil {
		return pathErr("rename", to, err)
	}
	return nil
}

// Remove unlinks a file at rel.
func (r *Root) Remove(rel string) error {
	fd, _, err := r.parent(rel, false)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	_, name := split(rel)
	if err := r.inject("unlink", rel); err != nil {
		return err
	}
	if err := unix.Unlinkat(fd, name, 0); err != nil {
		return pathErr("remove", rel, err)
	}
	return nil
}

// RemoveDir removes an empty directory at rel.
func (r *Root) RemoveDir(rel string) error {
	fd, _, err := r.parent(rel, false)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	_, name := split(rel)
	if err := r.inject("rmdir", rel); err != nil {
		return err
	}
	if err := unix.Unlinkat(fd, name, unix.AT_REMOVEDIR); err != nil {
		return pathErr("rmdir", rel, err)
	}
	return nil
}

// SyncDir fsyncs the directory holding rel, so a rename in it survives a
// crash.
func (r *Root) SyncDir(rel string) error {
	fd, _, err := r.parent(rel, false)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := r.inject("fsync", rel); err != nil {
		return err
	}
	if err := unix.Fsync(fd); err != nil {
		return pathErr("fsync", rel, err)
	}
	return nil
}

// TempSibling names a fresh temp path in the same directory as rel.
func TempSibling(rel string) string {
	dirs, name := split(rel)
	return strings.Join(append(append([]string{}, dirs...), tempName(name)), "/")
}
