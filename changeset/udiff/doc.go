// Package udiff reads unified diffs, as `git diff`, `git format-patch` and
// `diff -u` write them, into a changeset.Draft.
//
// Why a diff parser of our own: a model (or a human) often proposes a change
// as a diff, and nika must turn it into exact bytes before anyone consents.
// `git apply` would write to the working tree; nika instead keeps every hunk
// as a pure Edit that changeset.Resolve applies in memory to the base bytes.
// The preview then shows the result, and the apply copies those bytes: the
// diff is never re-run.
//
// # git apply is the reference
//
// A diff means what git apply makes of it, and nika reads it the same way:
// where git applies a diff, nika reaches git's tree byte for byte, and where
// git refuses, nika refuses. The differences are few, deliberate, and listed
// in one table, docs/strictness.md, that the differential test in flow reads
// (it runs git apply and nika on a corpus and on this repository's history).
//
// What a file section becomes:
//
//   - a new file (new file mode, or --- /dev/null, or a diff -u side dated at
//     the epoch) is an OpAdd whose Content is built from its hunks;
//   - a deleted file (deleted file mode, or +++ /dev/null, or the epoch) is
//     an OpDelete. Its Edit witnesses what the diff removes: Apply refuses
//     unless the base bytes are exactly the removed lines, or, for a
//     deletion without hunks, the blob of the index line (git diff -D), or
//     else an empty file. It returns nil bytes: the file's absence;
//   - a rename (rename from/rename to) is an OpMove, a copy (copy from/copy
//     to) an OpCopy, each with an Edit when it also has hunks; a copy starts
//     from its source's base bytes, whatever other sections do to it;
//   - a diff -u section whose one hunk only adds lines, with no word on
//     whether the file is new, is an OpWrite with an Edit: git creates the
//     file when it is missing and applies the hunk otherwise, so @@ -0,0
//     fills an empty file and refuses one with content;
//   - anything else with hunks is an OpEdit.
//
// Several sections for one file are sections of one change, applied in turn
// (changeset.Resolve folds them).
//
// # Where a hunk applies
//
// As in git apply, with no fuzz: a hunk's old lines (context and removed)
// must appear in the file exactly, on lines that no earlier hunk of the file
// changed (its context included). A hunk at line 1, or at line 0, must match
// the start of the file; a hunk with no context after its changes must
// match its end. The search starts at the line the hunk's header states, in
// the file as the hunks before it left it; there, it applies. Elsewhere,
// git takes the nearest match; nika takes a match only when it is the only
// one, and otherwise refuses, naming every candidate line. Hunks may come
// in any order. A hunk that only adds lines goes where its header says.
//
// A diff in which no hunk has a context line (git diff -U0, diff -U0) is
// read as git apply --unidiff-zero reads it: its hunks are not pinned to
// the start or the end for lacking context. Models also write hunks without
// line numbers ("@@ ... @@", "@@"): such a hunk runs to the next hunk or
// section, and is placed by its text alone, at the one place it matches (or
// the one after the hunk before it), or refused naming every place.
//
// Bytes are kept as they are: a "\r" before a line's "\n" is part of the
// line, so CRLF files round-trip, and a "\ No newline at end of file" marker
// removes the "\n" of the line before it. A result that would join such a
// line to the next one is refused. Header lines (diff --git, ---, +++,
// rename ...) ignore a trailing "\r". A last input line without a "\n" is
// read as if it had one.
//
// # Names
//
// git's headers name a/ and b/ paths, which lose their first component (git
// apply -p1); a `diff --git x x` header without prefixes (--no-prefix)
// keeps them. C-style quoted names ("a\tb", "\303\274") are decoded. In
// diff -u output a name ends at its timestamp (after a tab, or after the
// spaces a mail program made of it; a zone with or without a colon), or
// else at a tab; a side dated at the Unix epoch in its own zone (1970-01-01
// 09:00:00 +0900, 1969-12-31 16:00:00 -0800) is absent; the --- and +++
// names name one file (the shorter when the other only adds to it:
// f.txt.orig). Names lose their first directory when the two sides'
// differ (a/ and b/, old/ and new/), and keep it when they agree (src/a.go
// on both sides) or when a name without a slash showed that the diff has
// no prefixes.
//
// Text outside file sections is prose and ignored, as git apply ignores it
// (commit messages, a mail's signature). An input without any file section
// (an empty diff, git format-patch of an empty commit) is refused: git
// apply refuses it too. A hunk that appears with no file header, a hunk
// that is shorter or longer than its header counts, a hunk of context only
// and a malformed header are refused as Invalid. Binary patches, mode
// changes, combined (merge) diffs and files with a mode other than 100644
// are refused as Unsupported: the diff is well formed, but nika does not
// carry such changes, and dropping them silently would make the preview
// lie. Every refusal names the line of the diff ("diff line N: ...").
package udiff
