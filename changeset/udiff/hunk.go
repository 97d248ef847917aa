package udiff

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/nika-dev/nika/refusal"
)

// hunk is one @@ block: the old lines (context and removed) it expects in
// the base, and the new lines (context and added) that replace them. Lines
// keep their "\n", except a last line marked "\ No newline at end of file".
type hunk struct {
	n        int // 1-based index of the hunk in its file
	line     int // input line of the @@ header
	end      int // input line of the hunk's last line
	oldStart int
	oldCount int
	newStart int
	newCount int
	old, new [][]byte
}

// start is the 0-based index of the first base line the hunk replaces; for a
// pure insertion ("-5,0") it is the index the new lines go before.
func (h *hunk) start() int {
	if h.oldCount == 0 {
		return h.oldStart
	}
	return h.oldStart - 1
}

func (h *hunk) noNewlineAtEnd() bool { return lacksNewline(h.old) || lacksNewline(h.new) }

func lacksNewline(ls [][]byte) bool {
	return len(ls) > 0 && !bytes.HasSuffix(ls[len(ls)-1], []byte("\n"))
}

type entry struct {
	kind byte // ' ', '-' or '+'
	text []byte
	line int
}

// hunk reads the hunk whose header is at p.i.
func (p *parser) hunk(n int, name string) (*hunk, error) {
	h := &hunk{n: n, line: p.i + 1}
	if err := h.parseHeader(p.header(p.i)); err != nil {
		return nil, refuse(refusal.Invalid, h.line, "write hunk headers as @@ -<line>,<count> +<line>,<count> @@",
			"hunk %d of %s has a malformed header: %v", n, name, err)
	}
	p.i++
	oldLeft, newLeft := h.oldCount, h.newCount
	var es []entry
	short := func(line int, where string) error {
		return refuse(refusal.Invalid, line, "make the hunk's lines agree with the counts in its @@ header",
			"hunk %d of %s %s, %s short of its header %s", n, name, where, counts(oldLeft, newLeft), h.spec())
	}
	for oldLeft > 0 || newLeft > 0 || (p.i < len(p.lines) && p.lines[p.i][0] == '\\') {
		if p.i >= len(p.lines) {
			return nil, short(h.line, "is cut off by the end of the diff")
		}
		line := p.i + 1
		l := p.lines[p.i]
		kind, text := l[0], l[1:]
		if len(l) == 1 && kind == '\n' {
			kind, text = ' ', l // an empty context line whose space was lost
		}
		if !bytes.HasSuffix(text, []byte("\n")) {
			text = append(bytes.Clone(text), '\n') // the diff's last line, without a newline of its own
		}
		switch kind {
		case ' ', '-', '+':
			if (kind != '+' && oldLeft == 0) || (kind != '-' && newLeft == 0) {
				return nil, refuse(refusal.Invalid, line, "make the hunk's lines agree with the counts in its @@ header",
					"hunk %d of %s has more lines than its header %s counts", n, name, h.spec())
			}
			if kind != '+' {
				oldLeft--
			}
			if kind != '-' {
				newLeft--
			}
			es = append(es, entry{kind, text, line})
		case '\\':
			if len(es) == 0 {
				return nil, refuse(refusal.Invalid, line, "put the \\ No newline marker after the line it is about",
					"hunk %d of %s starts with a \\ No newline marker", n, name)
			}
			last := &es[len(es)-1]
			last.text = bytes.TrimSuffix(last.text, []byte("\n"))
		default:
			return nil, short(line, "stops here")
		}
		p.i++
	}
	h.end = p.i
	if p.i < len(p.lines) && !p.sectionStart(p.i) {
		switch t := p.header(p.i); {
		case t == "--" || t == "-- ":
			// a mail's signature, as git format-patch writes it
		case t != "" && (t[0] == '+' || t[0] == '-' || t[0] == ' '):
			return nil, refuse(refusal.Invalid, p.i+1, "make the hunk's lines agree with the counts in its @@ header",
				"hunk %d of %s has more lines than its header %s counts", n, name, h.spec())
		}
	}
	for _, e := range es {
		if e.kind != '+' {
			h.old = append(h.old, e.text)
		}
		if e.kind != '-' {
			h.new = append(h.new, e.text)
		}
	}
	// A line without newline must be the last of its side.
	for _, side := range []struct {
		skip byte
		n    int
	}{{'+', len(h.old)}, {'-', len(h.new)}} {
		k := 0
		for _, e := range es {
			if e.kind == side.skip {
				continue
			}
			if k++; k < side.n && !bytes.HasSuffix(e.text, []byte("\n")) {
				return nil, refuse(refusal.Invalid, e.line, "keep the \\ No newline marker for the last line of the file",
					"hunk %d of %s marks a line without newline that other lines follow", n, name)
			}
		}
	}
	return h, nil
}

