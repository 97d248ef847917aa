package hunks

import (
	"bytes"
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/nika-dev/nika/changeset"
)

// Context is the unified diff context, as git's default.
const Context = 3

// Op is one line's role in a hunk.
type Op byte

const (
	Equal  Op = ' '
	Delete Op = '-'
	Insert Op = '+'
)

// Line is one line of a hunk, with its "\n" if it has one.
type Line struct {
	Op   Op
	Text string
}

// Hunk is one @@ block. Starts are 1-based as in the header; a side with
// no lines has start = the line before (0 at the top), as git prints.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []Line
}

// Header is the hunk's @@ line, as git prints it.
func (h Hunk) Header() string {
	return fmt.Sprintf("@@ -%s +%s @@", rangeOf(h.OldStart, h.OldLines), rangeOf(h.NewStart, h.NewLines))
}

// rangeOf prints a hunk range the way git does: "a" for one line, "a,b"
// otherwise.
func rangeOf(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// SplitLines splits b after each "\n"; a last line without one is kept.
func SplitLines(b []byte) []string {
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

// Whole renders every line of b as one hunk of op: the body of a create
// (Insert) or a delete (Delete). Empty content has no hunk.
func Whole(b []byte, op Op) []Hunk {
	ls := SplitLines(b)
	if len(ls) == 0 {
		return nil
	}
	h := Hunk{Lines: make([]Line, len(ls))}
	for i, l := range ls {
		h.Lines[i] = Line{op, l}
	}
	if op == Insert {
		h.NewStart, h.NewLines = 1, len(ls)
	} else {
		h.OldStart, h.OldLines = 1, len(ls)
	}
	return []Hunk{h}
}

// Diff computes the line diff of before and after (Myers, via go-udiff)
// with Context lines of context, and proves it: replaying the hunks over
// before must give after byte for byte, or a preview would show something
// other than what apply writes.
func Diff(before, after []byte) ([]Hunk, error) {
	if bytes.Equal(before, after) {
		return nil, nil
	}
	b, a := string(before), string(after)
	u, err := udiff.ToUnifiedDiff("a", "b", b, udiff.Lines(b, a), Context)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	hs := make([]Hunk, 0, len(u.Hunks))
	for _, uh := range u.Hunks {
		h := Hunk{OldStart: uh.FromLine, NewStart: uh.ToLine}
		for _, l := range uh.Lines {
			var op Op
			switch l.Kind {
			case udiff.Delete:
				op = Delete
				h.OldLines++
			case udiff.Insert:
				op = Insert
				h.NewLines++
			default:
				op = Equal
				h.OldLines++
				h.NewLines++
			}
			h.Lines = append(h.Lines, Line{op, l.Content})
		}
		// git prints an empty side's start as the line before it.
		if h.OldLines == 0 {
			h.OldStart--
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		hs = append(hs, h)
	}
	all := make([]bool, len(hs))
	for i := range all {
		all[i] = true
	}
	got, err := keep(before, hs, all)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(got, after) {
		return nil, fmt.Errorf("internal error: the diff does not reproduce the proposed bytes")
	}
	return hs, nil
}

// oldFrom is the 0-based index of the first base line a hunk covers.
func (h Hunk) oldFrom() int {
	if h.OldLines == 0 {
		return h.OldStart
	}
	return h.OldStart - 1
}

// keep replays the kept hunks of hs over before: a kept hunk's lines
// replace the base lines it covers, a dropped hunk leaves them as they are.
// Every hunk is checked against the base, kept or not.
func keep(before []byte, hs []Hunk, kept []bool) ([]byte, error) {
	old := SplitLines(before)
	var out strings.Builder
	next := 0 // index into old of the next line not yet copied
	for i, h := range hs {
		start := h.oldFrom()
		if start < next || start > len(old) {
			return nil, fmt.Errorf("internal error: diff hunk %s out of order", h.Header())
		}
		for ; next < start; next++ {
			out.WriteString(old[next])
		}
		for _, l := range h.Lines {
			switch l.Op {
			case Equal, Delete:
				if next >= len(old) || old[next] != l.Text {
					return nil, fmt.Errorf("internal error: diff hunk %s does not match the base bytes", h.Header())
				}
				if l.Op == Equal || !kept[i] {
					out.WriteString(l.Text)
				}
				next++
			case Insert:
				if kept[i] {
					out.WriteString(l.Text)
				}
			}
		}
	}
	for ; next < len(old); next++ {
		out.WriteString(old[next])
	}
	return []byte(out.String()), nil
}

// Unit is one selectable hunk of a change, numbered from 1.
type Unit struct {
	N int
	// Whole says the unit is the whole change: a creation, a deletion, a
	// move, or an update of the mode alone.
	Whole bool
	// Hunks are the diff blocks the unit shows: one for a hunk of an
	// update; every block of a whole unit (none for an empty file, a pure
	// move or a mode change).
	Hunks []Hunk
	// The line ranges the unit covers, as in a @@ header; for a whole unit,
	// every line of each side.
	OldStart, OldLines, NewStart, NewLines int
}

// Of returns the selectable hunks of a change, in order, numbered from 1.
func Of(c changeset.Change) ([]Unit, error) {
	switch c.Kind {
	case changeset.Create:
		return []Unit{whole(nil, c.After.Bytes, Whole(c.After.Bytes, Insert))}, nil
	case changeset.Delete:
		return []Unit{whole(c.Before.Bytes, nil, Whole(c.Before.Bytes, Delete))}, nil
	case changeset.Update, changeset.Move:
		hs, err := Diff(c.Before.Bytes, c.After.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", changeset.Quote(string(c.Path)), err)
		}
		if c.Kind == changeset.Move || len(hs) == 0 {
			return []Unit{whole(c.Before.Bytes, c.After.Bytes, hs)}, nil
		}
		us := make([]Unit, len(hs))
		for i, h := range hs {
			us[i] = Unit{N: i + 1, Hunks: []Hunk{h}, OldStart: h.OldStart, OldLines: h.OldLines, NewStart: h.NewStart, NewLines: h.NewLines}
		}
		return us, nil
	}
	return nil, fmt.Errorf("%s: unknown kind %q", changeset.Quote(string(c.Path)), c.Kind)
}

func whole(before, after []byte, hs []Hunk) Unit {
	u := Unit{N: 1, Whole: true, Hunks: hs, OldLines: len(SplitLines(before)), NewLines: len(SplitLines(after))}
	if u.OldLines > 0 {
		u.OldStart = 1
	}
	if u.NewLines > 0 {
		u.NewStart = 1
	}
	return u
}

// Apply is the change with only the chosen hunks of it (numbers from 1,
// each in range, as Of numbers them): the after-bytes are the before-bytes
// with only those hunks replayed. ok is false when the choice leaves the
// file as it was (no hunk chosen): the change is then dropped. A whole unit
// is kept or dropped as it is. The after side's Blob is left empty for the
// stager to fill; a change whose every hunk is chosen is returned as it is.
func Apply(c changeset.Change, chosen []int) (out changeset.Change, ok bool, err error) {
	us, err := Of(c)
	if err != nil {
		return c, false, err
	}
	kept := make([]bool, len(us))
	n := 0
	for _, k := range chosen {
		if k < 1 || k > len(us) {
			return c, false, fmt.Errorf("%s has no hunk %d", changeset.Quote(string(c.Path)), k)
		}
		if !kept[k-1] {
			kept[k-1] = true
			n++
		}
	}
	switch {
	case n == 0:
		return c, false, nil
	case n == len(us):
		return c, true, nil
	}
	hs := make([]Hunk, len(us))
	for i, u := range us {
		hs[i] = u.Hunks[0]
	}
	b, err := keep(c.Before.Bytes, hs, kept)
	if err != nil {
		return c, false, err
	}
	out = c
	out.After = changeset.NewSide(b, c.After.Mode, "")
	return out, true, nil
}
