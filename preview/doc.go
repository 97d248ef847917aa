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
package preview
