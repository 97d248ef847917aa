package main

import (
	"fmt"
	"strings"

	"github.com/fatih/color"
	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/proof"
	"github.com/nika-dev/nika/refusal"
)

func init() {
	moreCommands = append(moreCommands,
		func(d *door) *cli.Command {
			return &cli.Command{
				Name:      "log",
				Usage:     "list the applied proposals on the current branch, or in a range, with their witnesses and verdicts",
				ArgsUsage: "[REV-RANGE]",
				Flags: []cli.Flag{jsonFlag,
					&cli.BoolFlag{Name: "all", Usage: "also list commits that are not proposals (dimmed)"}},
				Action: d.log,
			}
		},
		func(d *door) *cli.Command {
			return &cli.Command{
				Name:      "verify",
				Usage:     "prove proposal commits from git objects alone (for CI): ids, witnesses, parents and the checker",
				ArgsUsage: "[REV-RANGE | COMMIT | ID | REF]",
				Flags: []cli.Flag{jsonFlag,
					&cli.BoolFlag{Name: "require-all", Usage: "fail on commits that are not proposals"},
					&cli.BoolFlag{Name: "require-signed", Usage: "fail on proposal commits that are unsigned or whose key git's rules do not allow"}},
				Action: d.verify,
			}
		})
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
	return proof.Select(r, c.Args().First(), single)
}

func (d *door) log(c *cli.Context) error {
	sel, err := d.selectArg(c, false)
	if err != nil {
		return err
	}
	r := d.repo
	commits, err := sel.Commits(r)
	if err != nil {
		return err
	}
	entries, err := proof.Log(r, commits, c.Bool("all"))
	if err != nil {
		return err
	}
	if d.json {
		if entries == nil {
			entries = []*proof.Entry{}
		}
		return d.writeJSON(map[string]any{"type": "log", "entries": entries})
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
	var b strings.Builder
	for i, e := range entries {
		if i > 0 {
			b.WriteString("\n")
		}
		if !e.Proposal {
			b.WriteString(dim.Sprintf("commit   %s  (not a proposal)\n", e.Commit))
			b.WriteString(dim.Sprintf("author   %s <%s>\ndate     %s\n", e.Author, e.Email, e.Date.Format("2006-01-02 15:04:05 -0700")))
			b.WriteString(dim.Sprintf("\n    %s\n", e.Goal))
			continue
		}
		b.WriteString(bold.Sprintf("proposal %s\n", e.ID))
		fmt.Fprintf(&b, "commit   %s\n", e.Commit)
		fmt.Fprintf(&b, "author   %s <%s>\n", e.Author, e.Email)
		fmt.Fprintf(&b, "date     %s\n", e.Date.Format("2006-01-02 15:04:05 -0700"))
		if e.Verdict != nil {
			lines := strings.Split(*e.Verdict, "\n")
			fmt.Fprintf(&b, "verdict  %s\n", lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(&b, "         %s\n", l)
			}
		} else {
			b.WriteString("verdict  no verdict recorded\n")
		}
		if e.Problem != "" {
			fmt.Fprintf(&b, "problem  %s\n", e.Problem)
		}
		b.WriteString("\n")
		for _, l := range strings.Split(e.Goal, "\n") {
			fmt.Fprintf(&b, "    %s\n", l)
		}
		if len(e.Changes) > 0 {
			b.WriteString("\n")
		}
		for _, ch := range e.Changes {
			if ch.From != "" {
				fmt.Fprintf(&b, "  %-6s %s -> %s\n", ch.Kind, changeset.Quote(ch.From), changeset.Quote(ch.Path))
			} else {
				fmt.Fprintf(&b, "  %-6s %s\n", ch.Kind, changeset.Quote(ch.Path))
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

func (d *door) verify(c *cli.Context) error {
	sel, err := d.selectArg(c, true)
	if err != nil {
		return err
	}
	r := d.repo
	commits, err := sel.Commits(r)
	if err != nil {
		return err
	}
	results := proof.Verify(r, commits, proof.Options{RequireAll: c.Bool("require-all"), ExpectID: sel.ExpectID, RequireSigned: c.Bool("require-signed")})
	var nProven, nFailed, nOther int
	for _, res := range results {
		switch res.Status {
		case proof.Proven:
			nProven++
		case proof.Failed:
			nFailed++
		default:
			nOther++
		}
	}
	code := exitOK
	worst, bad := proof.Worst(results)
	if bad {
		code = exitCode(worst)
	}
	if d.json {
		if results == nil {
			results = []*proof.Result{}
		}
		d.code = code
		out := map[string]any{"type": "verify", "commits": results, "proven": nProven, "failed": nFailed, "not_proposals": nOther, "exit": code}
		if bad {
			out["class"] = worst
		}
		return d.writeJSON(out)
	}
	var b strings.Builder
	for _, res := range results {
		switch res.Status {
		case proof.Proven:
			fmt.Fprintf(&b, "proven          %s  proposal %s  %s\n", res.Commit[:12], res.ID[:12], firstLineOf(res.Goal))
		case proof.NotProposal:
			fmt.Fprintf(&b, "not a proposal  %s  %s\n", res.Commit[:12], firstLineOf(res.Goal))
		default:
			id := "(no trailer)"
			if res.ID != "" {
				id = "proposal " + shortID(res.ID)
			}
			fmt.Fprintf(&b, "FAILED          %s  %s  %s\n", res.Commit[:12], id, firstLineOf(res.Goal))
			for _, f := range res.Failures {
				fmt.Fprintf(&b, "  %s: %s\n", f.Class, f.Text)
				if f.Hint != "" {
					fmt.Fprintf(&b, "  fix: %s\n", f.Hint)
				}
			}
		}
		for _, f := range res.Findings {
			fmt.Fprintf(&b, "  %s %s:%d:%d %s %s\n", f.Severity, f.Path, f.Line, f.Col, f.Code, f.Message)
		}
		if s := res.Signature; s != nil && s.Status != proof.SigUnsigned {
			fmt.Fprintf(&b, "  signature: %s\n", signatureText(s))
		}
	}
	switch {
	case len(results) == 0:
		b.WriteString("nothing to verify: the range holds no commit\n")
	case bad:
		fmt.Fprintf(&b, "verify: %d proven, %d failed, %d not proposals · %s (exit %d)\n", nProven, nFailed, nOther, worst, code)
	case nProven == 0:
		fmt.Fprintf(&b, "verify: 0 proven, %d not proposals · no proposal in the selection\n", nOther)
	default:
		fmt.Fprintf(&b, "verify: %d proven, %d not proposals · all proposals proven\n", nProven, nOther)
	}
	fmt.Fprint(d.stdout, d.scrub(b.String()))
	if bad {
		return exitErr(code)
	}
	return nil
}

func firstLineOf(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func shortID(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// signatureText is one line on a proposal commit's signature.
func signatureText(s *proof.Signature) string {
	what := s.Format + " signature"
	if s.Signer != "" {
		what += " by " + s.Signer
	}
	if s.Key != "" {
		what += ", key " + s.Key
	}
	over := ""
	if s.ProposalCommit != "" {
		over = " over proposal commit " + shortID(s.ProposalCommit)
	}
	switch s.Status {
	case proof.SigGood:
		return "good " + what + over + ": its signer consented to this proposal"
	case proof.SigNotAllowed:
		return "good " + what + over + ", but the key is not allowed: " + s.Text
	case proof.SigUnchecked:
		return "not checked: " + s.Text
	}
	return "bad " + what
}
