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
//
// A Root opened with Open walks the path again for every operation. One
// opened with Hold (an apply transaction's) opens each directory it touches
// once and keeps the descriptor until Close: a directory swapped for a
// symlink after it was opened is never followed (the operations go on in
// the directory that was opened), the temp files an apply made are removed
// through the same descriptors whatever happened to the names, and a
// 1,000-file apply no longer reopens every level for every operation.
// Moved then tells which held directories are no longer at their names.
package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// Root is an open directory that confines every operation beneath it. It
// is not safe for concurrent use.
type Root struct {
	Dir   string
	fd    int
	held  map[string]int // directory (relative, "" never) -> descriptor, with Hold
	opens int            // directories opened, for tests and benchmarks
}

// Open opens dir as a root that walks each path anew.
func Open(dir string) (*Root, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &Root{Dir: dir, fd: fd}, nil
}

// Hold opens dir as a root that keeps every directory it opens beneath it
// until Close (see the package doc).
func Hold(dir string) (*Root, error) {
	r, err := Open(dir)
	if err != nil {
		return nil, err
	}
	r.held = map[string]int{}
	return r, nil
}

// Close releases the root's descriptors.
func (r *Root) Close() error {
	for d, fd := range r.held {
		unix.Close(fd)
		delete(r.held, d)
	}
	return unix.Close(r.fd)
}

// Opens is how many directories the root has opened beneath itself.
func (r *Root) Opens() int { return r.opens }

// Held is how many directory descriptors a held root keeps open.
func (r *Root) Held() int { return len(r.held) }

// ErrSymlink is returned when a path passes through a symlink.
var ErrSymlink = errors.New("a component of the path is a symlink")

func split(rel string) (dirs []string, name string) {
	parts := strings.Split(rel, "/")
	return parts[:len(parts)-1], parts[len(parts)-1]
}

// dir is an open directory: its descriptor and whether the caller must
// close it (false for a held one).
type dir struct {
	fd  int
	own bool
}

func (d dir) close() {
	if d.own {
		unix.Close(d.fd)
	}
}

// parent opens the directory holding rel. With create, missing directories
// are made (0755) and listed, outermost first, in created.
func (r *Root) parent(rel string, create bool) (dir, []string, error) {
	dirs, _ := split(rel)
	return r.openDir(dirs, create)
}

// openDir opens the directory dirs (components from the root).
func (r *Root) openDir(dirs []string, create bool) (dir, []string, error) {
	var created []string
	start, fd := 0, r.fd
	if r.held != nil {
		// Start below the deepest directory already held.
		for i := len(dirs); i > 0; i-- {
			if h, ok := r.held[strings.Join(dirs[:i], "/")]; ok {
				start, fd = i, h
				break
			}
		}
		if start == len(dirs) {
			return dir{fd: fd}, nil, nil
		}
	}
	own := false // whether fd is ours to close when we move past it
	for i := start; i < len(dirs); i++ {
		d, name := dirs[i], strings.Join(dirs[:i+1], "/")
		r.opens++
		nfd, err := unix.Openat(fd, d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(fd, d, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				if own {
					unix.Close(fd)
				}
				return dir{fd: -1}, created, pathErr("mkdir", name, err)
			}
			if err == nil {
				created = append(created, name)
			}
			nfd, err = unix.Openat(fd, d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
		if err != nil {
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				// ENOTDIR: O_DIRECTORY on a non-directory, or a symlink
				// with O_NOFOLLOW on some kernels.
				var st unix.Stat_t
				if unix.Fstatat(fd, d, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
					err = ErrSymlink
				}
			}
			if own {
				unix.Close(fd)
			}
			return dir{fd: -1}, created, pathErr("open", name, err)
		}
		if own {
			unix.Close(fd)
		}
		fd = nfd
		if r.held != nil {
			r.held[name] = nfd
		} else {
			own = true
		}
	}
	if !own && r.held == nil {
		// No component: the root itself, shared.
		return dir{fd: r.fd}, created, nil
	}
	return dir{fd: fd, own: own}, created, nil
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
	Mode    os.FileMode // the permission bits
	Stat    unix.Stat_t
}

// Kind names the type of what Info found: "file", "directory", "symlink",
// "other" (a FIFO, a socket, a device), or "nothing".
func (i Info) Kind() string {
	switch {
	case !i.Exists:
		return "nothing"
	case i.Regular:
		return "file"
	case i.Dir:
		return "directory"
	case i.Symlink:
		return "symlink"
	}
	return "other"
}

// Lstat inspects rel without following any symlink on the way.
func (r *Root) Lstat(rel string) (Info, error) {
	d, _, err := r.parent(rel, false)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return Info{}, nil
		}
		return Info{}, err
	}
	defer d.close()
	_, name := split(rel)
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
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
	d, _, err := r.parent(rel, false)
	if err != nil {
		return nil, err
	}
	defer d.close()
	_, name := split(rel)
	ffd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
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

