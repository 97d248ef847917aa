package hooks

import (
	"errors"
	"io/fs"
	"sort"
	"syscall"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/safefs"
)

// checkFiles runs the checker on the workflow and project files among
// paths (repo-relative, as the set names them), reading each one from disk
// under root. Other paths are ignored. Reports come back sorted by path,
// one per file. A file is read through safefs, so a symlink anywhere on its
// path is refused, never followed; the files a workflow names beside
// itself (skills, composed children) are read the same way, from the disk
// beneath root (safefs.DirFS).
//
// Every file that can be read is checked; the refusals for the ones that
// cannot (a symlink, a file gone since the apply, an unreadable file) are
// returned, each a *refusal.Error, in path order.
func checkFiles(root string, paths []string) ([]checker.Report, []error) {
	var audited []string
	seen := map[string]bool{}
	var errs []error
	for _, s := range paths {
		p, err := changeset.ParsePath(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[string(p)] || !changeset.Classify(p).Audited() {
			continue
		}
		seen[string(p)] = true
		audited = append(audited, string(p))
	}
	if len(audited) == 0 {
		return nil, errs
	}
	sort.Strings(audited)
	r, err := safefs.Open(root)
	if err != nil {
		return nil, append(errs, refusal.New(refusal.Io, "check that the repository root exists and is readable",
			"cannot open the repository root to check the applied files: %v", errnoOf(err)))
	}
	defer r.Close()
	var reports []checker.Report
	fsys := safefs.DirFS(root)
	for _, p := range audited {
		data, err := r.ReadFile(p)
		if err != nil {
			errs = append(errs, readRefusal(p, err))
			continue
		}
		reports = append(reports, checker.CheckFS(fsys, p, data))
	}
	return reports, errs
}

// readRefusal types a failed read of an applied file, without the host's
// absolute paths.
func readRefusal(p string, err error) error {
	var e *refusal.Error
	switch {
	case errors.Is(err, safefs.ErrSymlink), errors.Is(err, syscall.ELOOP):
		e = refusal.New(refusal.NotAllowed, "replace the symlink with the file itself, then check the file again",
			"%s was not checked: its path passes through a symlink, which nika never follows", p)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		e = refusal.New(refusal.NotFound, "look at what removed it since the apply",
			"%s was not checked: it is no longer on disk", p)
	default:
		e = refusal.New(refusal.Io, "check the file's permissions, then check the file again",
			"%s was not checked: %v", p, errnoOf(err))
	}
	e.Err = err
	return e
}
