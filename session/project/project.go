// Package project is the session's Engine over a git project: it stages,
// applies and discards proposals through flow (exactly as the CLI verbs
// do), takes the snapshot of the project's facts, and reads the files a
// human names for the context broker.
//
// Why a package of its own: the session machine does no I/O, so that
// every transition can be tested with a fake; this is the one real
// implementation, and it holds no decision of its own. Every error it
// returns is a *session.Error whose text carries no absolute path of the
// host.
package project

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/hooks"
	"github.com/nika-dev/nika/hostpath"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/safefs"
	"github.com/nika-dev/nika/session"
)

// Engine implements session.Engine over one repository.
type Engine struct {
	Repo *gitstage.Repo
	// Color renders previews with git's diff colors.
	Color bool
	// Hooks shapes the post-apply hooks (timeouts, output caps).
	Hooks hooks.Options
	// MaxApplied bounds the last applied proposals in a snapshot.
	MaxApplied int
}

var (
	_ session.Engine         = (*Engine)(nil)
	_ session.FeedbackSource = (*Engine)(nil)
)

// MaxFeedback bounds the reviewed proposals whose feedback a bundle carries.
const MaxFeedback = 4

// Feedback is the human's feedback on the latest reviewed proposals
// (flow.RecentFeedback), as text for the model.
func (e *Engine) Feedback() []session.Feedback {
	fs, err := flow.RecentFeedback(flow.FromGit(e.Repo), MaxFeedback)
	if err != nil {
		return nil
	}
	out := make([]session.Feedback, 0, len(fs))
	for _, f := range fs {
		out = append(out, session.Feedback{ID: f.ID, Text: e.Scrub(flow.FeedbackText(f))})
	}
	return out
}

// Scrub rewrites the host's known places in a text with the one scrubber
// (package hostpath): the work tree becomes relative, home and the
// temporary directories become <home> and <tmp>. Every text the engine
// returns passes through it. (A refusal's text quotes its input, which
// may be an absolute path a model wrote; only the host's places go.)
func (e *Engine) Scrub(s string) string {
	return e.scrubber().Known(s)
}

// ScrubProgram rewrites every host path in what a program printed (a
// runner's error): the known places, and any other absolute path.
func (e *Engine) ScrubProgram(s string) string {
	return e.scrubber().Text(s)
}

func (e *Engine) scrubber() hostpath.Scrubber {
	r := e.Repo
	return hostpath.New(r.Root, hostpath.Options{Also: []string{r.GitDir, r.CommonDir}})
}

// fail types an error from the rooms for the session: its class and its
// Fix pass through unchanged (one table, package refusal; the door words
// the fix), and its text holds no host path.
func (e *Engine) fail(err error) error {
	if err == nil {
		return nil
	}
	r := session.Refused(err)
	return (&session.Error{Class: r.Class, Text: e.Scrub(r.Text), Err: err}).WithFix(r.Fix, e.Scrub(r.Subject))
}

// Propose stages text with the format detected, as nika propose does.
func (e *Engine) Propose(text string, run *session.RunRequested, allow []string) (session.Staged, error) {
	in := flow.ProposeInput{Input: []byte(text), Format: "auto", Allow: allow}
	if run != nil {
		in.Run = &flow.RunInput{Workflow: run.Workflow, Vars: run.Vars, MaxCostUSD: run.MaxCostUSD}
	}
	p, err := flow.Propose(flow.FromGit(e.Repo), in)
	if err != nil {
		return session.Staged{}, e.fail(err)
	}
	if p.Empty() {
		why := "the text names no file"
		if len(p.Unchanged) > 0 {
			why = fmt.Sprintf("the named files already hold these bytes (%d unchanged)", len(p.Unchanged))
		}
		return session.Staged{Nothing: why}, nil
	}
	var b bytes.Buffer
	if err := preview.Human(&b, flow.PreviewInput(p), preview.Options{Color: e.Color}); err != nil {
		return session.Staged{}, e.fail(err)
	}
	return session.Staged{ID: p.Proposal.ID, Preview: b.String(), State: string(p.Record.State)}, nil
}

