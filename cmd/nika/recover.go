package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
	"github.com/urfave/cli/v2"
)

func (d *door) recoverCommand() *cli.Command {
	return &cli.Command{
		Name:   "recover",
		Usage:  "finish or undo an apply that a crash interrupted",
		Flags:  []cli.Flag{jsonFlag},
		Action: d.recover,
	}
}

func (d *door) recover(c *cli.Context) error {
	d.recovering = true
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	recs, rerr := flow.Recover(r)
	if d.json {
		out := recoverJSON{Type: "recover", Recovered: []flow.Recovery{}}
		for _, rc := range recs {
			if rc.Attention == nil {
				rc.Attention = []flow.Attention{}
			}
			out.Recovered = append(out.Recovered, rc)
		}
		if rerr != nil {
			// What was settled and what a human must look at come with the
			// refusal, in the one object: nothing is lost.
			e := asRefusal(rerr)
			out.Refusal = &refusalJSON{Type: "refusal", Class: e.Class, Text: d.scrub(e.Text), Hint: d.scrub(doorwords.CLIHint(e)), Fix: e.Fix, Exit: refusal.Code(e.Class)}
			d.code = refusal.Code(e.Class)
		}
		return d.writeJSON(out)
	}
	if len(recs) == 0 && rerr == nil {
		fmt.Fprintln(d.stdout, "nothing to recover: no interrupted apply")
		return nil
	}
	for _, rc := range recs {
		if rc.State == "incomplete" {
			fmt.Fprintf(d.stdout, "could not finish recovering %s yet; its journal is kept\n", short(rc.ID))
		} else {
			fmt.Fprintf(d.stdout, "recovered %s: %s\n", short(rc.ID), rc.State)
		}
		if len(rc.Locks) > 0 {
			fmt.Fprintf(d.stdout, "  removed its stale locks: %s\n", escape(strings.Join(rc.Locks, ", ")))
		}
		kept := map[string]bool{}
		for _, k := range rc.Kept {
			kept[k] = true
		}
		for _, a := range rc.Attention {
			verb := "look at"
			if kept[a.Path] {
				verb = "kept"
			}
			fmt.Fprintf(d.stdout, "  %s %s: %s\n", verb, escape(a.Path), escape(a.Why))
		}
		if rc.Verdict != nil {
			io.WriteString(d.stdout, escapeText(d.scrub(rc.Verdict.Text())))
			if !rc.Verdict.Clean() {
				fmt.Fprintln(d.stdout, escapeText(rc.Verdict.Advice(rc.Commit)))
			}
		}
		if rc.NoteError != "" {
			d.note("nika: the verdict could not be recorded as a git note: %s", escape(d.scrub(rc.NoteError)))
		}
	}
	return rerr
}

// warnInterrupted tells the human, on any command but recover, that an
// interrupted apply waits.
func (d *door) warnInterrupted() {
	if d.repo == nil || d.recovering {
		return
	}
	ids, err := d.repo.Interrupted()
	if err != nil || len(ids) == 0 {
		return
	}
	for _, id := range ids {
		fmt.Fprintf(d.stderr, "nika: an apply of %s was interrupted; run nika recover to finish or undo it\n", short(id))
	}
}
