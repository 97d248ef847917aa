// Package hunks is what a human can take or leave inside one file: the
// numbered hunks of each change, and the bytes a selection of them makes.
//
// A proposal is consented whole, by its id; a human who wants only part of
// it gets a derived proposal that holds only that part, with its own id,
// commit and preview (law 5: a consent answers exactly one proposal). This
// package computes that part as a pure function of the base bytes and the
// chosen hunks: it never re-runs a patch against the disk, and it never
// reads anything but the bytes it is handed (law 1: the derived proposal's
// bytes are what its preview shows and what its apply writes).
//
// The hunks are the preview's: the same line diff (Myers, via go-udiff)
// with git's three lines of context, proven by replaying it over the
// before-bytes, so that hunk 2 of a.go is the block the preview labels
// "hunk a.go:2". An update has one hunk per @@ block; a creation, a
// deletion, a move, or an update that changes only the mode is one hunk
// (it cannot be split). An update's mode change rides with its hunks: it is
// kept when any of them is.
//
// Hunks of one diff never overlap, context included (go-udiff merges hunks
// whose context would touch), so any subset of them applies on its own
// to the before-bytes, and gives the bytes `git apply` of those hunks alone
// gives (hunks_git_test.go proves it against the real git).
package hunks