// sectionStart reports whether line i starts a new hunk or file section.
func (p *parser) sectionStart(i int) bool {
	t := p.header(i)
	return strings.HasPrefix(t, "@@ ") || strings.HasPrefix(t, "diff ") || p.isPlainHeader(i)
}

func counts(old, new int) string {
	return fmt.Sprintf("%s and %s", plural(old, "old line"), plural(new, "new line"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (h *hunk) spec() string {
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.oldStart, h.oldCount, h.newStart, h.newCount)
}

func (h *hunk) parseHeader(t string) error {
	rest, ok := strings.CutPrefix(t, "@@ -")
	if !ok {
		return fmt.Errorf("it does not start with @@ -")
	}
	oldSpec, rest, ok := strings.Cut(rest, " +")
	if !ok {
		return fmt.Errorf("it has no +<line>")
	}
	newSpec, _, ok := strings.Cut(rest, " @@")
	if !ok {
		return fmt.Errorf("it does not end with @@")
	}
	var err error
	if h.oldStart, h.oldCount, err = rangeSpec(oldSpec); err != nil {
		return err
	}
	if h.newStart, h.newCount, err = rangeSpec(newSpec); err != nil {
		return err
	}
	if (h.oldStart == 0 && h.oldCount != 0) || (h.newStart == 0 && h.newCount != 0) {
		return fmt.Errorf("line 0 holds no lines")
	}
	if h.oldCount == 0 && h.newCount == 0 {
		return fmt.Errorf("it changes no line")
	}
	return nil
}

// rangeSpec reads "<start>[,<count>]"; the count defaults to 1.
func rangeSpec(s string) (start, count int, err error) {
	a, b, hasCount := strings.Cut(s, ",")
	if start, err = number(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if hasCount {
		if count, err = number(b); err != nil {
			return 0, 0, err
		}
	}
	return start, count, nil
}

func number(s string) (int, error) {
	if s == "" || len(s) > 9 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a line number", s)
	}
	return strconv.Atoi(s)
}

// edit is the Edit of a modified or renamed file: its hunks, in order.
type edit struct {
	name  string
	hunks []*hunk
}

func (e *edit) Apply(base []byte) ([]byte, error) { return applyHunks(base, e.hunks, e.name) }

// applyHunks applies hunks in order to base and returns new bytes.
func applyHunks(base []byte, hunks []*hunk, name string) ([]byte, error) {
	lines := splitLines(base)
	out := make([]byte, 0, len(base))
	at := 0
	add := func(h *hunk, ls [][]byte) error {
		for _, l := range ls {
			if len(out) > 0 && out[len(out)-1] != '\n' {
				return refuse(refusal.Invalid, h.line, "rebuild the diff against the current file",
					"hunk %d of %s would join two lines: it leaves a line without newline before others", h.n, name)
			}
			out = append(out, l...)
		}
		return nil
	}
	for _, h := range hunks {
		pos, err := h.locate(lines, at, name)
		if err != nil {
			return nil, err
		}
		if err := add(h, lines[at:pos]); err != nil {
			return nil, err
		}
		if err := add(h, h.new); err != nil {
			return nil, err
		}
		at = pos + len(h.old)
	}
	if len(hunks) > 0 {
		if err := add(hunks[len(hunks)-1], lines[at:]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// locate finds where a hunk applies in lines, at or after index from.
func (h *hunk) locate(lines [][]byte, from int, name string) (int, error) {
	stated := h.start()
	hint := "rebuild the diff against the current file"
	if len(h.old) == 0 {
		if stated < from || stated > len(lines) {
			return 0, refuse(refusal.Invalid, h.line, hint, "hunk %d of %s inserts after line %d, but the file has %s",
				h.n, name, h.oldStart, plural(len(lines), "line"))
		}
		return stated, nil
	}
	// A hunk whose last line has no newline is about the file's end.
	mustEnd := h.noNewlineAtEnd()
	equal := func(p int) bool {
		for i, l := range h.old {
			if !bytes.Equal(lines[p+i], l) {
				return false
			}
		}
		return true
	}
	fits := func(p int) bool { return !mustEnd || p+len(h.old) == len(lines) }
	if stated >= from && stated+len(h.old) <= len(lines) && fits(stated) && equal(stated) {
		return stated, nil
	}
	var found, loose []int
	for _, p := range occurrences(lines[from:], h.old) {
		p += from
		loose = append(loose, p)
		if fits(p) {
			found = append(found, p)
		}
	}
	these, are := "these "+plural(len(h.old), "line"), "are"
	if len(h.old) == 1 {
		these, are = "this line", "is"
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return 0, refuse(refusal.Invalid, h.line, "add context lines to the hunk so that it matches one place",
			"hunk %d of %s: %s %s at lines %s of the file, not at line %d as its header says",
			h.n, name, these, are, lineList(found), h.oldStart)
	case len(loose) > 0:
		return 0, refuse(refusal.Invalid, h.line, hint, "hunk %d of %s: %s %s in the file, but not at its end, where the hunk's missing newline puts it",
			h.n, name, these, are)
	}
	return 0, refuse(refusal.Invalid, h.line, hint, "hunk %d of %s: %s %s not in the file", h.n, name, these, are)
}

// occurrences lists every index where needle occurs in hay, line by line,
// in time linear in both (Knuth-Morris-Pratt over line ids), so that no
// diff can make the search quadratic.
func occurrences(hay, needle [][]byte) []int {
	ids := map[string]int{}
	id := func(l []byte) int {
		if v, ok := ids[string(l)]; ok {
			return v
		}
		ids[string(l)] = len(ids)
		return len(ids) - 1
	}
	nd := make([]int, len(needle))
	for i, l := range needle {
		nd[i] = id(l)
	}
	fail := make([]int, len(nd)+1)
	fail[0] = -1
	for i, k := 0, -1; i < len(nd); {
		for k >= 0 && nd[k] != nd[i] {
			k = fail[k]
		}
		i, k = i+1, k+1
		fail[i] = k
	}
	var out []int
	k := 0
	for i, l := range hay {
		v, ok := ids[string(l)]
		if !ok {
			v = -1
		}
		for k >= 0 && (k == len(nd) || nd[k] != v) {
			k = fail[k]
		}
		k++
		if k == len(nd) {
			out = append(out, i-len(nd)+1)
		}
	}
	return out
}

// lineList renders 0-based positions as 1-based lines: "4 and 9", "4, 9 and 12".
func lineList(ps []int) string {
	var ss []string
	for _, p := range ps {
		ss = append(ss, strconv.Itoa(p+1))
	}
	if len(ss) > 5 {
		ss = append(ss[:4], fmt.Sprintf("%d more", len(ss)-4))
	}
	return strings.Join(ss[:len(ss)-1], ", ") + " and " + ss[len(ss)-1]
}

// deletion is the Edit of a deleted file. It witnesses what the diff says it
// removes: the whole old content when the diff has hunks, or the git blob
// id of the index line when it has none. Apply returns nil bytes, the
// file's absence, or refuses.
type deletion struct {
	name  string
	line  int
	whole bool   // old is the file's whole content
	old   []byte // the removed lines
	lines int    // how many
	blob  string // abbreviated old blob id, when there are no hunks
}

func (d *deletion) Apply(base []byte) ([]byte, error) {
	hint := "rebuild the diff against the current file"
	if d.whole && !bytes.Equal(base, d.old) {
		return nil, refuse(refusal.Invalid, d.line, hint,
			"the diff deletes %s, but the file holds other bytes than the %s it removes",
			d.name, plural(d.lines, "line"))
	}
	if d.blob != "" && !blobMatches(base, d.blob) {
		id := gitBlobID(sha1.New(), base)
		return nil, refuse(refusal.Invalid, d.line, hint,
			"the diff deletes %s as blob %s, but the file is blob %s", d.name, d.blob, id[:min(len(id), max(len(d.blob), 7))])
	}
	return nil, nil
}

// blobMatches reports whether abbrev abbreviates the git blob id of b, in a
// SHA-1 or a SHA-256 repository.
func blobMatches(b []byte, abbrev string) bool {
	abbrev = strings.ToLower(abbrev)
	return strings.HasPrefix(gitBlobID(sha1.New(), b), abbrev) || strings.HasPrefix(gitBlobID(sha256.New(), b), abbrev)
}

type hasher interface {
	Write([]byte) (int, error)
	Sum([]byte) []byte
}

func gitBlobID(h hasher, b []byte) string {
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}
