package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/hooks"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) readInput(c *cli.Context, max int) ([]byte, error) {
	var r io.Reader = d.stdin
	name := "standard input"
	if c.NArg() > 1 {
		return nil, refusal.New(refusal.Invalid, "give one file, or - for standard input", "nika propose takes one input, got %d", c.NArg())
	}
	if a := c.Args().First(); a != "" && a != "-" {
		f, err := os.Open(a)
		if err != nil {
			return nil, refusal.New(refusal.NotFound, "check the file name", "could not open the input %s: %v", changeset.Quote(a), unwrapPath(err))
		}
		defer f.Close()
		r, name = f, changeset.Quote(a)
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, refusal.New(refusal.Io, "", "could not read %s: %v", name, err)
	}
	if len(b) > max {
		return nil, refusal.New(refusal.TooLarge, "split the proposal, or raise the limit with --max-input",
			"%s is larger than the limit of %d bytes", name, max)
	}
	return b, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// render builds the preview bytes of a proposal: the human text, or JSON.
func (d *door) render(p *flow.Proposed) ([]byte, error) {
	var b bytes.Buffer
	in := flow.PreviewInput(p)
	var err error
	if d.json {
		if err = preview.JSON(&b, in); err == nil {
			var ind bytes.Buffer
			if err = json.Indent(&ind, b.Bytes(), "", "  "); err == nil {
				return ind.Bytes(), nil
			}
		}
	} else {
		err = preview.Human(&b, in, preview.Options{Color: d.colorOn()})
	}
	return b.Bytes(), err
}

func (d *door) propose(c *cli.Context) error {
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	input, err := d.readInput(c, c.Int("max-input"))
	if err != nil {
		return err
	}
	in := flow.ProposeInput{Input: input, Format: c.String("format"), Goal: c.String("goal"), Allow: c.StringSlice("allow"), MaxInput: c.Int("max-input")}
	if w := c.String("run"); w != "" {
		in.Run = &flow.RunInput{Workflow: w, Vars: map[string]string{}, MaxCostUSD: c.Float64("max-cost-usd")}
		for _, v := range c.StringSlice("var") {
			k, val, ok := strings.Cut(v, "=")
			if !ok || k == "" {
				return refusal.New(refusal.Invalid, "write --var NAME=VALUE", "--var %s is not NAME=VALUE", changeset.Quote(v))
			}
			in.Run.Vars[k] = val
		}
	} else if len(c.StringSlice("var")) > 0 || c.IsSet("max-cost-usd") {
		return refusal.New(refusal.Invalid, "add --run WORKFLOW", "--var and --max-cost-usd belong to a run request")
	}
	p, err := flow.Propose(r, in)
	if err != nil {
		return err
	}
	if p.Empty() {
		if d.json {
			return d.writeJSON(map[string]any{"type": "nothing", "format": p.Format, "unchanged": pathStrings(p.Unchanged)})
		}
		if len(p.Unchanged) > 0 {
			fmt.Fprintf(d.stdout, "nothing to propose: the named files already hold these bytes (%d unchanged)\n", len(p.Unchanged))
		} else {
			fmt.Fprintln(d.stdout, "nothing was proposed: the input names no file")
		}
		return nil
	}
	out, err := d.render(p)
	if err != nil {
		return err
	}
	if err := d.page(out); err != nil {
		return err
	}
	if f := c.String("format"); f == "" || f == "auto" {
		d.note("format: %s (detected; choose with --format)", p.Format)
	}
	for _, u := range p.Unchanged {
		d.note("unchanged: %s already holds the proposed bytes", u)
	}
	for _, n := range p.Notes {
		d.note("fix ladder: %s", n)
	}
	if p.Record.State != gitstage.Pending {
		d.note("this proposal was already %s; change the input or the goal to propose anew", p.Record.State)
	} else {
		d.note("to apply it: nika apply %s", p.Proposal.ID[:12])
	}
	return nil
}

