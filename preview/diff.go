package preview

import (
	"github.com/nika-dev/nika/changeset/hunks"
)

// The diff a preview shows is the hunks package's: the same blocks that
// the hunk selection numbers, so that "hunk a.go:2" in the preview is the
// block a derived proposal keeps or drops.

type (
	opKind   = hunks.Op
	diffLine = hunks.Line
	hunk     = hunks.Hunk
)

const (
	opEqual  = hunks.Equal
	opDelete = hunks.Delete
	opInsert = hunks.Insert
)

func whole(b []byte, op opKind) []hunk { return hunks.Whole(b, op) }

// unified is the proven line diff with git's three lines of context
// (hunks.Diff).
func unified(before, after []byte) ([]hunk, error) { return hunks.Diff(before, after) }
