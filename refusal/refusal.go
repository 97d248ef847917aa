package refusal

import (
	"errors"
	"fmt"
)

// Class is the refusal class a host acts on. The set is closed; Code maps
// each class to one exit code (see docs/exit-codes.md).
type Class string

const (
	// Invalid: the input is malformed (a parse error, a bad path form).
	Invalid Class = "Invalid"
	// NotAllowed: the input is well formed but policy forbids it.
	NotAllowed Class = "NotAllowed"
	// Dirty: a target differs from HEAD on disk or in the index.
	Dirty Class = "Dirty"
	// Unsupported: a target git state nika will not handle (filters,
	// submodules, symlinks, split indexes).
	Unsupported Class = "Unsupported"
	// StaleRevision: HEAD or a witnessed byte moved since the preview.
	StaleRevision Class = "StaleRevision"
	// AlreadyConsumed: the proposal was already applied or discarded.
	AlreadyConsumed Class = "AlreadyConsumed"
	// NotFound: no proposal (or object) answers the given name.
	NotFound Class = "NotFound"
	// Ambiguous: a prefix names more than one proposal.
	Ambiguous Class = "Ambiguous"
	// NoConsent: consent could not be asked (no terminal) or was declined.
	NoConsent Class = "NoConsent"
	// Locked: a git lock is held by another process.
	Locked Class = "Locked"
	// TooLarge: an input exceeds its limit.
	TooLarge Class = "TooLarge"
	// Io: the operating system refused a read or write.
	Io Class = "Io"
	// RollbackIncomplete: an apply failed and could not restore every file.
	RollbackIncomplete Class = "RollbackIncomplete"
	// SigningFailed: git's configuration asks for signed commits
	// (commit.gpgsign, or nika.sign), and the signing program failed: no
	// key, no agent, a wrong passphrase, the program missing. Nothing was
	// applied, as git commit writes nothing when its signer fails.
	SigningFailed Class = "SigningFailed"
	// Internal: a bug or an unexpected repository state.
	Internal Class = "Internal"
)

// The classes of the session (the terminal session, nika serve --stdio):
// what a host acts on when a turn or an answer cannot be carried out. They
// share the table with every other class, so that a host tells Dirty from
// Invalid from WrongState by one name and one code.
const (
	// NoIntelligence: the turn needed a model, and none is chosen (or the
	// chosen one cannot be served on this machine).
	NoIntelligence Class = "NoIntelligence"
	// IntelligenceRefused: the model or its endpoint refused, or answered
	// nothing usable.
	IntelligenceRefused Class = "IntelligenceRefused"
	// WrongState: nothing waits for this call (no proposal, no gate).
	WrongState Class = "WrongState"
	// EmptyAnswer: an empty answer decides nothing; what waits still waits.
	EmptyAnswer Class = "EmptyAnswer"
)

// Error is a refusal: a class for the host, a lowercase text for the human
// that says what was refused and why, and a hint that says the fix.
//
// Text and Hint are a library's words and name no door's commands or
// flags. Where the fix is something the human does through a door
// (rebuild the preview, allow a file, raise a limit), Fix names it and
// Subject says what it applies to (a proposal id, a path, a limit); each
// door words the fix in its own terms (see Fix).
type Error struct {
	Class   Class
	Text    string
	Hint    string
	Fix     Fix    // a door-worded remedy, or "" for none
	Subject string // what Fix applies to: an id, a path, a limit
	Err     error  // an underlying cause, if any
}

func (e *Error) Error() string {
	s := e.Text
	if e.Hint != "" {
		s += " · " + e.Hint
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// WithFix sets the door-worded remedy and what it applies to, and returns e.
func (e *Error) WithFix(f Fix, subject string) *Error {
	e.Fix, e.Subject = f, subject
	return e
}

// New builds a refusal with a formatted text.
func New(class Class, hint, format string, args ...any) *Error {
	return &Error{Class: class, Text: fmt.Sprintf(format, args...), Hint: hint}
}

// ClassOf returns the class of err, or Internal when err carries none.
func ClassOf(err error) Class {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return Internal
}
