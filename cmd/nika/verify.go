package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/proof"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) verifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "prove proposal commits from git objects alone (for CI): ids, witnesses, parents and the checker",
		ArgsUsage: "[REV-RANGE | COMMIT | ID | REF]",
		Flags: []cli.Flag{jsonFlag,
			&cli.BoolFlag{Name: "require-all", Usage: "fail on commits that are not proposals"},
			&cli.BoolFlag{Name: "require-signed", Usage: "fail on proposal commits that are unsigned or whose key git's rules do not allow"}},
		Action: d.verify,
	}
}

func (d *door) verify(c *cli.Context) error {
	sel, err := d.selectArg(c, true)
	if err != nil {
		return err
	}
	r := d.repo.Git()
	commits, err := sel.Commits(r)
	if err != nil {
		return err
	}
	results := proof.Verify(r, commits, proof.Options{RequireAll: c.Bool("require-all"), ExpectID: sel.ExpectID, RequireSigned: c.Bool("require-signed")})
	for _, res := range results {
		for i := range res.Failures {
			// The fix in the CLI's words, for the human and for --json.
			f := &res.Failures[i]
			f.Hint = doorwords.JoinHint(f.Hint, doorwords.CLI(f.Fix, f.Subject))
		}
	}
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
		code = refusal.Code(worst)
	}
	if d.json {
		if results == nil {
			results = []*proof.Result{}
		}
		d.code = code
		out := verifyJSON{Type: "verify", Commits: results, Proven: nProven, Failed: nFailed, NotProposals: nOther, Exit: code}
		if bad {
			out.Class = worst
		}
		return d.writeJSON(out)
	}
	esc := preview.Escape
	var b strings.Builder
	for _, res := range results {
		switch res.Status {
		case proof.Proven:
			fmt.Fprintf(&b, "proven          %s  proposal %s  %s\n", res.Commit[:12], res.ID[:12], esc(firstLine(res.Goal)))
		case proof.NotProposal:
			fmt.Fprintf(&b, "not a proposal  %s  %s\n", res.Commit[:12], esc(firstLine(res.Goal)))
		default:
			id := "(no trailer)"
			if res.ID != "" {
				id = "proposal " + short(res.ID)
			}
			fmt.Fprintf(&b, "FAILED          %s  %s  %s\n", res.Commit[:12], id, esc(firstLine(res.Goal)))
			for _, f := range res.Failures {
				fmt.Fprintf(&b, "  %s: %s\n", f.Class, esc(f.Text))
				if f.Hint != "" {
					fmt.Fprintf(&b, "  fix: %s\n", esc(f.Hint))
				}
			}
		}
		for _, f := range res.Findings {
			fmt.Fprintf(&b, "  %s %s:%d:%d %s %s\n", f.Severity, esc(f.Path), f.Line, f.Col, f.Code, esc(f.Message))
		}
		if sg := res.Signature; sg != nil && sg.Status != proof.SigUnsigned {
			fmt.Fprintf(&b, "  signature: %s\n", esc(signatureText(sg)))
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
		over = " over proposal commit " + short(s.ProposalCommit)
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
