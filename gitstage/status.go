package gitstage

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
)

// DirtyPath is one path that git status reports: changed in the index or
// the working tree, untracked, or unmerged.
type DirtyPath struct {
	Path string `json:"path"`
	// Status is git status --porcelain's XY: X the index against HEAD, Y
	// the working tree against the index ("??" untracked, "UU" unmerged).
	Status string `json:"status"`
}

// ErrNoGit says the git program could not be run.
var ErrNoGit = errors.New("the git program could not be run")

// Dirty asks git which paths are not clean, as `git status --porcelain`
// reports them (untracked files too, ignored ones not), at most max of them
// (more reports that there were others). It is read-only: git runs with
// GIT_OPTIONAL_LOCKS=0, so it never takes index.lock to refresh the index's
// stat data, and with core.fsmonitor off, so it runs no hook. It walks the
// working tree, as git status does: it serves a door's status report,
// never the staging path, whose cost follows the change.
func (r *Repo) Dirty(max int) (paths []DirtyPath, more bool, err error) {
	cmd := exec.Command("git", "-c", "core.fsmonitor=false", "-c", "core.quotepath=false",
		"status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=normal", "--ignore-submodules=none")
	cmd.Dir = r.Root
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, false, errors.New("git status failed: " + strings.TrimSpace(stderr.String()))
		}
		return nil, false, ErrNoGit
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) < 4 || rec[2] != ' ' {
			continue
		}
		if len(paths) == max {
			return paths, true, nil
		}
		paths = append(paths, DirtyPath{Path: string(rec[3:]), Status: string(rec[:2])})
	}
	return paths, false, nil
}