// Apply applies a pending proposal, runs the post-apply check and hooks,
// and records the verdict as a git note.
func (e *Engine) Apply(id string) (session.ApplyResult, error) {
	r := e.Repo
	p, err := flow.Load(flow.FromGit(r), id)
	if err != nil {
		return session.ApplyResult{}, e.fail(err)
	}
	acc, err := flow.Accept(context.Background(), flow.FromGit(r), p, e.Hooks)
	if err != nil {
		return session.ApplyResult{}, e.fail(err)
	}
	res, v, noteErr := acc.Result, acc.Verdict, acc.NoteErr
	a := session.Applied{ID: p.Proposal.ID, Commit: res.Commit, Branch: gitstage.ShortBranch(p.Record.Branch), Clean: v.Clean(), Note: e.Scrub(v.Text())}
	for _, path := range res.Paths {
		a.Paths = append(a.Paths, string(path))
	}
	for _, rep := range v.Reports {
		sv := session.Verdict{Path: rep.Path, Clean: rep.Clean()}
		for _, f := range rep.Findings {
			sv.Findings = append(sv.Findings, fmt.Sprintf("%d:%d %s %s %s", f.Line, f.Col, f.Severity, f.Code, f.Message))
		}
		a.Verdicts = append(a.Verdicts, sv)
	}
	for _, h := range v.Hooks {
		a.Verdicts = append(a.Verdicts, session.Verdict{Hook: h.Name, Clean: !h.Failed()})
	}
	if noteErr != nil {
		a.Note += "\nthe verdict could not be recorded as a git note: " + e.Scrub(noteErr.Error())
	}
	out := session.ApplyResult{Applied: a}
	if run := p.Proposal.Set.Run; run != nil {
		out.Run = &session.RunRequested{Workflow: string(run.Workflow), Vars: run.Vars, MaxCostUSD: run.MaxCostUSD}
	}
	return out, nil
}

// Discard discards a pending proposal.
func (e *Engine) Discard(id string) error {
	p, err := flow.Load(flow.FromGit(e.Repo), id)
	if err != nil {
		return e.fail(err)
	}
	return e.fail(flow.Discard(flow.FromGit(e.Repo), p))
}

// Snapshot reads the project's facts: HEAD, the workflows of HEAD's tree
// (each checked on disk), the project file, and the registry.
func (e *Engine) Snapshot() (session.Snapshot, error) {
	r := e.Repo
	s := session.Snapshot{Root: filepath.Base(r.Root), Workflows: []session.File{}, Pending: []session.Fact{}, Applied: []session.Fact{}}
	base, err := r.OpenBase()
	if err != nil {
		return s, e.fail(err)
	}
	s.Branch = gitstage.ShortBranch(base.Head.Branch)
	if !base.Head.Unborn() {
		s.Head = base.Head.Commit.String()
	}
	files, err := headFiles(base)
	if err != nil {
		return s, e.fail(err)
	}
	var wfs []string
	hasProject := false
	for _, p := range files {
		switch {
		case p == "nika.yaml":
			hasProject = true
		case strings.HasSuffix(p, ".nika.yaml") && changeset.Classify(changeset.Path(p)) == changeset.Workflow:
			wfs = append(wfs, p)
		}
	}
	sort.Strings(wfs)
	s.WorkflowsTotal = len(wfs)
	if len(wfs) > session.MaxWorkflows {
		wfs, s.Truncated = wfs[:session.MaxWorkflows], true
	}
	check := wfs
	if hasProject {
		check = append([]string{"nika.yaml"}, wfs...)
	}
	for _, p := range check {
		f := e.checkOne(p)
		if p == "nika.yaml" {
			s.Project = &f
		} else {
			s.Workflows = append(s.Workflows, f)
		}
	}
	ls, err := flow.List(flow.FromGit(r), true)
	if err != nil {
		return s, e.fail(err)
	}
	var applied []flow.Listed
	for _, l := range ls {
		switch l.State {
		case flow.Applied:
			applied = append(applied, l)
		case flow.Discarded:
		default: // pending, as the check before asking finds it
			s.Pending = append(s.Pending, fact(l))
		}
	}
	sort.SliceStable(applied, func(i, j int) bool {
		if applied[i].Decided != applied[j].Decided {
			return applied[i].Decided > applied[j].Decided
		}
		return applied[i].ID < applied[j].ID
	})
	for i, l := range applied {
		if i >= e.MaxApplied {
			break
		}
		s.Applied = append(s.Applied, fact(l))
	}
	return s, nil
}

// MaxTreeFiles bounds the files of HEAD's tree a snapshot looks at.
const MaxTreeFiles = 200000

