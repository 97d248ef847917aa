package flow

import (
	"errors"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/refusal"
)

// MaxStatusFiles bounds the workflows a status judges, and MaxDirty the
// dirty paths it lists; a status says when it left some out.
const (
	MaxStatusFiles = 200
	MaxDirty       = 1000
)

// ProjectStatus is where the project stands, for a door that reports it
// (the MCP server's status tool): HEAD, the project file and the workflows
// that HEAD holds with the checker's verdict on their bytes on disk, the
// paths git reports as not clean, and what git is in the middle of.
type ProjectStatus struct {
	Branch string // the full ref, "" when detached
	Head   string // the HEAD commit, "" on an unborn branch
	// Project is the root nika.yaml, nil when HEAD has none.
	Project *FileVerdict
	// Workflows are HEAD's other workflow and project files, in path
	// order, at most MaxStatusFiles of them (Total counts them all).
	Workflows []FileVerdict
	Total     int
	// Dirty are the paths git status reports, at most MaxDirty (DirtyMore
	// says there were others); DirtyProblem says why they could not be
	// listed.
	Dirty        []gitstage.DirtyPath
	DirtyMore    bool
	DirtyProblem string
	// InProgress is git's operation in progress (a merge, a rebase...),
	// which refuses every proposal until it ends; "" when none.
	InProgress string
	// Allow is the project's nika.allow: the supporting files that a
	// proposal may touch beyond workflows and project files.
	Allow []string
	// Verdict is the post-apply verdict recorded for HEAD when HEAD is an
	// applied proposal (the note under refs/notes/nika), "" otherwise.
	Verdict string
}

// FileVerdict is the checker's verdict on one file's bytes on disk.
type FileVerdict struct {
	Path     string
	Clean    bool
	Errors   int
	Warnings int
	Codes    []string // the finding codes, in report order, without repeats
	Problem  string   // why the file could not be checked; then Clean is false
}

// Status reads the project's status. It writes nothing: git status runs
// without taking the index lock (gitstage.Dirty).
func Status(repo *Repo) (*ProjectStatus, error) {
	r := repo.g
	head, err := r.ReadHead()
	if err != nil {
		return nil, err
	}
	st := &ProjectStatus{Branch: head.Branch, Allow: r.Config.GetAll("nika.allow")}
	if !head.Unborn() {
		st.Head = head.Commit.String()
	}
	if err := r.InProgress(); err != nil {
		st.InProgress = refusalText(err)
	}
	base, err := r.TreeBase(head)
	if err != nil {
		return nil, err
	}
	files, err := auditedFiles(base)
	if err != nil {
		return nil, err
	}
	st.Total = len(files)
	for _, p := range files {
		if p == "nika.yaml" {
			v := verdictOnDisk(r.Root, p)
			st.Project = &v
			st.Total--
			continue
		}
		if len(st.Workflows) < MaxStatusFiles {
			st.Workflows = append(st.Workflows, verdictOnDisk(r.Root, p))
		}
	}
	st.Dirty, st.DirtyMore, err = r.Dirty(MaxDirty)
	if err != nil {
		st.DirtyProblem = err.Error()
	}
	if !head.Unborn() {
		if note, err := r.Note(gitstage.NotesRef, head.Commit); err == nil {
			st.Verdict = note
		}
	}
	return st, nil
}

// auditedFiles lists the workflow and project files of HEAD's tree, in
// path order. It decodes HEAD's trees, never the working tree.
func auditedFiles(base *gitstage.Base) ([]string, error) {
	var out []string
	var walk func(dir string) error
	walk = func(dir string) error {
		t, err := base.TreeAt(dir)
		if err != nil || t == nil {
			return err
		}
		for _, e := range t.Entries {
			p := e.Name
			if dir != "" {
				p = dir + "/" + e.Name
			}
			switch {
			case e.Mode == filemode.Dir:
				if err := walk(p); err != nil {
					return err
				}
			case e.Mode.IsFile() && changeset.Classify(changeset.Path(p)).Audited():
				out = append(out, p)
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// verdictOnDisk checks one file on disk as nika check does: its bytes,
// with the disk beside it.
func verdictOnDisk(root, p string) FileVerdict {
	v := FileVerdict{Path: p, Codes: []string{}}
	data, err := ReadDisk(root, p)
	if err != nil {
		v.Problem = refusalText(err)
		return v
	}
	rep := checker.CheckFS(DiskFS(root), p, data)
	v.Errors, v.Warnings, v.Codes = rep.Tally()
	v.Clean = rep.Clean()
	return v
}

// refusalText is a refusal's text without its hint.
func refusalText(err error) string {
	var e *refusal.Error
	if errors.As(err, &e) {
		return e.Text
	}
	return err.Error()
}
