package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"

	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/hostpath"
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

// openRepo opens the repository around the working directory.
func (d *door) openRepo() (*gitstage.Repo, error) {
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

// scrubber is the one host-path scrubber (package hostpath) for this
// door's repository: the work tree becomes relative, home and the
// temporary directories become <home> and <tmp>.
func (d *door) scrubber() hostpath.Scrubber {
	if d.repo == nil {
		return hostpath.New("", hostpath.Options{})
	}
	return hostpath.New(d.repo.Root, hostpath.Options{Also: []string{d.repo.GitDir, d.repo.CommonDir}})
}

// scrub rewrites the known host places in machine output (law 7): it is
// safe on any bytes, a preview's included.
func (d *door) scrub(s string) string { return d.scrubber().Known(s) }

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
