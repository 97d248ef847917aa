package session

import (
	"fmt"
	"strings"
)

// Snapshot is the project as the session found it when it opened. It
// never holds an absolute path of the host: Root is the git root's name.
type Snapshot struct {
	Root    string `json:"root"`
	Branch  string `json:"branch"`
	Head    string `json:"head"` // the HEAD commit, "" on an unborn branch
	Project *File  `json:"project"`
	// Workflows are the workflows of HEAD, each checked on disk, in path
	// order, at most MaxWorkflows of them.
	Workflows      []File `json:"workflows"`
	WorkflowsTotal int    `json:"workflows_total"`
	Truncated      bool   `json:"truncated"`
	Pending        []Fact `json:"pending"`
	Applied        []Fact `json:"applied"` // the last applied, newest first
}

// MaxWorkflows bounds the workflows a snapshot lists.
const MaxWorkflows = 50

// File is a workflow or the project file, with the checker's verdict on
// its bytes on disk.
type File struct {
	Path     string   `json:"path"`
	Clean    bool     `json:"clean"`
	Errors   int      `json:"errors"`
	Warnings int      `json:"warnings"`
	Codes    []string `json:"codes"`
	Problem  string   `json:"problem,omitempty"` // why it could not be checked
}

// Fact is a proposal in the registry.
type Fact struct {
	ID     string `json:"id"`
	Goal   string `json:"goal"`
	Branch string `json:"branch"`
	State  string `json:"state"`
	Commit string `json:"commit,omitempty"`
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Summary renders the snapshot as text, deterministically: the same
// project gives the same bytes.
func (s Snapshot) Summary() string {
	var b strings.Builder
	head := "no commit yet"
	if s.Head != "" {
		head = short(s.Head)
	}
	branch := s.Branch
	if branch == "" {
		branch = "HEAD (detached)"
	}
	fmt.Fprintf(&b, "project %s · branch %s · %s\n", s.Root, branch, head)
	if s.Project != nil {
		fmt.Fprintf(&b, "project file: %s\n", fileLine(*s.Project))
	} else {
		fmt.Fprintf(&b, "project file: none (nika.yaml)\n")
	}
	fmt.Fprintf(&b, "workflows: %d\n", s.WorkflowsTotal)
	for _, w := range s.Workflows {
		fmt.Fprintf(&b, "  %s\n", fileLine(w))
	}
	if s.Truncated {
		fmt.Fprintf(&b, "  … %d more not listed (the list stops at %d)\n", s.WorkflowsTotal-len(s.Workflows), len(s.Workflows))
	}
	fmt.Fprintf(&b, "pending proposals: %d\n", len(s.Pending))
	for _, p := range s.Pending {
		fmt.Fprintf(&b, "  %s  %s\n", short(p.ID), firstLine(p.Goal))
	}
	fmt.Fprintf(&b, "last applied: %d\n", len(s.Applied))
	for _, p := range s.Applied {
		fmt.Fprintf(&b, "  %s  %s\n", short(p.ID), firstLine(p.Goal))
	}
	return b.String()
}

func fileLine(f File) string {
	switch {
	case f.Problem != "":
		return fmt.Sprintf("%s  not checked: %s", f.Path, f.Problem)
	case f.Clean && f.Warnings == 0:
		return fmt.Sprintf("%s  clean", f.Path)
	case f.Clean:
		return fmt.Sprintf("%s  clean, %d warning(s) %s", f.Path, f.Warnings, strings.Join(f.Codes, " "))
	}
	return fmt.Sprintf("%s  %d error(s), %d warning(s) %s", f.Path, f.Errors, f.Warnings, strings.Join(f.Codes, " "))
}
