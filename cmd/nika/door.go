package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
	"golang.org/x/sys/unix"

	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/refusal"
)

type door struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	json           bool
	code           int
	repo           *gitstage.Repo
	recovering     bool
}

// openRepo opens the repository that git would use from the working
// directory, under the process environment (GIT_DIR, GIT_WORK_TREE,
// core.worktree...: gitstage.Open). It first refuses to run with too few
// free file descriptors, before anything opens one: the Go runtime dies
// (it cannot make its poller) instead of failing an open.
func (d *door) openRepo() (*gitstage.Repo, error) {
	if err := fileHeadroom(); err != nil {
		return nil, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, refusal.New(refusal.Io, "", "could not read the working directory: %v", err)
	}
	r, err := gitstage.Open(wd)
	if err != nil {
		return nil, err
	}
	d.repo = r
	if !d.json {
		d.warnInterrupted()
	}
	return r, nil
}

// minFreeFiles is how many descriptors nika needs free to run at all: the
// runtime's poller, the repository's files, a pack or two.
const minFreeFiles = 12

// fileHeadroom refuses (Io) when fewer than minFreeFiles descriptors are
// free under RLIMIT_NOFILE, naming the limit. It counts the open ones
// with fcntl only (opening /proc/self/fd would take one), and only where
// the limit is small enough for that to matter.
func fileHeadroom() error {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil || lim.Cur == unix.RLIM_INFINITY || lim.Cur > 256 {
		return nil
	}
	open := 0
	for fd := 0; fd < int(lim.Cur); fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			open++
		}
	}
	if free := int(lim.Cur) - open; free < minFreeFiles {
		return refusal.New(refusal.Io, fmt.Sprintf("raise the limit (ulimit -n %d, or more), then run nika again", open+64),
			"the limit on open files (RLIMIT_NOFILE) is %d and %d are open, which leaves %d: nika needs at least %d free to run", lim.Cur, open, free, minFreeFiles)
	}
	return nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// colorOn follows git users' habits: color on a terminal, never when
// NO_COLOR is set or the output is a pipe; NIKA_COLOR=always forces it.
func (d *door) colorOn() bool {
	if v, ok := os.LookupEnv("NO_COLOR"); ok && v != "" {
		return false
	}
	switch os.Getenv("NIKA_COLOR") {
	case "always":
		return true
	case "never":
		return false
	}
	return isTerminal(d.stdout)
}

// writeJSON prints one JSON object and a newline.
func (d *door) writeJSON(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	// Law 7: machine output never holds a host path, whatever a hook or an
	// OS error put in a text.
	_, err := io.WriteString(d.stdout, d.scrub(b.String()))
	return err
}

// scrub replaces the repository's absolute paths in a text with relative
// ones, so no host path reaches output.
func (d *door) scrub(s string) string {
	if d.repo == nil {
		return s
	}
	for _, p := range []string{d.repo.GitDir, d.repo.CommonDir} {
		if rel, err := filepath.Rel(d.repo.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
			s = strings.ReplaceAll(s, p, rel)
		}
	}
	s = strings.ReplaceAll(s, d.repo.Root+string(filepath.Separator), "")
	return strings.ReplaceAll(s, d.repo.Root, ".")
}

// refuse prints a refusal: JSON on stdout with --json, text on stderr
// otherwise.
func (d *door) refuse(e *refusal.Error) {
	text, hint := d.scrub(e.Text), d.scrub(e.Hint)
	if d.json {
		_ = d.writeJSON(map[string]any{"type": "refusal", "class": e.Class, "text": text, "hint": hint, "exit": exitCode(e.Class)})
		return
	}
	c := color.New(color.FgRed, color.Bold)
	if !d.colorOnStderr() {
		c.DisableColor()
	} else {
		c.EnableColor()
	}
	fmt.Fprintf(d.stderr, "%s %s\n", c.Sprint("nika: refused ("+string(e.Class)+"):"), text)
	if hint != "" {
		fmt.Fprintf(d.stderr, "hint: %s\n", hint)
	}
}

func (d *door) colorOnStderr() bool {
	if v, ok := os.LookupEnv("NO_COLOR"); ok && v != "" {
		return false
	}
	if os.Getenv("NIKA_COLOR") == "always" {
		return true
	}
	return isTerminal(d.stderr)
}

// note prints a line for the human on stderr (never in --json mode).
func (d *door) note(format string, args ...any) {
	if d.json {
		return
	}
	fmt.Fprintf(d.stderr, format+"\n", args...)
}
