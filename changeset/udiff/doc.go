// Package udiff reads unified diffs, as `git diff` and `diff -u` write them,
// into a changeset.Draft.
//
// Why a diff parser of our own: a model (or a human) often proposes a change
// as a diff, and nika must turn it into exact bytes before anyone consents.
// `git apply` would write to the working tree; nika instead keeps every hunk
// as a pure Edit that changeset.Resolve applies in memory to the base bytes.
// The preview then shows the result, and the apply copies those bytes: the
// diff is never re-run.
//
// What a file section becomes:
//
//   - a new file (new file mode, or --- /dev/null) is an OpAdd whose Content
//     is built from its hunks at parse time;
//   - a deleted file (deleted file mode, or +++ /dev/null) is an OpDelete.
//     Its Edit witnesses what the diff claims to remove: Apply refuses
//     unless the base bytes are exactly the removed lines (or, for a
//     deletion without hunks, unless the base's git blob id starts with the
//     old id of the index line). It returns nil bytes: the file's absence;
//   - a rename (rename from/rename to) is an OpMove, with an Edit when it
//     also has hunks;
//   - anything else with hunks is an OpEdit.
//
// Hunks are applied like `git apply` does, with deliberate leniencies and
// no fuzz. A hunk's old lines (context and removed) must appear in the base
// exactly. If they are at the line the hunk header states, that is where it
// applies; if not, and they appear at exactly one other place after the
// previous hunk, it applies there (a model miscounts lines, but it copies
// text well); if they appear at several places, or nowhere, the edit is
// refused with the hunk's line in the diff. Hunks apply in order and never
// overlap. Unlike git apply, a hunk that states line 1, or that has no
// trailing context, is not pinned to the start or the end of the file:
// models write such hunks for the middle of a file, and the stated line
// still wins whenever it matches. Only a hunk whose last line has no
// newline must match at the end of the file. A hunk without old lines (a
// pure insertion, as -U0 writes it) applies exactly where its header says.
//
// Bytes are kept as they are: a "\r" before a line's "\n" is part of the
// line, so CRLF files round-trip, and a "\ No newline at end of file" marker
// removes the "\n" of the line before it. Header lines (diff --git, ---,
// +++, rename ...) ignore a trailing "\r". A last input line without a
// "\n" is read as if it had one.
//
// Paths: git's headers name a/ and b/ paths, which lose their first
// component (like git apply -p1); a `diff --git x x` header without
// prefixes (--no-prefix) keeps them. C-style quoted names ("a\tb",
// "\303\274") are decoded. Names in `diff -u` output end at a tab (the
// timestamp). For `diff -u`, a/ and b/ prefixes are dropped, and so is a
// differing first directory when the rest of both names agree (diff -ru
// old new); otherwise the +++ name is the path. A `diff -N` side dated at
// the epoch is read as absent.
//
// Text outside file sections is prose and ignored, as git apply ignores it
// (commit messages, a mail's signature). A hunk that appears with no file
// header, a hunk that is shorter or longer than its header counts, and a
// malformed header are refused as Invalid. Binary patches, mode changes,
// copies, combined (merge) diffs and new files with a mode other than
// 100644 are refused as Unsupported: the diff is well formed, but nika does
// not carry such changes, and dropping them silently would make the preview
// lie. Every refusal names the line of the diff ("diff line N: ...").
package udiff
