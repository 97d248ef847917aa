// Package merge3 merges two descendants of one text, line by line, as git
// merge-file does: the three-way merge nika rebase uses to bring a stale
// proposal forward (base: the proposal's base bytes; ours: HEAD's bytes;
// theirs: the proposal's after-bytes).
//
// Why carry git's algorithm over rather than take a library: no Go
// three-way merge library is both kept up and faithful to git, and the
// human who reads a refusal, or runs git merge-file to see it, must find
// the same conflicts git finds. This is the algorithm of git's
// xdiff/xmerge.c at git merge-file's level (XDL_MERGE_ZEALOUS_ALNUM), over
// the line diff nika's previews use (go-udiff's LCS):
//
//   - each side's changes against the base are computed;
//   - a change of one side that neither overlaps nor touches a change of
//     the other (at least one unchanged base line between them) is taken;
//   - changes that overlap or touch form one region; if both sides made it
//     the same, it is taken, else it is a conflict;
//   - a conflict is refined (zealous): the two sides are diffed against
//     each other, and the lines they agree on leave the conflict, which may
//     split it in several;
//   - conflicts separated by at most three lines, or by lines with no
//     letter or digit, are joined, as git does to keep the markers few.
//
// merge3_git_test.go compares every case with the real git merge-file:
// the same bytes when clean, the same marked text and number of conflicts
// when not. The package is pure: bytes in, bytes or conflicts out.
package merge3

import (
	"bytes"
	"strings"
	"unicode"

	"github.com/aymanbagabas/go-udiff/lcs"

	"github.com/nika-dev/nika/changeset/hunks"
)

// Conflict is one region both sides changed differently. Lines are 1-based
// in each side's text; a side that removed the region has no lines (Lines
// 0, Start the line before).
type Conflict struct {
	OursStart, OursLines     int
	TheirsStart, TheirsLines int
	Ours, Theirs             []string // the lines of each side, each with its "\n" if it has one
}

// Result is a merge: the merged bytes when it is clean, else the
// conflicts, and the text with git's markers around each of them.
type Result struct {
	Clean     bool
	Bytes     []byte // the merge; with conflict markers when not clean
	Conflicts []Conflict
}

// Labels name the sides in conflict markers, as git merge-file -L does.
type Labels struct{ Ours, Theirs string }

// change is one side's edit of the base: base lines [i, i+n) become the
// side's lines [j, j+m).
type change struct{ i, n, j, m int }

func changes(base, side []string) []change {
	ds := lcs.DiffLines(base, side)
	out := make([]change, len(ds))
	for k, d := range ds {
		out[k] = change{d.Start, d.End - d.Start, d.ReplStart, d.ReplEnd - d.ReplStart}
	}
	return out
}

// chunk is one piece of the merge: lines both sides agree on, or a
// conflict between ours and theirs.
type chunk struct {
	conflict     bool
	lines        []string // agreed lines
	ours, theirs []string // a conflict's sides
}

// Merge merges ours and theirs, both descendants of base.
func Merge(base, ours, theirs []byte, lb Labels) Result {
	b, o, t := hunks.SplitLines(base), hunks.SplitLines(ours), hunks.SplitLines(theirs)
	co, ct := changes(b, o), changes(b, t)
	var chunks []chunk
	add := func(c chunk) {
		if !c.conflict && len(c.lines) == 0 {
			return
		}
		if n := len(chunks); n > 0 && !c.conflict && !chunks[n-1].conflict {
			chunks[n-1].lines = append(chunks[n-1].lines, c.lines...)
			return
		}
		// Own the lines: they are views of the inputs, and a later
		// append must never write into them.
		c.lines = append([]string(nil), c.lines...)
		chunks = append(chunks, c)
	}
	pos := 0 // the next base line not yet emitted
	// sideOf is the lines a side has for base [lo, hi), given its changes
	// inside that range (which start at index k of cs).
	sideOf := func(side []string, cs []change, lo, hi int) []string {
		var out []string
		at := lo
		for _, c := range cs {
			if c.i < lo || c.i+c.n > hi {
				continue
			}
			out = append(out, b[at:c.i]...)
			out = append(out, side[c.j:c.j+c.m]...)
			at = c.i + c.n
		}
		return append(out, b[at:hi]...)
	}
	i, j := 0, 0
	for i < len(co) || j < len(ct) {
		var alone *change
		var from []string
		switch {
		case j == len(ct) || (i < len(co) && co[i].i+co[i].n < ct[j].i):
			alone, from = &co[i], o
			i++
		case i == len(co) || ct[j].i+ct[j].n < co[i].i:
			alone, from = &ct[j], t
			j++
		}
		if alone != nil {
			add(chunk{lines: b[pos:alone.i]})
			add(chunk{lines: from[alone.j : alone.j+alone.m]})
			pos = alone.i + alone.n
			continue
		}
		// A region: absorb every change of either side that overlaps or
		// touches it.
		lo := min(co[i].i, ct[j].i)
		hi := max(co[i].i+co[i].n, ct[j].i+ct[j].n)
		i0, j0 := i, j
		i, j = i+1, j+1
		for {
			switch {
			case i < len(co) && co[i].i <= hi:
				hi = max(hi, co[i].i+co[i].n)
				i++
				continue
			case j < len(ct) && ct[j].i <= hi:
				hi = max(hi, ct[j].i+ct[j].n)
				j++
				continue
			}
			break
		}
		add(chunk{lines: b[pos:lo]})
		so, st := sideOf(o, co[i0:i], lo, hi), sideOf(t, ct[j0:j], lo, hi)
		for _, c := range refine(so, st) {
			add(c)
		}
		pos = hi
	}
	add(chunk{lines: b[pos:]})
	chunks = simplify(chunks)
	return render(chunks, lb)
}