func (d *door) load(c *cli.Context) (*gitstage.Repo, *flow.Proposed, error) {
	if c.NArg() != 1 {
		return nil, nil, refusal.New(refusal.Invalid, "run nika list to see the ids", "nika %s takes one proposal id", c.Command.Name)
	}
	r, err := d.openRepo()
	if err != nil {
		return nil, nil, err
	}
	p, err := flow.Load(r, c.Args().First())
	return r, p, err
}

func (d *door) show(c *cli.Context) error {
	_, p, err := d.load(c)
	if err != nil {
		return err
	}
	out, err := d.render(p)
	if err != nil {
		return err
	}
	return d.page(out)
}

func (d *door) apply(c *cli.Context) error {
	r, p, err := d.load(c)
	if err != nil {
		return err
	}
	if err := flow.Pending(p); err != nil {
		return err
	}
	if only, ex := c.StringSlice("only"), c.StringSlice("exclude"); len(only) > 0 || len(ex) > 0 {
		sub, err := flow.Subset(r, p, only, ex)
		if err != nil {
			return err
		}
		if sub != p {
			d.note("a derived proposal %s holds the chosen changes; %s stays pending", sub.Proposal.ID[:12], p.Proposal.ID[:12])
		}
		p = sub
	}
	tty, err := openTTY()
	if err != nil {
		return refusal.New(refusal.NoConsent,
			fmt.Sprintf("run nika apply %s in a terminal and type yes; consent is never read from a pipe or a flag", p.Proposal.ID[:12]),
			"no terminal to ask for consent (%v) · nothing was applied", err)
	}
	defer tty.Close()
	out, err := d.render(p)
	if err != nil {
		return err
	}
	if d.json {
		// The human reads the preview on the terminal; stdout gets JSON.
		var b bytes.Buffer
		_ = preview.Human(&b, flow.PreviewInput(p), preview.Options{})
		tty.Write(b.Bytes())
	} else if err := d.page(out); err != nil {
		return err
	}
	fmt.Fprintf(tty, "Apply proposal %s to %s? Type yes to apply; anything else discards it: ", p.Proposal.ID[:12], branchName(p.Record.Branch))
	line, _ := bufio.NewReader(io.LimitReader(tty, 4096)).ReadString('\n')
	if consent.Decide(line) != consent.Yes {
		if err := flow.Discard(r, p); err != nil {
			return err
		}
		if d.json {
			d.code = exitCode(refusal.NoConsent)
			return d.writeJSON(map[string]any{"type": "declined", "id": p.Proposal.ID})
		}
		fmt.Fprintf(d.stderr, "not applied: the answer was not yes · proposal %s is discarded\n", p.Proposal.ID[:12])
		return exitErr(exitCode(refusal.NoConsent))
	}
	acc, err := flow.Accept(context.Background(), r, p, hooks.Options{})
	if err != nil {
		if errors.Is(err, consent.ErrInterrupted) {
			d.note("interrupted: the apply was rolled back; nothing was applied")
		}
		return err
	}
	if !d.json {
		fmt.Fprintf(d.stdout, "applied %s: %s is now at %s (%d file(s))\n", p.Proposal.ID[:12], branchName(p.Record.Branch), acc.Result.Commit[:12], len(acc.Result.Paths))
		if acc.Result.Commit != p.Proposal.Commit {
			fmt.Fprintf(d.stdout, "signed %s (%s): the signed twin of proposal commit %s\n", acc.Result.Commit[:12], p.Signing, p.Proposal.Commit[:12])
		}
	}
	return d.afterApply(r, p, acc)
}