// headFiles lists the files of HEAD's tree (never the working tree).
func headFiles(base *gitstage.Base) ([]string, error) {
	var out []string
	var walk func(dir string) error
	walk = func(dir string) error {
		t, err := base.TreeAt(dir)
		if err != nil || t == nil {
			return err
		}
		for _, en := range t.Entries {
			if len(out) >= MaxTreeFiles {
				return nil
			}
			p := en.Name
			if dir != "" {
				p = dir + "/" + en.Name
			}
			switch en.Mode {
			case filemode.Dir:
				if err := walk(p); err != nil {
					return err
				}
			case filemode.Regular, filemode.Executable:
				out = append(out, p)
			}
		}
		return nil
	}
	return out, walk("")
}

func fact(l flow.Listed) session.Fact {
	return session.Fact{ID: l.ID, Goal: l.Goal, Branch: flow.BranchName(l.Branch), State: string(l.State), Commit: l.Landed}
}

func (e *Engine) checkOne(p string) session.File {
	f := session.File{Path: p, Codes: []string{}}
	data, err := e.read(p, 4<<20)
	if err != nil {
		f.Problem = err.Error()
		return f
	}
	rep := checker.CheckFS(flow.SnapshotFS(e.Repo, 4<<20), p, data)
	f.Clean = rep.Clean()
	f.Errors, f.Warnings, f.Codes = rep.Tally()
	sort.Strings(f.Codes)
	return f
}

// read reads a file beneath the root without following a symlink, at
// most max bytes.
func (e *Engine) read(p string, max int64) ([]byte, error) {
	root, err := safefs.Open(e.Repo.Root)
	if err != nil {
		return nil, session.Errorf(session.Io, "cannot open the project root")
	}
	defer root.Close()
	info, err := root.Lstat(p)
	switch {
	case err != nil && errors.Is(err, safefs.ErrSymlink):
		return nil, session.Errorf(session.NotAllowed, "%s is reached through a symlink; it is not read", p)
	case err != nil:
		return nil, session.Errorf(session.Io, "%s could not be read", p)
	case !info.Exists:
		// Not there is NotFound, at every door (flow.ReadDisk: nika check).
		return nil, session.Errorf(session.NotFound, "%s does not exist in the project", p)
	case info.Symlink:
		return nil, session.Errorf(session.NotAllowed, "%s is a symlink; it is not read", p)
	case !info.Regular:
		return nil, session.Errorf(session.NotAllowed, "%s is not a regular file", p)
	case info.Stat.Size > max:
		return nil, session.Errorf(session.NotAllowed, "%s is larger than %d bytes", p, max)
	}
	data, err := root.ReadFile(p)
	if err != nil {
		return nil, session.Errorf(session.Io, "%s could not be read", p)
	}
	return data, nil
}

// named checks that a path the human named is a workflow or the project
// file inside the root.
func named(p string) (string, error) {
	path, err := changeset.ParsePath(strings.TrimPrefix(p, "./"))
	if err != nil {
		return "", &session.Error{Class: session.NotAllowed, Text: err.Error()}
	}
	s := string(path)
	if !(strings.HasSuffix(s, ".nika.yaml") && changeset.Classify(path) == changeset.Workflow) && s != "nika.yaml" {
		return "", session.Errorf(session.NotAllowed, "%s is not a workflow (*.nika.yaml) or the project file (nika.yaml); only those are read", changeset.Quote(p))
	}
	return s, nil
}

// Check is the checker's report on a workflow or the project file on disk.
func (e *Engine) Check(name string) (string, error) {
	p, err := named(name)
	if err != nil {
		return "", err
	}
	data, err := e.read(p, 4<<20)
	if err != nil {
		return "", err
	}
	rep := checker.CheckFS(flow.SnapshotFS(e.Repo, 4<<20), p, data)
	var b strings.Builder
	if len(rep.Findings) == 0 {
		fmt.Fprintf(&b, "%s: clean\n", p)
	}
	for _, f := range rep.Findings {
		fmt.Fprintf(&b, "%s:%d:%d: %s %s: %s\n", p, f.Line, f.Col, f.Severity, f.Code, f.Message)
		if f.Fix != "" {
			fmt.Fprintf(&b, "  fix: %s\n", f.Fix)
		}
	}
	return b.String(), nil
}

// ReadNamed reads a workflow or the project file the human named, at most
// session.MaxFileBytes of it (the broker marks a longer file as cut).
// Audit judges a named file's bytes with the snapshot's files beside them.
func (e *Engine) Audit(p string, data []byte) checker.Report {
	return checker.CheckFS(flow.SnapshotFS(e.Repo, 4<<20), p, data)
}

