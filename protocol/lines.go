package protocol

import (
	"bytes"
	"encoding/json"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/intelligence"
)

// The lines nika writes, one typed struct each. docs/protocol.md documents
// every field, and doc_test.go derives the fields from these types and
// holds the document to them, both ways. Fields may be added, never
// renamed or removed.

// Version is the version of the protocol in the hello line.
const Version = 2

// Hello is the first line: the project as the session found it, and what
// the host needs to know before the first request.
type Hello struct {
	Type         string              `json:"type"` // "hello"
	Protocol     int                 `json:"protocol"`
	Limits       Limits              `json:"limits"`
	Snapshot     session.Snapshot    `json:"snapshot"`
	Gates        []session.GateAsk   `json:"gates"`
	Intelligence Intelligence        `json:"intelligence"`
	Census       intelligence.Census `json:"census"`
	// Refusal says why the kept intelligence cannot be served here (the
	// session then runs with none).
	Refusal *Outcome `json:"refusal,omitempty"`
}

// Limits are the protocol's bounds.
type Limits struct {
	LineBytes int `json:"line_bytes"` // the longest request line, its newline excluded
}

// Intelligence is the kept choice of intelligence, and where a question's
// data goes with it.
type Intelligence struct {
	Kind  string `json:"kind"`
	Kept  bool   `json:"kept"`
	Where string `json:"where"`
}

// Result answers one request, in order.
type Result struct {
	Type     string          `json:"type"`          // "result"
	Seq      json.RawMessage `json:"seq,omitempty"` // the request's seq, when it had one
	Call     string          `json:"call"`
	Outcomes []Outcome       `json:"outcomes"`
}

// Outcome is one outcome as a line holds it: an object with its type (the
// outcome's Kind) and then the fields of the outcome's struct. The machine's
// refusal is written as this protocol's Refusal.
type Outcome struct{ session.Outcome }

// Outcomes are the outcomes a result can hold, one of each type:
// docs/protocol.md lists the same, field for field.
var Outcomes = []session.Outcome{
	session.Answer{}, session.Proposal{}, session.Discarded{}, session.Applied{}, session.RunRequested{},
	Run{}, session.GateAsk{}, session.ResumeRequested{}, session.AskIntelligence{}, Snapshot{},
	Gates{}, session.Builtins{}, session.Providers{}, session.LastRun{}, Refusal{},
}

// MarshalJSON writes {"type": KIND, then the outcome's fields}.
func (o Outcome) MarshalJSON() ([]byte, error) {
	v := o.Outcome
	if r, ok := v.(session.Refusal); ok {
		v = refusalOf(r)
	}
	fields, err := marshal(v)
	if err != nil {
		return nil, err
	}
	kind, err := marshal(v.Kind())
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"type":`), kind...)
	if inner := bytes.TrimSpace(fields[1 : len(fields)-1]); len(inner) > 0 {
		out = append(append(out, ','), inner...)
	}
	return append(out, '}'), nil
}

// Refusal is a refusal as the protocol writes it: the class, the text in
// the session's words (the library's text and hint, then the fix worded by
// doorwords.Session), the fix's name for a host that words it itself, and
// the class's exit code in the one table.
type Refusal struct {
	Class refusal.Class `json:"class"`
	Text  string        `json:"text"`
	Fix   refusal.Fix   `json:"fix,omitempty"`
	Exit  int           `json:"exit"`
}

func (Refusal) Kind() string { return "refusal" }

func refusalOf(r session.Refusal) Refusal {
	return Refusal{Class: r.Class, Text: doorwords.SessionText(r), Fix: r.Fix, Exit: refusal.Code(r.Class)}
}

// Snapshot is the project's facts now: the `snapshot` outcome.
type Snapshot struct {
	Snapshot session.Snapshot `json:"snapshot"`
}

func (Snapshot) Kind() string { return "snapshot" }

// Gates are the gates that wait for an answer: the `gates` outcome.
type Gates struct {
	Gates []session.GateAsk `json:"gates"`
}

func (Gates) Kind() string { return "gates" }

// marshal is JSON with no HTML escapes, as every line is written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
