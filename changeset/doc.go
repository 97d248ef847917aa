// Package changeset is the typed heart of nika: what a proposal says it will
// do to a project, independent of how it was written (a model's fenced reply,
// an apply_patch payload, a unified diff) and of how it is stored (git).
//
// A parser turns text into a Draft: a list of intents that name paths and
// carry the bytes the model wrote, with no knowledge of the repository. The
// resolver then reads the base (HEAD) through the Base interface, applies the
// path policy, witnesses the bytes it was built over with blake3, and yields a
// Set: the exact before and after of every file. Nothing downstream ever sees
// the model's text again; the preview, the staged commit and the apply are all
// built from the Set's bytes. That is how nika keeps "preview == apply ==
// commit" true by construction.
//
// Every path reaches the resolver through one rule, ParsePath, and every
// comparison of names through FoldName: the name a case-insensitive,
// normalizing filesystem sees (full Unicode case folding, NFC, the
// invisible code points, NTFS's trailing dots, spaces and streams), so
// that no spelling of .git, of the hooks or of a tracked path slips past.
//
// This package never touches git or writes a file. It imports no git library;
// gitstage implements Base.
package changeset
