package session

import (
	"context"

	"github.com/nika-dev/nika/checker"
)

// Engine is the project as the machine sees it. session/project implements
// it over flow and gitstage; tests use a fake. Every error it returns
// should be an *Error, so that the machine can pass its class on.
type Engine interface {
	// Propose stages text (a model's reply, a patch, a diff) as
	// `nika propose` would, with the format detected. run, when not nil,
	// is the human's run request, carried by the proposal (and so shown
	// in its preview and bound by its id).
	// allow are the supporting files the human allowed in this session
	// (/allow), paths or globs, beside the project's nika.allow.
	Propose(text string, run *RunRequested, allow []string) (Staged, error)
	// Apply applies a pending proposal, runs the post-apply check and
	// records its verdict. Only the machine's consent calls reach it.
	Apply(id string) (ApplyResult, error)
	// Discard discards a pending proposal.
	Discard(id string) error
	// Snapshot reads the project's facts.
	Snapshot() (Snapshot, error)
	// Check is the checker's report on a workflow or project file on disk,
	// as text for a human.
	Check(name string) (string, error)
	// Lookup finds a proposal in the registry by id or unique prefix and
	// returns its full id and state ("pending", "applied", "discarded",
	// "stale"); "" when none. A session that reopens (a host that
	// reconnected) learns from it what an earlier session decided.
	Lookup(id string) (full, state string)
	// ReadNamed reads a file the human named: only *.nika.yaml and
	// nika.yaml inside the root, bounded in size.
	ReadNamed(path string) ([]byte, error)
	// Audit is the checker's report on the bytes of a file the human
	// named, judged with the files beside it as the session's snapshot
	// holds them (skills, composed children), as every door judges.
	Audit(path string, data []byte) checker.Report
	// Adopt loads a pending proposal of the registry that this session
	// did not stage (a host that reconnected consents to it by its id),
	// checks it as the apply will, and renders its preview.
	Adopt(id string) (Proposal, error)
	// AskGate records in the registry that a run waits at a gate, and
	// returns the gate's state there: GateWaiting, or GateAnswered for a
	// gate answered before (which a repeated observation never re-arms).
	AskGate(g GateAsk) (string, error)
	// AnswerGate claims a waiting gate for the human's answer, once; a
	// second claim, by any process, is AlreadyConsumed.
	AnswerGate(id GateID) error
	// Gate reads a gate of the registry: its ask and state ("" when the
	// registry never saw it).
	Gate(id GateID) (GateAsk, string)
	// Gates lists the gates of the registry that wait for an answer.
	Gates() ([]GateAsk, error)
	// LastRun reads the latest trace under .nika/traces/; nil when no run
	// left one.
	LastRun() (*RunFacts, error)
}

// Gate states in the registry.
const (
	GateWaiting  = "waiting"
	GateAnswered = "answered"
)

// Staged is what Propose made.
type Staged struct {
	// ID is the proposal id; empty when the text proposed nothing.
	ID      string
	Preview string
	// State is the registry's state of that id: "pending" for a new
	// proposal, or "applied", "discarded", "stale" for an id decided
	// before (the same bytes proposed again).
	State string
	// Nothing says why nothing was proposed, when ID is empty.
	Nothing string
}

// ApplyResult is an apply and its post-apply check.
type ApplyResult struct {
	Applied Applied
	// Run is the run the proposal requested, if any.
	Run *RunRequested
}

// Reasoner is a model. It receives the bundle (and only that) and returns
// its reply as text. It has no tool: nothing it returns is acted on
// except as a proposal staged for the human to read.
type Reasoner interface {
	// Where names, for the human, where the data goes ("the program llm
	// on this machine", "https://api.example.com").
	Where() string
	Reason(ctx context.Context, b Bundle) (string, error)
}

// Trace is what a run reported when it stopped: its trace id, and on a
// pause (exit code 4) the task that waits for a human and its question.
type Trace struct {
	ID       string `json:"trace"`
	Task     string `json:"task"`
	Question string `json:"question"`
}

// FeedbackSource is an Engine that also keeps the human's feedback on
// earlier proposals: comments from a review, and what became of each
// (applied whole, in part, discarded). session/project implements it; the
// machine sends each feedback to the model once, in the next bundle.
type FeedbackSource interface {
	Feedback() []Feedback
}

// Feedback is the human's word on one proposal, as text for the model.
type Feedback struct {
	ID   string
	Text string
}
