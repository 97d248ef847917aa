package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"time"

	"github.com/nika-dev/nika/memfile"
	"golang.org/x/sys/unix"
)

// DefaultMaxRead is the largest file an FS reads unless told otherwise.
const DefaultMaxRead = 16 << 20

// ErrTooLarge is returned by an FS for a file over its read limit.
var ErrTooLarge = errors.New("the file is over the read limit")

// FS is a read-only fs.FS over the directory tree beneath a root, with the
// discipline of Root: every component of a path is opened without
// following a symlink, so a link anywhere on the way (to .git, out of the
// root, to a secret) answers ErrSymlink and never the bytes it points at.
// Names are fs.FS names: slash-separated, relative, without . or ..
// components, so nothing above the root can be named either.
//
// It is how a reader that takes an fs.FS (the checker, resolving the files
// a workflow names beside itself) sees the disk. Each call opens the root
// afresh and closes it, so an FS needs no closing and can be kept.
type FS struct {
	dir string
	// MaxRead bounds the bytes ReadFile returns (and Open reads); a larger
	// file answers ErrTooLarge. Zero means DefaultMaxRead.
	MaxRead int64
}

var (
	_ fs.ReadFileFS = (*FS)(nil)
	_ fs.StatFS     = (*FS)(nil)
	_ fs.ReadDirFS  = (*FS)(nil)
)

// DirFS returns the file system beneath dir.
func DirFS(dir string) *FS { return &FS{dir: dir} }

func (f *FS) max() int64 {
	if f.MaxRead > 0 {
		return f.MaxRead
	}
	return DefaultMaxRead
}

// with opens the root, runs op on it, and closes it; name is checked as an
// fs.FS name first.
func (f *FS) with(op, name string, do func(r *Root) error) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	r, err := Open(f.dir)
	if err != nil {
		return &fs.PathError{Op: op, Path: name, Err: unwrap(err)}
	}
	defer r.Close()
	err = do(r)
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: name, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// ReadFile reads the regular file at name.
func (f *FS) ReadFile(name string) ([]byte, error) {
	var data []byte
	err := f.with("read", name, func(r *Root) error {
		if name == "." {
			return errors.New("is a directory")
		}
		var err error
		data, err = r.readMax(name, f.max())
		return err
	})
	return data, err
}

// readMax is ReadFile with a bound on the bytes.
func (r *Root) readMax(rel string, max int64) ([]byte, error) {
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
	file := os.NewFile(uintptr(ffd), rel)
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, errors.New("is a directory")
		}
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%w (%d bytes, the limit is %d)", ErrTooLarge, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(file, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w (the limit is %d bytes)", ErrTooLarge, max)
	}
	return data, nil
}

// Stat describes the entry at name without following a symlink: a
// symlink is reported as one (fs.ModeSymlink), never as its target.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := f.with("stat", name, func(r *Root) error {
		var st unix.Stat_t
		if name == "." {
			if err := unix.Fstat(r.fd, &st); err != nil {
				return err
			}
			fi = statInfo(".", &st)
			return nil
		}
		d, _, err := r.parent(name, false)
		if err != nil {
			return err
		}
		defer d.close()
		_, base := split(name)
		if err := unix.Fstatat(d.fd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		fi = statInfo(base, &st)
		return nil
	})
	return fi, err
}

// ReadDir lists the directory at name, sorted by name; each entry's
// information is its own lstat, taken as the listing is read.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	err := f.with("readdir", name, func(r *Root) error {
		var err error
		out, err = r.readDir(name)
		return err
	})
	return out, err
}

func (r *Root) readDir(name string) ([]fs.DirEntry, error) {
	var dfd int
	if name == "." {
		fd, err := unix.Dup(r.fd)
		if err != nil {
			return nil, err
		}
		dfd = fd
	} else {
		d, _, err := r.parent(name, false)
		if err != nil {
			return nil, err
		}
		_, base := split(name)
		dfd, err = unix.Openat(d.fd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOTDIR) {
			// O_DIRECTORY|O_NOFOLLOW on a symlink: ENOTDIR on Linux.
			var st unix.Stat_t
			if unix.Fstatat(d.fd, base, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = ErrSymlink
			}
		}
		d.close()
		if err != nil {
			return nil, pathErr("open", name, err)
		}
	}
	dir := os.NewFile(uintptr(dfd), name)
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]fs.DirEntry, 0, len(names))
	for _, n := range names {
		var st unix.Stat_t
		if err := unix.Fstatat(dfd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // removed while listing
			}
			return nil, err
		}
		out = append(out, statInfo(n, &st))
	}
	return out, nil
}

// Open opens the file or directory at name. A file's bytes are read at
// once (at most MaxRead of them); a directory's listing likewise.
func (f *FS) Open(name string) (fs.File, error) {
	fi, err := f.Stat(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: unwrap(err)}
	}
	switch {
	case fi.IsDir():
		ents, err := f.ReadDir(name)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: unwrap(err)}
		}
		return memfile.NewDir(fi, ents), nil
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrSymlink}
	}
	data, err := f.ReadFile(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: unwrap(err)}
	}
	return memfile.NewFile(fi, data), nil
}

// fileInfo is the fs.FileInfo and fs.DirEntry of one lstat.
type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
}

func statInfo(name string, st *unix.Stat_t) *fileInfo {
	m := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFREG:
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	default:
		m |= fs.ModeIrregular
	}
	return &fileInfo{name: path.Base(name), size: st.Size, mode: m, mod: time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))}
}

func (i *fileInfo) Name() string               { return i.name }
func (i *fileInfo) Size() int64                { return i.size }
func (i *fileInfo) Mode() fs.FileMode          { return i.mode }
func (i *fileInfo) ModTime() time.Time         { return i.mod }
func (i *fileInfo) IsDir() bool                { return i.mode.IsDir() }
func (i *fileInfo) Sys() any                   { return nil }
func (i *fileInfo) Type() fs.FileMode          { return i.mode.Type() }
func (i *fileInfo) Info() (fs.FileInfo, error) { return i, nil }