func (e *Engine) ReadNamed(p string) ([]byte, error) {
	path, err := named(p)
	if err != nil {
		return nil, err
	}
	data, err := e.read(path, 4<<20)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// Lookup finds a proposal in the registry.
func (e *Engine) Lookup(id string) (string, string) {
	rec, err := e.Repo.Find(id)
	if err != nil {
		return "", ""
	}
	return rec.ID, string(rec.State)
}

// Adopt loads a pending proposal of the registry (staged before this
// session opened: a host that reconnected consents to it by its id) and
// checks it as the apply will before the human's answer is acted on.
//
// It runs the check before asking (flow.Ready), the one every door runs;
// the apply under its locks checks every witness again either way.
func (e *Engine) Adopt(id string) (session.Proposal, error) {
	r := flow.FromGit(e.Repo)
	p, err := flow.Load(r, id)
	if err != nil {
		return session.Proposal{}, e.fail(err)
	}
	if err := flow.Ready(r, p); err != nil {
		return session.Proposal{}, e.fail(err)
	}
	var b bytes.Buffer
	if err := preview.Human(&b, flow.PreviewInput(p), preview.Options{Color: e.Color}); err != nil {
		return session.Proposal{}, e.fail(err)
	}
	return session.Proposal{ID: p.Proposal.ID, Preview: b.String()}, nil
}

// AskGate records a gate in the registry and returns its state there.
func (e *Engine) AskGate(g session.GateAsk) (string, error) {
	rec, err := e.Repo.AskGate(g.ID.Trace, g.ID.Task, g.Question)
	if err != nil {
		return "", e.fail(err)
	}
	return rec.State, nil
}

// AnswerGate claims a waiting gate, once.
func (e *Engine) AnswerGate(id session.GateID) error {
	_, err := e.Repo.AnswerGate(id.Trace, id.Task)
	return e.fail(err)
}

// Gate reads a gate of the registry.
func (e *Engine) Gate(id session.GateID) (session.GateAsk, string) {
	rec, err := e.Repo.FindGate(id.Trace, id.Task)
	if err != nil {
		return session.GateAsk{}, ""
	}
	return session.GateAsk{ID: id, Question: rec.Question}, rec.State
}

// Gates lists the gates that wait.
func (e *Engine) Gates() ([]session.GateAsk, error) {
	recs, err := e.Repo.Gates()
	if err != nil {
		return nil, e.fail(err)
	}
	out := []session.GateAsk{}
	for _, rec := range recs {
		if rec.State == gitstage.GateWaiting {
			out = append(out, session.GateAsk{ID: session.GateID{Trace: rec.Trace, Task: rec.Task}, Question: rec.Question})
		}
	}
	return out, nil
}

// LastRun reads the latest trace under .nika/traces/: the journal whose
// name sorts last (spec 17 names them <ISO-compact>-<short-id>.ndjson, so
// the name orders them in time). It never follows a symlink.
func (e *Engine) LastRun() (*session.RunFacts, error) {
	root, err := safefs.Open(e.Repo.Root)
	if err != nil {
		return nil, session.Errorf(session.Io, "cannot open the project root")
	}
	defer root.Close()
	for _, d := range []string{".nika", session.TraceDir} {
		info, err := root.Lstat(d)
		switch {
		case err != nil && errors.Is(err, safefs.ErrSymlink), err == nil && info.Symlink:
			return nil, session.Errorf(session.NotAllowed, "%s is a symlink; traces are not read through one", d)
		case err != nil:
			return nil, session.Errorf(session.Io, "%s could not be read", d)
		case !info.Exists:
			return nil, nil
		case !info.Dir:
			return nil, session.Errorf(session.NotAllowed, "%s is not a directory", d)
		}
	}
	ents, err := os.ReadDir(filepath.Join(e.Repo.Root, filepath.FromSlash(session.TraceDir)))
	if err != nil {
		return nil, session.Errorf(session.Io, "%s could not be listed", session.TraceDir)
	}
	latest := ""
	for _, en := range ents {
		if en.Type().IsRegular() && strings.HasSuffix(en.Name(), ".ndjson") && en.Name() > latest {
			latest = en.Name()
		}
	}
	if latest == "" {
		return nil, nil
	}
	p := session.TraceDir + "/" + latest
	data, err := e.read(p, session.MaxTraceBytes)
	if err != nil {
		return nil, err
	}
	r := session.ParseTrace(p, data)
	return &r, nil
}
