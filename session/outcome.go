package session

import (
	"errors"
	"fmt"
)

// Class is the refusal class of the session. A host acts on it.
type Class string

const (
	// NoIntelligence: the session has no model, and the turn needed one.
	NoIntelligence Class = "NoIntelligence"
	// IntelligenceRefused: the model could not be reached or refused.
	IntelligenceRefused Class = "IntelligenceRefused"
	// NotAllowed: the project or policy refused what was asked.
	NotAllowed Class = "NotAllowed"
	// WrongState: nothing waits for this call.
	WrongState Class = "WrongState"
	// StaleRevision: the call names an identity, and another one waits (or
	// the project moved since the preview). Nothing was applied.
	StaleRevision Class = "StaleRevision"
	// AlreadyConsumed: that identity was already decided.
	AlreadyConsumed Class = "AlreadyConsumed"
	// EmptyAnswer: an empty line answers nothing.
	EmptyAnswer Class = "EmptyAnswer"
	// Io: the system refused a read or a write.
	Io Class = "Io"
)

// Classes lists every refusal class, for documentation and tests.
var Classes = []Class{NoIntelligence, IntelligenceRefused, NotAllowed, WrongState, StaleRevision, AlreadyConsumed, EmptyAnswer, Io}

// Error is a typed failure returned by an Engine or a Reasoner.
type Error struct {
	Class Class
	Text  string
}

func (e *Error) Error() string { return e.Text }

// Errorf builds an *Error.
func Errorf(class Class, format string, args ...any) *Error {
	return &Error{Class: class, Text: fmt.Sprintf(format, args...)}
}

// ClassOf is the class of err; an untyped error is NotAllowed.
func ClassOf(err error) Class {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return NotAllowed
}

// Outcome is what a call produced. A call returns one or more, in order.
type Outcome interface{ Kind() string }

// Answer is text for the human: a model's reply (with the guard's
// corrections under it) or a fact.
type Answer struct {
	Text        string       `json:"text"`
	Corrections []Correction `json:"corrections,omitempty"`
	// Redacted lists the kinds of secrets removed from what the model was
	// sent for this answer.
	Redacted []string `json:"redacted,omitempty"`
}

// Proposal is a staged proposal waiting for the human's consent.
type Proposal struct {
	ID      string `json:"id"`
	Preview string `json:"preview"`
}

// Discarded says a pending proposal was discarded: declined, replaced by
// a new proposal, or discarded by a question.
type Discarded struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Applied says a proposal was applied, with the post-apply check.
type Applied struct {
	ID       string    `json:"id"`
	Commit   string    `json:"commit"`
	Branch   string    `json:"branch"`
	Paths    []string  `json:"paths"`
	Clean    bool      `json:"clean"`
	Verdicts []Verdict `json:"verdicts"`
	// Note is the verdict's text as recorded in the git note.
	Note string `json:"note"`
}

// Verdict is the post-apply check of one file, or one hook's result.
type Verdict struct {
	Path     string   `json:"path,omitempty"`
	Hook     string   `json:"hook,omitempty"`
	Clean    bool     `json:"clean"`
	Findings []string `json:"findings,omitempty"`
}

// RunRequested is a run the applied proposal asked for. It is only
// produced after a clean on-disk check; the door carries it out.
type RunRequested struct {
	ProposalID string            `json:"proposal_id"`
	Workflow   string            `json:"workflow"`
	Vars       map[string]string `json:"vars"`
	MaxCostUSD float64           `json:"max_cost_usd"`
}

// GateID names a human gate of a run: the run's trace and the task.
type GateID struct {
	Trace string `json:"trace"`
	Task  string `json:"task"`
}

func (g GateID) String() string { return g.Trace + "/" + g.Task }

// GateAsk is a run paused on a human gate (nika:prompt), waiting for the
// human's answer.
type GateAsk struct {
	ID       GateID `json:"id"`
	Question string `json:"question"`
}

// ResumeRequested is the human's answer to a gate: data that the door
// executes as the resume of the run.
type ResumeRequested struct {
	ID     GateID `json:"id"`
	Answer string `json:"answer"`
}

// AskIntelligence asks the door to ask the human which intelligence to
// use (the /intelligence command).
type AskIntelligence struct{}

// Refusal is a typed refusal: a class for the host, a text for the human
// that says what was refused, why, and the fix.
type Refusal struct {
	Class Class  `json:"class"`
	Text  string `json:"text"`
}

func (Answer) Kind() string          { return "answer" }
func (Proposal) Kind() string        { return "proposal" }
func (Discarded) Kind() string       { return "discarded" }
func (Applied) Kind() string         { return "applied" }
func (RunRequested) Kind() string    { return "run_requested" }
func (GateAsk) Kind() string         { return "gate_ask" }
func (ResumeRequested) Kind() string { return "resume_requested" }
func (AskIntelligence) Kind() string { return "ask_intelligence" }
func (Refusal) Kind() string         { return "refusal" }

func refuse(c Class, format string, args ...any) []Outcome {
	return []Outcome{Refusal{Class: c, Text: fmt.Sprintf(format, args...)}}
}
