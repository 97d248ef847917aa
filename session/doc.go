// Package session is the machine behind the nika session: the
// conversation in which a human asks questions, a model (or nobody)
// answers, proposals are staged, and the human consents.
//
// # Why a machine of its own
//
// The session is where the model and the human share one screen, so it is
// where law 5 ("consent is the human's") is easiest to break by accident.
// The machine makes the rule structural rather than a matter of care:
//
//   - Consent has its own calls (Consent, ConsentTo), which only a door
//     calls with what the human typed. A model's reply only ever goes
//     through Turn, which can stage a proposal but never apply one; the
//     Reasoner interface has no tool that applies, and a reply that says
//     "yes" is text.
//   - Every proposal and every gate has an identity, and each is decided
//     once, for the session's whole life and across reconnects: the
//     registry under .git/nika/ remembers proposals and gates alike. A
//     consent that names an identity which is not the one waiting is
//     StaleRevision; a second consent or answer is AlreadyConsumed, and a
//     repeated observation of an answered gate arms nothing; nothing
//     waits is WrongState. A door that reconnects and repeats itself
//     therefore cannot cause a second effect, and a proposal or gate that
//     waits in the registry is decided by its id in the new session.
//   - Refusals carry the one table's classes (package refusal) and their
//     Fix as data; the session's doors word it in the session's own terms
//     (/allow, never a CLI flag: package doorwords).
//   - The machine does no I/O. It reaches the project only through the
//     Engine interface and the model only through the Reasoner interface,
//     so every transition is tested with fakes, exhaustively.
//
// The doors (the terminal session and `nika serve --stdio` in cmd/nika)
// read lines and print outcomes; session/project implements Engine over
// flow and gitstage; session/reasoner holds the reasoners; the context
// broker (Bundle) with its redaction (a maintained secret detector and
// nika's structural rule, redact.go) and the hallucination guard (Guard)
// live here because they decide what the model sees and what the human is
// told about it. Facts that need no model (the builtins and providers
// catalogs, the last run read from its trace) are answered here too.
package session
