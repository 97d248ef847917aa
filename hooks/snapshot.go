package hooks

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"syscall"

	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/safefs"
	"golang.org/x/sys/unix"
)

// Dir is the hooks directory, relative to the repository root.
const Dir = ".nika/hooks/post-apply.d"

// MaxHookBytes bounds the size of one hook file in a snapshot; a larger file
// is skipped with a note.
const MaxHookBytes = 64 << 20

// Set is the snapshot of the hooks directory taken before an apply: the
// bytes and mode of every hook, and the entries that will be skipped.
type Set struct {
	hooks []hook
}

type hook struct {
	name string
	data []byte
	mode os.FileMode
	skip string // why the entry will not run; "" for a hook that runs
}

// Snapshot reads the hooks directory under root. A missing directory is an
// empty set. A symlink on the way to the directory (.nika, .nika/hooks or
// the directory itself) or a non-directory there is a refusal: nika never
// follows it and will not guess what was meant.
func Snapshot(root string) (*Set, error) {
	rfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, refusal.New(refusal.Io, "check that the repository root exists and is readable",
			"cannot open the repository root to read its hooks: %v", errnoOf(err))
	}
	fd := rfd
	comps := strings.Split(Dir, "/")
	for i, c := range comps {
		nfd, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			rel := strings.Join(comps[:i+1], "/")
			if errors.Is(err, unix.ENOENT) {
				return &Set{}, nil
			}
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				if isSymlink(root, rel) {
					return nil, refusal.New(refusal.NotAllowed, "make "+rel+" a real directory",
						"%s is a symlink · nika does not follow symlinks to the hooks that judge an apply", rel)
				}
				return nil, refusal.New(refusal.Unsupported, "make "+rel+" a directory, or remove it",
					"%s is not a directory, so the post-apply hooks cannot be read", rel)
			}
			return nil, refusal.New(refusal.Io, "check the permissions of "+rel,
				"cannot open %s: %v", rel, errnoOf(err))
		}
		fd = nfd
	}
	dir := os.NewFile(uintptr(fd), Dir)
	defer dir.Close()
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil, refusal.New(refusal.Io, "check the permissions of "+Dir,
			"cannot list %s: %v", Dir, errnoOf(err))
	}
	names := make([]string, 0, len(entries))
	types := map[string]os.FileMode{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		names = append(names, e.Name())
		types[e.Name()] = e.Type()
	}
	sort.Strings(names) // byte order
	s := &Set{}
	for _, name := range names {
		h, err := readHook(fd, name, types[name])
		if err != nil {
			return nil, err
		}
		s.hooks = append(s.hooks, h)
	}
	return s, nil
}

// readHook reads one entry of the hooks directory, never following a
// symlink. Entries that will not run come back with a skip note.
func readHook(dirfd int, name string, typ os.FileMode) (hook, error) {
	h := hook{name: name}
	switch {
	case typ&os.ModeSymlink != 0:
		h.skip = "a symlink, not followed"
		return h, nil
	case typ.IsDir():
		h.skip = "a directory"
		return h, nil
	}
	ffd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			h.skip = "a symlink, not followed"
			return h, nil
		}
		if errors.Is(err, unix.ENOENT) {
			h.skip = "removed while the hooks were read"
			return h, nil
		}
		return h, refusal.New(refusal.Io, "check the permissions of "+Dir+"/"+name,
			"cannot read the hook %s: %v", name, errnoOf(err))
	}
	f := os.NewFile(uintptr(ffd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return h, refusal.New(refusal.Io, "", "cannot stat the hook %s: %v", name, errnoOf(err))
	}
	h.mode = fi.Mode()
	switch {
	case fi.IsDir():
		h.skip = "a directory"
		return h, nil
	case !fi.Mode().IsRegular():
		h.skip = "not a regular file"
		return h, nil
	case fi.Mode().Perm()&0o111 == 0:
		h.skip = "not executable"
		return h, nil
	case fi.Size() > MaxHookBytes:
		h.skip = fmt.Sprintf("larger than %d bytes", MaxHookBytes)
		return h, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxHookBytes+1))
	if err != nil {
		return h, refusal.New(refusal.Io, "", "cannot read the hook %s: %v", name, errnoOf(err))
	}
	if len(data) > MaxHookBytes {
		h.skip = fmt.Sprintf("larger than %d bytes", MaxHookBytes)
		return h, nil
	}
	h.data = data
	return h, nil
}

// isSymlink reports whether rel under root is a symlink, for the text of a
// refusal only.
func isSymlink(root, rel string) bool {
	r, err := safefs.Open(root)
	if err != nil {
		return false
	}
	defer r.Close()
	info, err := r.Lstat(rel)
	return err == nil && info.Symlink
}

// errnoOf strips the paths from an error, keeping the operating system's
// reason, so that no absolute path of the host reaches a refusal's text.
func errnoOf(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
