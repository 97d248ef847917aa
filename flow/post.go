package flow

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/hooks"
)

// PrepareHooks snapshots the project's post-apply hooks before the apply,
// so that the version that runs is the one from before it.
func PrepareHooks(r *gitstage.Repo) (*hooks.Set, error) { return hooks.Snapshot(r.Root) }

// PostApply runs the on-disk check of every workflow and project file the
// set wrote, then the project's hooks, and records the verdict as a git
// note on the applied commit under refs/notes/nika. A failing verdict does
// not undo the apply, which already happened with consent.
func PostApply(ctx context.Context, r *gitstage.Repo, p *Proposed, res *consent.Result, hs *hooks.Set, opt hooks.Options) (hooks.Verdict, error) {
	env := hooks.Env{ProposalID: p.Proposal.ID, Commit: res.Commit, Base: p.Proposal.Set.Base, Branch: p.Record.Branch, Root: r.Root}
	for _, path := range res.Paths {
		env.Paths = append(env.Paths, string(path))
	}
	v := hooks.Judge(ctx, hs, env, opt)
	err := r.AddNote(gitstage.NotesRef, plumbing.NewHash(res.Commit), v.Text())
	return v, err
}

// RunnerArgv expands the runner template (git config nika.runner, split on
// spaces) for a run request: {workflow}, {max_cost_usd}, and {vars}, which
// becomes one NAME=VALUE argument per variable, sorted. With no template it
// returns nil.
func RunnerArgv(template string, p *Proposed) []string {
	run := p.Proposal.Set.Run
	if run == nil || strings.TrimSpace(template) == "" {
		return nil
	}
	var out []string
	for _, f := range strings.Fields(template) {
		switch f {
		case "{vars}":
			out = append(out, varArgs(run.Vars, "")...)
		default:
			f = strings.ReplaceAll(f, "{workflow}", string(run.Workflow))
			f = strings.ReplaceAll(f, "{max_cost_usd}", strconv.FormatFloat(run.MaxCostUSD, 'f', -1, 64))
			out = append(out, f)
		}
	}
	return out
}

// SuggestedRun is the command a human can run when no runner is set.
func SuggestedRun(p *Proposed) string {
	run := p.Proposal.Set.Run
	parts := []string{"nika", "run", shellQuote(string(run.Workflow))}
	for _, v := range varArgs(run.Vars, "--var") {
		parts = append(parts, v)
	}
	if run.MaxCostUSD > 0 {
		parts = append(parts, "--max-cost-usd", strconv.FormatFloat(run.MaxCostUSD, 'f', -1, 64))
	}
	return strings.Join(parts, " ")
}

func varArgs(vars map[string]string, flag string) []string {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if flag != "" {
			out = append(out, flag, shellQuote(fmt.Sprintf("%s=%s", k, vars[k])))
		} else {
			out = append(out, fmt.Sprintf("%s=%s", k, vars[k]))
		}
	}
	return out
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Accepted is what a human's yes did: the apply, and the post-apply
// verdict (NoteErr says when it could not be recorded as a git note).
type Accepted struct {
	Result  *consent.Result
	Verdict hooks.Verdict
	NoteErr error
}

// Accept carries out a human's yes for a pending proposal, the same for
// every door: it snapshots the hooks, applies (rolling back on SIGINT or
// SIGTERM until the branch moves, and fsyncing when git's configuration
// asks), then runs the post-apply check and hooks and records the verdict.
func Accept(ctx context.Context, r *gitstage.Repo, p *Proposed, hopt hooks.Options) (*Accepted, error) {
	if err := Pending(p); err != nil {
		return nil, err
	}
	hs, err := PrepareHooks(r)
	if err != nil {
		return nil, err
	}
	interrupted, stop := consent.WatchSignals()
	res, err := Apply(r, p, consent.Options{Sync: r.SyncWanted(), Interrupted: interrupted})
	stop()
	if err != nil {
		return nil, err
	}
	v, noteErr := PostApply(ctx, r, p, res, hs, hopt)
	return &Accepted{Result: res, Verdict: v, NoteErr: noteErr}, nil
}
