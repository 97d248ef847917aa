package preview

import (
	"bytes"
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// contextLines is the unified diff context, as git's default.
const contextLines = 3

// opKind is one line's role in a hunk.
type opKind byte

const (
	opEqual  opKind = ' '
	opDelete opKind = '-'
	opInsert opKind = '+'
)

type diffLine struct {
	op   opKind
	text string // the line with its "\n", if it has one
}

// hunk is one @@ block. Start lines are 1-based as in the header; a side
// with no lines has start = the line before (0 at the top), as git prints.
type hunk struct {
	oldStart, oldLines int
	newStart, newLines int
	lines              []diffLine
}

func (h *hunk) header() string {
	return fmt.Sprintf("@@ -%s +%s @@", rangeOf(h.oldStart, h.oldLines), rangeOf(h.newStart, h.newLines))
}

// rangeOf prints a hunk range the way git does: "a" for one line, "a,b"
// otherwise.
func rangeOf(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits b after each "\n"; a last line without one is kept.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// whole renders every line of b as one hunk of op: the body of a create
// (op '+') or a delete (op '-'). Empty content has no hunk.
func whole(b []byte, op opKind) []hunk {
	ls := splitLines(b)
	if len(ls) == 0 {
		return nil
	}
	h := hunk{lines: make([]diffLine, len(ls))}
	for i, l := range ls {
		h.lines[i] = diffLine{op, l}
	}
	if op == opInsert {
		h.newStart, h.newLines = 1, len(ls)
	} else {
		h.oldStart, h.oldLines = 1, len(ls)
	}
	return []hunk{h}
}

// unified computes the line diff of before and after (Myers, via go-udiff)
// with three lines of context, and proves it: replaying the hunks over
// before must give after byte for byte, or the preview would show something
// other than what apply writes.
func unified(before, after []byte) ([]hunk, error) {
	if bytes.Equal(before, after) {
		return nil, nil
	}
	b, a := string(before), string(after)
	u, err := udiff.ToUnifiedDiff("a", "b", b, udiff.Lines(b, a), contextLines)
	if err != nil {
		return nil, fmt.Errorf("preview: diff: %w", err)
	}
	hs := make([]hunk, 0, len(u.Hunks))
	for _, uh := range u.Hunks {
		h := hunk{oldStart: uh.FromLine, newStart: uh.ToLine}
		for _, l := range uh.Lines {
			var op opKind
			switch l.Kind {
			case udiff.Delete:
				op = opDelete
				h.oldLines++
			case udiff.Insert:
				op = opInsert
				h.newLines++
			default:
				op = opEqual
				h.oldLines++
				h.newLines++
			}
			h.lines = append(h.lines, diffLine{op, l.Content})
		}
		// git prints an empty side's start as the line before it.
		if h.oldLines == 0 {
			h.oldStart--
		}
		if h.newLines == 0 {
			h.newStart--
		}
		hs = append(hs, h)
	}
	if err := replay(before, after, hs); err != nil {
		return nil, err
	}
	return hs, nil
}

// replay checks that hs turns before into after.
func replay(before, after []byte, hs []hunk) error {
	old := splitLines(before)
	var out strings.Builder
	next := 0 // index into old of the next line not yet copied
	for _, h := range hs {
		start := h.oldStart - 1
		if h.oldLines == 0 {
			start = h.oldStart
		}
		if start < next || start > len(old) {
			return fmt.Errorf("preview: internal error: diff hunk %s out of order", h.header())
		}
		for ; next < start; next++ {
			out.WriteString(old[next])
		}
		for _, l := range h.lines {
			switch l.op {
			case opEqual, opDelete:
				if next >= len(old) || old[next] != l.text {
					return fmt.Errorf("preview: internal error: diff hunk %s does not match the base bytes", h.header())
				}
				if l.op == opEqual {
					out.WriteString(l.text)
				}
				next++
			case opInsert:
				out.WriteString(l.text)
			}
		}
	}
	for ; next < len(old); next++ {
		out.WriteString(old[next])
	}
	if out.String() != string(after) {
		return fmt.Errorf("preview: internal error: the diff does not reproduce the proposed bytes")
	}
	return nil
}
