// Package flow is the library behind nika's doors: propose, show, apply,
// discard and list, each composed from the rooms (changeset parses and
// resolves, gitstage stages and records, preview renders, consent decides
// and applies). A door (the CLI, the session, the stdio protocol) reads
// input and prints output; everything a library user would need is here,
// so that every door gives the same answers.
package flow