// afterApply tells the human the post-apply verdict (already recorded as a
// git note), and then carries out (or withholds) the run request.
func (d *door) afterApply(r *gitstage.Repo, p *flow.Proposed, acc *flow.Accepted) error {
	res, v, noteErr := acc.Result, acc.Verdict, acc.NoteErr
	out := map[string]any{"type": "applied", "id": p.Proposal.ID, "commit": res.Commit, "branch": branchName(p.Record.Branch),
		"paths": pathStrings(res.Paths), "verdict": v, "clean": v.Clean()}
	if res.Commit != p.Proposal.Commit {
		out["proposal_commit"] = p.Proposal.Commit // the branch moved to its signed twin
	}
	if noteErr != nil {
		d.note("nika: the verdict could not be recorded as a git note: %s", d.scrub(noteErr.Error()))
		out["note_error"] = d.scrub(noteErr.Error())
	}
	if !d.json {
		fmt.Fprint(d.stdout, v.Text())
		if !v.Clean() {
			fmt.Fprintln(d.stdout, v.Advice(res.Commit))
		}
	}
	if run := p.Proposal.Set.Run; run != nil {
		ro := map[string]any{"workflow": string(run.Workflow)}
		out["run"] = ro
		tmpl, _ := r.Config.Get("nika.runner")
		argv := flow.RunnerArgv(tmpl, p)
		switch {
		case !v.Clean():
			ro["status"] = "withheld"
			if !d.json {
				fmt.Fprintf(d.stdout, "run of %s withheld: the check after the apply is not clean\n", run.Workflow)
			}
		case argv == nil:
			ro["status"] = "not configured"
			ro["command"] = flow.SuggestedRun(p)
			if !d.json {
				fmt.Fprintf(d.stdout, "run requested: no runner is configured (git config nika.runner \"<argv template>\"); to run it:\n  %s\n", flow.SuggestedRun(p))
			}
		default:
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = r.Root
			cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, d.stderr, d.stderr
			if !d.json {
				cmd.Stdout = d.stdout
				fmt.Fprintf(d.stdout, "run requested: %s\n", strings.Join(argv, " "))
			}
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				code = -1
				ro["error"] = d.scrub(err.Error())
			}
			ro["status"], ro["exit"] = "ran", code
			if !d.json {
				fmt.Fprintf(d.stdout, "runner exited %d\n", code)
			}
		}
	}
	if d.json {
		return d.writeJSON(out)
	}
	return nil
}

func branchName(ref string) string {
	if ref == "" {
		return "HEAD (detached)"
	}
	return gitstage.ShortBranch(ref)
}

func (d *door) discard(c *cli.Context) error {
	r, p, err := d.load(c)
	if err != nil {
		return err
	}
	if err := flow.Discard(r, p); err != nil {
		return err
	}
	if d.json {
		return d.writeJSON(map[string]any{"type": "discarded", "id": p.Proposal.ID})
	}
	fmt.Fprintf(d.stdout, "discarded %s\n", p.Proposal.ID[:12])
	return nil
}

func (d *door) list(c *cli.Context) error {
	r, err := d.openRepo()
	if err != nil {
		return err
	}
	recs, err := r.Records()
	if err != nil {
		return err
	}
	type item struct {
		ID     string `json:"id"`
		Commit string `json:"commit"`
		Base   any    `json:"base"`
		Branch string `json:"branch"`
		Goal   string `json:"goal"`
		State  string `json:"state"`
	}
	items := []item{}
	head, err := r.ReadHead()
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if rec.State != gitstage.Pending && !c.Bool("all") {
			continue
		}
		state := string(rec.State)
		if flow.IsStale(rec, head) {
			state = string(gitstage.Stale)
		}
		var base any
		if rec.Base != "" {
			base = rec.Base
		}
		items = append(items, item{rec.ID, rec.Commit, base, branchName(rec.Branch), rec.Goal, state})
	}
	if d.json {
		return d.writeJSON(map[string]any{"type": "list", "proposals": items})
	}
	if len(items) == 0 {
		fmt.Fprintln(d.stdout, "no pending proposals")
		return nil
	}
	for _, it := range items {
		goal, _, _ := bytes.Cut([]byte(it.Goal), []byte("\n"))
		if c.Bool("all") {
			fmt.Fprintf(d.stdout, "%s  %-9s %-12s %s\n", it.ID[:12], it.State, it.Branch, goal)
		} else {
			fmt.Fprintf(d.stdout, "%s  %-12s %s\n", it.ID[:12], it.Branch, goal)
		}
	}
	return nil
}

func pathStrings(ps []changeset.Path) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, string(p))
	}
	return out
}
