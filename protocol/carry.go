package protocol

import (
	"fmt"
	"io"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/intelligence"
	"github.com/nika-dev/nika/session/project"
)

// The session's doors (this protocol, and the terminal session in
// cmd/nika) share what the machine leaves to a door: carrying out a run or
// a resume it asked for, and saying where a question's data goes.

// Run is what a door did with a run or resume request: the `run` outcome.
type Run struct {
	Status  string `json:"status"` // "ran" or "not configured"
	Exit    int    `json:"exit"`
	Command string `json:"command,omitempty"` // the command to run by hand
}

func (Run) Kind() string { return "run" }

// Carry carries out a RunRequested or a ResumeRequested through flow, the
// way nika apply carries out a proposal's run request (the project's
// nika.runner and nika.resume templates), then tells the machine how the
// run ended. The runner's standard output is copied to echo (nil: kept
// from the output) and read for a paused frame; its errors go to errw.
// Any other outcome carries nothing.
func Carry(r *flow.Repo, eng *project.Engine, m *session.Machine, req session.Outcome, echo, errw io.Writer) []session.Outcome {
	var rr *flow.RunResult
	var command string // what the human runs when no runner is configured
	switch v := req.(type) {
	case session.RunRequested:
		run := flow.RunSpec{Workflow: v.Workflow, Vars: v.Vars, MaxCostUSD: v.MaxCostUSD}
		rr, command = flow.CarryRun(r, run, true, flow.RunIO{Echo: echo, Err: errw}), doorwords.SuggestedRun(run)
	case session.ResumeRequested:
		res := flow.ResumeSpec{Trace: v.ID.Trace, Task: v.ID.Task, Answer: v.Answer}
		rr, command = flow.CarryResume(r, res, flow.RunIO{Echo: echo, Err: errw}), doorwords.SuggestedResume(res)
	default:
		return nil
	}
	switch rr.Status {
	case flow.NotConfigured:
		return []session.Outcome{Run{Status: string(flow.NotConfigured), Command: command}}
	case flow.NotStarted:
		return []session.Outcome{session.Refusal{Class: session.Io, Text: eng.ScrubProgram(fmt.Sprintf("the runner %s could not start: %v · check git config nika.runner", rr.Argv[0], rr.Err))}}
	}
	return append([]session.Outcome{Run{Status: string(flow.Ran), Exit: rr.Exit}}, m.ObserveRun(rr.Exit, session.ParseRunOutput(rr.Output))...)
}

// Where says in plain words where the data of a question goes: the
// choice's origin, or nowhere when no reasoner serves it.
func Where(c intelligence.Choice, r session.Reasoner) string {
	if r == nil {
		return intelligence.Where(intelligence.Choice{Kind: intelligence.None})
	}
	return intelligence.Where(c)
}