// WriteTemp writes data to a new file named tname in rel's directory (so
// that a rename is atomic), or a random name when tname is "", with mode
// perm exactly (umask does not apply). An existing file of that name is
// refused. It returns the temp file's path relative to the root and the
// directories it had to create.
func (r *Root) WriteTemp(rel, tname string, data []byte, perm os.FileMode, sync bool) (tmp string, created []string, err error) {
	d, created, err := r.parent(rel, true)
	if err != nil {
		return "", created, err
	}
	defer d.close()
	dirs, name := split(rel)
	if tname == "" {
		tname = tempName(name)
	}
	ffd, err := unix.Openat(d.fd, tname, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return "", created, pathErr("create", rel, err)
	}
	f := os.NewFile(uintptr(ffd), tname)
	tmp = strings.Join(append(append([]string{}, dirs...), tname), "/")
	fail := func(op string, err error) (string, []string, error) {
		f.Close()
		unix.Unlinkat(d.fd, tname, 0)
		return "", created, pathErr(op, rel, unwrap(err))
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail("chmod", err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fail("fsync", err)
		}
	}
	if err := f.Close(); err != nil {
		unix.Unlinkat(d.fd, tname, 0)
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

// MkdirAll makes the directory dir and its missing parents (0755), and
// lists the ones it made, outermost first.
func (r *Root) MkdirAll(dirPath string) ([]string, error) {
	if dirPath == "" {
		return nil, nil
	}
	d, created, err := r.openDir(strings.Split(dirPath, "/"), true)
	if err != nil {
		return created, err
	}
	d.close()
	return created, nil
}

// Rename renames from to to, replacing to (renameat).
func (r *Root) Rename(from, to string) error {
	return r.rename2(from, to, 0, "rename")
}

// ErrNoExchange is returned by Exchange and RenameNoReplace where the
// filesystem or kernel cannot swap two names atomically or rename without
// replacing.
var ErrNoExchange = errors.New("atomic exchange is not supported here")

// Exchange swaps a and b atomically with renameat2(RENAME_EXCHANGE): each
// name then holds what the other held.
func (r *Root) Exchange(a, b string) error {
	return r.rename2(a, b, unix.RENAME_EXCHANGE, "exchange")
}

// RenameNoReplace renames from to to, failing with fs.ErrExist if to
// exists, atomically (renameat2(RENAME_NOREPLACE)).
func (r *Root) RenameNoReplace(from, to string) error {
	return r.rename2(from, to, unix.RENAME_NOREPLACE, "rename")
}

func (r *Root) rename2(a, b string, flags uint, op string) error {
	ad, _, err := r.parent(a, false)
	if err != nil {
		return err
	}
	defer ad.close()
	bd, _, err := r.parent(b, false)
	if err != nil {
		return err
	}
	defer bd.close()
	_, aname := split(a)
	_, bname := split(b)
	if flags == 0 {
		err = unix.Renameat(ad.fd, aname, bd.fd, bname)
	} else {
		err = unix.Renameat2(ad.fd, aname, bd.fd, bname, flags)
	}
	if err != nil {
		if flags != 0 && (errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)) {
			return &fs.PathError{Op: op, Path: b, Err: ErrNoExchange}
		}
		return pathErr(op, b, err)
	}
	return nil
}

// Remove unlinks a file at rel.
func (r *Root) Remove(rel string) error {
	d, _, err := r.parent(rel, false)
	if err != nil {
		return err
	}
	defer d.close()
	_, name := split(rel)
	if err := unix.Unlinkat(d.fd, name, 0); err != nil {
		return pathErr("remove", rel, err)
	}
	return nil
}

// RemoveDir removes an empty directory at rel. A held root lets go of the
// directory's descriptor.
func (r *Root) RemoveDir(rel string) error {
	d, _, err := r.parent(rel, false)
	if err != nil {
		return err
	}
	defer d.close()
	_, name := split(rel)
	if err := unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR); err != nil {
		return pathErr("rmdir", rel, err)
	}
	if r.held != nil {
		for k, fd := range r.held {
			if k == rel || strings.HasPrefix(k, rel+"/") {
				unix.Close(fd)
				delete(r.held, k)
			}
		}
	}
	return nil
}

// SyncDir fsyncs the directory holding rel, so a rename in it survives a
// crash.
func (r *Root) SyncDir(rel string) error {
	d, _, err := r.parent(rel, false)
	if err != nil {
		return err
	}
	defer d.close()
	if err := unix.Fsync(d.fd); err != nil {
		return pathErr("fsync", rel, err)
	}
	return nil
}

// Moved lists the held directories that are no longer at their names: the
// name is gone, or names another directory, a symlink or a file. An apply
// asks before it commits, since its writes went into the directories it
// opened, wherever they are now.
func (r *Root) Moved() []string {
	var out []string
	for name, fd := range r.held {
		dirs, base := split(name)
		pfd := r.fd
		if len(dirs) > 0 {
			h, ok := r.held[strings.Join(dirs, "/")]
			if !ok {
				out = append(out, name)
				continue
			}
			pfd = h
		}
		var want, got unix.Stat_t
		if unix.Fstat(fd, &want) != nil || unix.Fstatat(pfd, base, &got, unix.AT_SYMLINK_NOFOLLOW) != nil ||
			got.Dev != want.Dev || got.Ino != want.Ino {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
