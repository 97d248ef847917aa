// Package preview renders a staged proposal three ways: the canonical
// manifest (whose blake3 is the proposal id), the human text a person reads
// before saying yes, and JSON for hosts.
//
// Every rendering is a pure function of the proposal (and, for the human
// text and JSON, the checker's audit of the same bytes): the same proposal
// always renders the same bytes, on any machine. That is what lets `nika show`
// repeat a preview exactly, lets `nika apply` show the very bytes it will
// write, and lets `nika verify` re-derive the id from git objects alone. The
// package does no I/O beyond the writer it is given and never imports git.
//
// The human text (Human) is what a person consents to. It reads like `git
// show`: a header (proposal id, commit, base and branch, goal, run request),
// one row per change with its blob and witness before and after, then a
// git-style diff of every change, creates and deletes in full. No byte of
// proposed content reaches the terminal raw: control characters (an escape
// sequence, a carriage return), invalid UTF-8 and invisible format
// characters (bidi overrides, zero-width, tags) are shown escaped, and each
// line that holds one is flagged. Color is the caller's choice (Options).
//
// The JSON (JSON) carries the same identity without any file bytes; its
// shape is documented in JSON.md.
//
// Both refuse, writing nothing, to render a proposal whose parts disagree
// (ErrInconsistent): an id that is not the blake3 of the manifest, a
// witness that is not the blake3 of its bytes, a change without the sides
// its kind needs, or a diff that would not reproduce the proposed bytes.
package preview