// refine splits a conflict by the diff of its two sides: the lines they
// agree on leave it (git's xdl_refine_conflicts).
func refine(so, st []string) []chunk {
	var out []chunk
	at, bt := 0, 0
	for _, d := range lcs.DiffLines(so, st) {
		if d.Start > at {
			out = append(out, chunk{lines: so[at:d.Start]})
		}
		out = append(out, chunk{conflict: true, ours: so[d.Start:d.End], theirs: st[d.ReplStart:d.ReplEnd]})
		at, bt = d.End, d.ReplEnd
	}
	_ = bt
	if at < len(so) {
		out = append(out, chunk{lines: so[at:]})
	}
	return out
}

// simplify joins conflicts separated by at most three agreed lines, or by
// agreed lines with no letter or digit (git's xdl_simplify_non_conflicts
// at merge-file's level).
func simplify(cs []chunk) []chunk {
	for k := 1; k+1 < len(cs); {
		if cs[k-1].conflict && !cs[k].conflict && cs[k+1].conflict && (len(cs[k].lines) <= 3 || !alnum(cs[k].lines)) {
			a, mid, c := cs[k-1], cs[k].lines, cs[k+1]
			a.ours = append(append(append([]string{}, a.ours...), mid...), c.ours...)
			a.theirs = append(append(append([]string{}, a.theirs...), mid...), c.theirs...)
			cs = append(append(cs[:k-1], a), cs[k+2:]...)
			continue
		}
		k++
	}
	return cs
}

func alnum(ls []string) bool {
	for _, l := range ls {
		for _, r := range l {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return true
			}
		}
	}
	return false
}

// render writes the merge, with git's markers around each conflict, and
// lists the conflicts with their lines in each side's merged text.
func render(cs []chunk, lb Labels) Result {
	var out bytes.Buffer
	res := Result{Clean: true}
	ol, tl := 0, 0 // lines of each side's text so far
	for _, c := range cs {
		if !c.conflict {
			for _, l := range c.lines {
				out.WriteString(l)
			}
			ol += len(c.lines)
			tl += len(c.lines)
			continue
		}
		res.Clean = false
		k := Conflict{OursStart: ol + 1, OursLines: len(c.ours), TheirsStart: tl + 1, TheirsLines: len(c.theirs), Ours: c.ours, Theirs: c.theirs}
		if k.OursLines == 0 {
			k.OursStart--
		}
		if k.TheirsLines == 0 {
			k.TheirsStart--
		}
		res.Conflicts = append(res.Conflicts, k)
		ol += len(c.ours)
		tl += len(c.theirs)
		marker(&out, "<<<<<<<", lb.Ours)
		side(&out, c.ours)
		out.WriteString("=======\n")
		side(&out, c.theirs)
		marker(&out, ">>>>>>>", lb.Theirs)
	}
	res.Bytes = out.Bytes()
	return res
}

func marker(b *bytes.Buffer, m, label string) {
	b.WriteString(m)
	if label != "" {
		b.WriteString(" " + label)
	}
	b.WriteString("\n")
}

// side writes a conflict side; a last line without "\n" gets one, as git
// does, so that the marker starts a line.
func side(b *bytes.Buffer, ls []string) {
	for _, l := range ls {
		b.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteString("\n")
		}
	}
}
