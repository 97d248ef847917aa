package session

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nika-dev/nika/redact"
	"github.com/nika-dev/nika/refusal"
)

// Class is the refusal class of the session: the one table of package
// refusal, shared with the CLI, so that a host can tell Dirty, Invalid and
// NotFound apart as a script of the CLI does, and read the same exit code.
type Class = refusal.Class

// The classes the session itself gives; every other class of package
// refusal passes through from the rooms unchanged.
const (
	NoIntelligence      = refusal.NoIntelligence
	IntelligenceRefused = refusal.IntelligenceRefused
	NotAllowed          = refusal.NotAllowed
	Invalid             = refusal.Invalid
	WrongState          = refusal.WrongState
	StaleRevision       = refusal.StaleRevision
	AlreadyConsumed     = refusal.AlreadyConsumed
	NotFound            = refusal.NotFound
	EmptyAnswer         = refusal.EmptyAnswer
	TooLarge            = refusal.TooLarge
	Io                  = refusal.Io
	Internal            = refusal.Internal
)

// Error is a typed failure returned by an Engine or a Reasoner: a
// refusal.Error, so that its class, hint and Fix reach the door intact.
type Error = refusal.Error

// Errorf builds an *Error with no hint.
func Errorf(class Class, format string, args ...any) *Error {
	return &Error{Class: class, Text: fmt.Sprintf(format, args...)}
}

// ClassOf is the class of err; an untyped error is Internal.
func ClassOf(err error) Class { return refusal.ClassOf(err) }

// Outcome is what a call produced. A call returns one or more, in order.
type Outcome interface{ Kind() string }

// Answer is text for the human: a model's reply (with the guard's
// corrections under it) or a fact.
type Answer struct {
	Text        string       `json:"text"`
	Corrections []Correction `json:"corrections,omitempty"`
	// Redacted lists each secret removed from what the model was sent
	// for this answer: where, its line and its kind, never its value.
	Redacted []redact.Redaction `json:"redacted,omitempty"`
}

// Proposal is a staged proposal waiting for the human's consent.
type Proposal struct {
	ID      string `json:"id"`
	Preview string `json:"preview"`
	// Allowed are the supporting files the human allowed in this
	// session (/allow) when it was staged; the preview says so too.
	Allowed []string `json:"allowed,omitempty"`
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
// that says what was refused and why, with the door-neutral hint, and,
// where the fix is something the human does through the door, the Fix and
// what it applies to (Subject). The door words the Fix in its own terms
// (its commands, never a CLI flag) and adds it to the text.
type Refusal struct {
	Class   Class       `json:"class"`
	Text    string      `json:"text"`
	Fix     refusal.Fix `json:"fix,omitempty"`
	Subject string      `json:"-"`
}

// Refused is a refusal of the rooms as an outcome: its class, its text
// with its hint, and its Fix, unchanged, for the door to word.
func Refused(err error) Refusal {
	var e *refusal.Error
	if !errors.As(err, &e) {
		return Refusal{Class: ClassOf(err), Text: err.Error()}
	}
	text := e.Text
	if e.Hint != "" && !strings.Contains(text, e.Hint) {
		text += " · " + e.Hint
	}
	return Refusal{Class: e.Class, Text: text, Fix: e.Fix, Subject: e.Subject}
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
