package main

// The session's doors on the terminal: bare `nika` opens the session on
// an interactive terminal, and prints a deterministic summary of the
// project on a pipe. The machine is session.Machine; these files only
// read lines from the terminal (session_term.go), print outcomes and ask
// for answers (session_show.go), and carry out the run and resume requests
// the machine hands back as data (protocol.Carry, shared with the stdio
// protocol).

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session/project"
	"github.com/nika-dev/nika/terminal"
)

// bare is `nika` with no verb.
func (d *door) bare(c *cli.Context) error {
	if c.NArg() > 0 {
		return refusal.New(refusal.Invalid, "run nika help to see the verbs", "nika has no verb %s", changeset.Quote(c.Args().First()))
	}
	eng, err := d.openEngine()
	if err != nil {
		return err
	}
	if d.json || !terminal.IsTerminal(d.stdout) || !terminal.IsTerminal(d.stdin) {
		return d.summary(eng)
	}
	return d.terminalSession(eng)
}

func (d *door) openEngine() (*project.Engine, error) {
	r, err := d.openRepo()
	if err != nil {
		return nil, err
	}
	return &project.Engine{Repo: r.Git(), MaxApplied: 5, Color: d.colorOn()}, nil
}

// summary is the pipe door: the snapshot, the same bytes for the same
// project.
func (d *door) summary(eng *project.Engine) error {
	snap, err := eng.Snapshot()
	if err != nil {
		return err
	}
	if d.json {
		return d.writeJSON(summaryJSON{Type: "summary", Snapshot: snap})
	}
	_, err = io.WriteString(d.stdout, escapeText(snap.Summary()))
	return err
}

func escapeText(t string) string { return preview.EscapeText(t) }
