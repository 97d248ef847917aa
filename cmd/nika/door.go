package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/fatih/color"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/hostpath"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/terminal"
)

// door is one run of the CLI: its streams, the global options, and the
// repository once a verb opened it.
type door struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	name           string // "nika", or "git nika"
	globals
	code       int // the exit code of a verb that printed its own result
	repo       *flow.Repo
	recovering bool
}

// openRepo opens the repository that git would use from the working
// directory, under the process environment (GIT_DIR, GIT_WORK_TREE,
// core.worktree...: gitstage.Open). It first refuses to run with too few
// free file descriptors, before anything opens one: the Go runtime dies
// (it cannot make its poller) instead of failing an open.
func (d *door) openRepo() (*flow.Repo, error) {
	if err := fileHeadroom(); err != nil {
		return nil, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, refusal.New(refusal.Io, "", "could not read the working directory: %v", err)
	}
	r, err := flow.Open(wd)
	if err != nil {
		return nil, err
	}
	d.repo = r
	if !d.json {
		d.warnInterrupted()
	}
	return r, nil
}

// colorFor decides colour for one stream as git does (terminal.Color):
// --color, NIKA_COLOR, the repository's color.nika and color.ui, NO_COLOR,
// a terminal.
func (d *door) colorFor(w io.Writer) bool { return terminal.Color(w, d.color, d.config()) }

func (d *door) colorOn() bool { return d.colorFor(d.stdout) }

// config reads the repository's git config; nil before a verb opened one.
func (d *door) config() func(key string) (string, bool) {
	if d.repo == nil {
		return nil
	}
	return d.repo.Config
}

// page writes out to stdout, through the pager when stdout is a terminal
// and out is taller than it, the way git does (terminal.Pager).
func (d *door) page(out []byte) error {
	f, ok := d.stdout.(*os.File)
	if !ok || d.json || !terminal.IsTerminal(f) {
		_, err := d.stdout.Write(out)
		return err
	}
	return d.pageTo(f, out)
}

// pageTo writes out to the terminal f, through the pager when out is taller
// than the terminal and no option turned the pager off.
func (d *door) pageTo(f *os.File, out []byte) error {
	return terminal.Page(f, out, terminal.Pager(d.noPager, d.config()), d.stderr)
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

// scrubber is the one host-path scrubber (package hostpath) for this
// door's repository: the work tree becomes relative, home and the
// temporary directories become <home> and <tmp>.
func (d *door) scrubber() hostpath.Scrubber {
	if d.repo == nil {
		return hostpath.New("", hostpath.Options{})
	}
	return d.repo.Scrubber()
}

// scrub rewrites the known host places in machine output (law 7): it is
// safe on any bytes, a preview's included.
func (d *door) scrub(s string) string { return d.scrubber().Known(s) }

// refuse prints a refusal: JSON on stdout with --json, text on stderr
// otherwise. The fix a library named is worded for the CLI.
func (d *door) refuse(e *refusal.Error) {
	text, hint := d.scrub(e.Text), d.scrub(doorwords.CLIHint(e))
	if d.json {
		_ = d.writeJSON(refusalJSON{Type: "refusal", Class: e.Class, Text: text, Hint: hint, Fix: e.Fix, Exit: refusal.Code(e.Class)})
		return
	}
	c := color.New(color.FgRed, color.Bold)
	if d.colorFor(d.stderr) {
		c.EnableColor()
	} else {
		c.DisableColor()
	}
	fmt.Fprintf(d.stderr, "%s %s\n", c.Sprint("nika: refused ("+string(e.Class)+"):"), preview.Escape(text))
	if hint != "" {
		fmt.Fprintf(d.stderr, "hint: %s\n", preview.Escape(hint))
	}
}

// note prints a line for the human on stderr (never in --json mode).
func (d *door) note(format string, args ...any) {
	if d.json {
		return
	}
	fmt.Fprintf(d.stderr, format+"\n", args...)
}

// short is the 12-hex form of an id or commit that the CLI prints.
func short(id string) string { return doorwords.Short(id) }

// firstLine is a goal's subject line.
func firstLine(s string) string { return doorwords.FirstLine(s) }

// escape is the one escaper (preview.Escape), for every string from outside
// nika that a verb prints.
func escape(s string) string { return preview.Escape(s) }
