package main

import (
	"fmt"
	"strings"

	"github.com/fatih/color"
	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/proof"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) logCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "list the applied proposals on the current branch, or in a range, with their witnesses and verdicts",
		ArgsUsage: "[REV-RANGE]",
		Flags: []cli.Flag{jsonFlag,
			&cli.BoolFlag{Name: "all", Usage: "also list commits that are not proposals (dimmed)"}},
		Action: d.log,
	}
}

func (d *door) selectArg(c *cli.Context, single bool) (*proof.Selection, error) {
	if c.NArg() > 1 {
		return nil, refusal.New(refusal.Invalid, "give one range A..B, commit, ref or proposal id",
			"nika %s takes at most one revision argument, got %d", c.Command.Name, c.NArg())
	}
	r, err := d.openRepo()
	if err != nil {
		return nil, err
	}
	return proof.Select(r.Git(), c.Args().First(), single)
}

func (d *door) log(c *cli.Context) error {
	sel, err := d.selectArg(c, false)
	if err != nil {
		return err
	}
	r := d.repo.Git()
	commits, err := sel.Commits(r)
	if err != nil {
		return err
	}
	entries, err := proof.Log(r, commits, c.Bool("all"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if w := doorwords.CLI(e.Fix, e.Commit); w != "" {
			e.Problem += ": " + w // the fix in the CLI's words, for the human and for --json
		}
	}
	if d.json {
		if entries == nil {
			entries = []*proof.Entry{}
		}
		return d.writeJSON(logJSON{Type: "log", Entries: entries})
	}
	if len(entries) == 0 {
		fmt.Fprintln(d.stdout, "no applied proposals here")
		return nil
	}
	dim := color.New(color.Faint)
	bold := color.New(color.Bold)
	if d.colorOn() {
		dim.EnableColor()
		bold.EnableColor()
	} else {
		dim.DisableColor()
		bold.DisableColor()
	}
	esc := preview.Escape
	var b strings.Builder
	for i, e := range entries {
		if i > 0 {
			b.WriteString("\n")
		}
		if !e.Proposal {
			b.WriteString(dim.Sprintf("commit   %s  (not a proposal)\n", e.Commit))
			b.WriteString(dim.Sprintf("author   %s <%s>\ndate     %s\n", esc(e.Author), esc(e.Email), e.Date.Format("2006-01-02 15:04:05 -0700")))
			b.WriteString(dim.Sprintf("\n    %s\n", esc(firstLine(e.Goal))))
			continue
		}
		b.WriteString(bold.Sprintf("proposal %s\n", e.ID))
		fmt.Fprintf(&b, "commit   %s\n", e.Commit)
		fmt.Fprintf(&b, "author   %s <%s>\n", esc(e.Author), esc(e.Email))
		fmt.Fprintf(&b, "date     %s\n", e.Date.Format("2006-01-02 15:04:05 -0700"))
		if e.Verdict != nil {
			lines := strings.Split(*e.Verdict, "\n")
			fmt.Fprintf(&b, "verdict  %s\n", esc(lines[0]))
			for _, l := range lines[1:] {
				fmt.Fprintf(&b, "         %s\n", esc(l))
			}
		} else {
			b.WriteString("verdict  no verdict recorded\n")
		}
		if e.Problem != "" {
			fmt.Fprintf(&b, "problem  %s\n", esc(e.Problem))
		}
		b.WriteString("\n")
		for _, l := range strings.Split(e.Goal, "\n") {
			fmt.Fprintf(&b, "    %s\n", esc(l))
		}
		if len(e.Changes) > 0 {
			b.WriteString("\n")
		}
		for _, ch := range e.Changes {
			if ch.From != "" {
				fmt.Fprintf(&b, "  %-6s %s -> %s\n", ch.Kind, esc(ch.From), esc(ch.Path))
			} else {
				fmt.Fprintf(&b, "  %-6s %s\n", ch.Kind, esc(ch.Path))
			}
			for _, s := range []struct {
				name string
				v    *proof.SideView
			}{{"before", ch.Before}, {"after ", ch.After}} {
				if s.v == nil {
					fmt.Fprintf(&b, "         %s absent\n", s.name)
				} else {
					fmt.Fprintf(&b, "         %s %s %s %s\n", s.name, s.v.Mode, s.v.Blob, s.v.Witness)
				}
			}
		}
	}
	return d.page([]byte(b.String()))
}
