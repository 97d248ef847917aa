// Package protocol is `nika serve --stdio`: the session machine over a
// JSON-lines protocol (docs/protocol.md), so that an editor or another
// host can drive the same machine as the terminal session. A host that speaks the protocol
// for a human is a door: the consent and gate answers it sends must be
// lines its human typed, never a model's output.
//
// The protocol is exactly as strict as its document: one object per line,
// the fields of each call and nothing else (names match exactly, case
// included), an empty line refused, a line over MaxRequest refused as
// TooLarge and skipped (the session goes on), and every refusal classed
// from the one table of package refusal. doc_test.go holds the
// document to these tables and to the typed lines (lines.go), both ways.
//
// The CLI (cmd/nika/serve.go) opens the project and its session engine
// and calls Serve. The lines are typed structs: Hello, Result and its
// Outcomes; a host's line is a Request. Carry and Where are shared with the
// terminal session (cmd/nika/session.go), the session's other door.
package protocol
