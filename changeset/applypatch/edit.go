package applypatch

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// pline is one line of a chunk: kind ' ' (context), '-' (removed) or '+'
// (added), and its text without the prefix.
type pline struct {
	kind byte
	text string
}

// chunk is one "@@" section of an update.
type chunk struct {
	n       int      // 1-based number of the chunk within its file
	line    int      // input line where it starts (its first @@ line, or its first line)
	headers []header // its "@@ <context>" lines, in order
	lines   []pline
	eof     bool // "*** End of File": the chunk ends at the end of the file
}

// header is the context line of an "@@ <context>" line: a line of the file
// that the chunk comes after.
type header struct {
	text string
	line int // its input line
}

// old is what the chunk expects in the file: its context and removed lines.
func (c *chunk) old() []string {
	var out []string
	for _, l := range c.lines {
		if l.kind != '+' {
			out = append(out, l.text)
		}
	}
	return out
}

// edit is the changeset.Edit of one "*** Update File": its chunks, applied
// in order to the base bytes.
type edit struct {
	path   string
	chunks []chunk
}

// replacement replaces n base lines from start with lines.
type replacement struct {
	start, n int
	lines    []string
}

// Apply locates every chunk in base and returns the new bytes. It never
// modifies base. A chunk is looked for after the one before it; when it is
// not there, anywhere in the file that no other chunk changes. Either way
// it must match one place.
func (e *edit) Apply(base []byte) ([]byte, error) {
	doc := splitText(base)
	m := newMatcher(doc.lines)
	var reps []replacement
	cursor := 0 // chunks are searched from here first: the end of the previous one
	for i := range e.chunks {
		c := &e.chunks[i]
		start, err := e.place(m, i, cursor, reps)
		if _, ok := err.(*notFound); ok && cursor > 0 {
			// Not after the previous chunk: out of the file's order.
			start, err = e.place(m, i, 0, reps)
		}
		if nf, ok := err.(*notFound); ok {
			return nil, nf.err
		}
		if err != nil {
			return nil, err
		}
		n := len(c.old())
		reps = append(reps, replacement{start: start, n: n, lines: c.apply(doc.lines[start : start+n])})
		cursor = start + n
	}
	sort.SliceStable(reps, func(a, b int) bool { return reps[a].start < reps[b].start })
	return doc.rebuild(reps), nil
}

// notFound is a chunk that is not where it was looked for; err says so.
type notFound struct{ err error }

func (n *notFound) Error() string { return n.err.Error() }

// overlaps reports whether lines [start, start+n) meet a replacement made
// already: they share a line, or an insertion falls inside them.
func overlaps(reps []replacement, start, n int) (replacement, bool) {
	for _, r := range reps {
		if start < r.start+r.n && r.start < start+n && (r.n > 0 || (start < r.start && r.start < start+n)) {
			return r, true
		}
	}
	return replacement{}, false
}

// place finds where chunk i applies, searching from line from and leaving
// out the lines the replacements made so far changed.
func (e *edit) place(m *matcher, i, from int, reps []replacement) (int, error) {
	c := &e.chunks[i]
	lines := m.lines
	scopeEnd, lastHeader := -1, -1
	for k, h := range c.headers {
		at, ok := m.first(h.text, from)
		if !ok {
			where := ""
			switch {
			case k > 0:
				where = fmt.Sprintf(" after the @@ line %s", show(c.headers[k-1].text))
			case i > 0 && from > 0:
				where = fmt.Sprintf(" after chunk %d", i)
			}
			return 0, &notFound{e.refuseAt(h.line, c, "the @@ line %s is not in the file%s", show(h.text), where)}
		}
		from, scopeEnd, lastHeader = at+1, scope(lines, at), at
	}
	old := c.old()
	switch {
	case len(old) == 0 && len(c.headers) > 0 && !c.eof:
		return from, nil // only added lines: right after the @@ line
	case len(old) == 0:
		return len(lines), nil // only added lines: at the end of the file
	case c.eof:
		start := len(lines) - len(old)
		if start < 0 || !m.at(old, start) {
			return 0, e.refuse(c, "%s not at the end of the file, as its *** End of File says", e.these(len(old), "are", "is"))
		}
		if r, ok := overlaps(reps, start, len(old)); ok {
			return 0, e.refuse(c, "%s at the end of the file, where chunk %d already changes line %d", e.these(len(old), "are", "is"), e.chunkAt(reps, r), r.start+1)
		}
		return start, nil
	}
	all := m.find(old, from, scopeEnd)
	if len(all) == 0 && lastHeader >= 0 && m.at(old, lastHeader) {
		// The chunk repeats its @@ line as its first context line.
		all = []int{lastHeader}
	}
	var at []int
	var clash []int
	for _, a := range all {
		if _, ok := overlaps(reps, a, len(old)); ok {
			clash = append(clash, a)
		} else {
			at = append(at, a)
		}
	}
	switch {
	case len(at) > 1:
		return 0, &refusal.Error{Class: refusal.Invalid,
			Text: fmt.Sprintf("patch line %d: chunk %d of %s: %s in the file %s, at %s%s", c.line, c.n, changeset.Quote(e.path), e.these(len(old), "are", "is"), times(len(at)), lineList(at), e.after(i, from)),
			Hint: "add context lines to the chunk (or an @@ line) so that it matches one place"}
	case len(at) == 1:
		return at[0], nil
	case len(clash) > 0:
		return 0, &notFound{e.refuse(c, "%s at %s of the file, where another chunk already changes it", e.these(len(old), "are", "is"), lineList(clash))}
	case lastHeader >= 0:
		if before := m.find(old, 0, -1); len(before) > 0 && before[0] < from {
			return 0, &notFound{e.refuse(c, "%s at %s of the file, before its @@ line", e.these(len(old), "are", "is"), lineList(before))}
		}
	}
	if done := c.result(); len(done) > 0 {
		// A patch applied once already, in part or whole: say where its
		// result is.
		if at := m.find(done, 0, -1); len(at) > 0 {
			return 0, &notFound{refusal.New(refusal.Invalid, "drop the chunks the file already holds, or rebuild the patch against the current file",
				"patch line %d: chunk %d of %s: %s not in the file%s, but the lines the chunk leaves are, at %s: the file may hold this change already",
				c.line, c.n, changeset.Quote(e.path), e.these(len(old), "are", "is"), e.after(i, from), lineList(at))}
		}
	}
	return 0, &notFound{e.refuse(c, "%s not in the file%s", e.these(len(old), "are", "is"), e.after(i, from))}
}

// result is what the chunk leaves: its context and added lines.
func (c *chunk) result() []string {
	var out []string
	for _, l := range c.lines {
		if l.kind != '-' {
			out = append(out, l.text)
		}
	}
	return out
}

// chunkAt names the chunk that made a replacement, by its place among
// them.
func (e *edit) chunkAt(reps []replacement, r replacement) int {
	for k, x := range reps {
		if x.start == r.start && x.n == r.n {
			return k + 1
		}
	}
	return 0
}

// apply returns the lines that replace matched: the chunk's added lines, and
// its context lines as the file has them (so that a fuzzy match never
// rewrites a line the chunk keeps).
func (c *chunk) apply(matched []string) []string {
	out := []string{}
	k := 0
	for _, l := range c.lines {
		switch l.kind {
		case ' ':
			out = append(out, matched[k])
			k++
		case '-':
			k++
		case '+':
			out = append(out, l.text)
		}
	}
	return out
}

func (e *edit) refuse(c *chunk, format string, args ...any) *refusal.Error {
	return e.refuseAt(c.line, c, format, args...)
}

func (e *edit) refuseAt(line int, c *chunk, format string, args ...any) *refusal.Error {
	return refusal.New(refusal.Invalid, "rebuild the patch against the current file",
		"patch line %d: chunk %d of %s: "+format, append([]any{line, c.n, changeset.Quote(e.path)}, args...)...)
}

func (e *edit) these(n int, plural, singular string) string {
	if n == 1 {
		return "this context line " + singular
	}
	return fmt.Sprintf("these %d context lines %s", n, plural)
}

// after says where a chunk was searched, when not from the top.
func (e *edit) after(i, from int) string {
	c := &e.chunks[i]
	switch {
	case len(c.headers) > 0:
		return " after its @@ line"
	case i > 0 && from > 0:
		return fmt.Sprintf(" after chunk %d", i)
	}
	return ""
}

func times(n int) string {
	if n == 2 {
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// lineList names 0-based indexes as 1-based lines, every one of them, with
// runs of three or more written as ranges: "line 4", "lines 4 and 9",
// "lines 4, 9 and 14", "lines 1 to 7".
func lineList(at []int) string {
	var ns []string
	for i := 0; i < len(at); {
		j := i
		for j+1 < len(at) && at[j+1] == at[j]+1 {
			j++
		}
		if j-i >= 2 {
			ns = append(ns, fmt.Sprintf("%d to %d", at[i]+1, at[j]+1))
		} else {
			for k := i; k <= j; k++ {
				ns = append(ns, fmt.Sprint(at[k]+1))
			}
		}
		i = j + 1
	}
	switch {
	case len(ns) == 1 && len(at) == 1:
		return "line " + ns[0]
	case len(ns) == 1:
		return "lines " + ns[0]
	}
	return "lines " + strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}

// text is a file split into lines, with its line ending and final newline.
type text struct {
	lines   []string
	crlf    bool // every line ends in "\r\n"
	finalNL bool // the last line ends with a line ending
}

func splitText(b []byte) text {
	s := string(b)
	var t text
	if s == "" {
		return t
	}
	n := strings.Count(s, "\n")
	t.crlf = n > 0 && strings.Count(s, "\r\n") == n
	t.finalNL = strings.HasSuffix(s, "\n")
	if t.finalNL {
		s = s[:len(s)-1]
		if t.crlf {
			s = s[:len(s)-1]
		}
	}
	sep := "\n"
	if t.crlf {
		sep = "\r\n"
	}
	t.lines = strings.Split(s, sep)
	return t
}

// rebuild applies ordered, non-overlapping replacements. The file keeps its
// line ending. It keeps a missing final newline unless a replacement reaches
// the end of the file: the lines a patch writes end with a newline.
func (t text) rebuild(reps []replacement) []byte {
	var out []string
	next := 0
	finalNL := t.finalNL
	for _, r := range reps {
		out = append(out, t.lines[next:r.start]...)
		out = append(out, r.lines...)
		next = r.start + r.n
		if next == len(t.lines) {
			finalNL = true
		}
	}
	out = append(out, t.lines[next:]...)
	if len(out) == 0 {
		return []byte{}
	}
	eol := "\n"
	if t.crlf {
		eol = "\r\n"
	}
	s := strings.Join(out, eol)
	if finalNL {
		s += eol
	}
	return []byte(s)
}

// The levels of matching, strictest first.
var levels = []func(string) string{
	func(s string) string { return s },
	func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) },
	func(s string) string { return strings.TrimSpace(s) },
	normalize,
}

// normalize trims s and folds typographic punctuation to ASCII.
func normalize(s string) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			b.WriteByte('-')
		case '\u2018', '\u2019', '\u201a', '\u201b', '\u2032':
			b.WriteByte('\'')
		case '\u201c', '\u201d', '\u201e', '\u201f', '\u2033', '\u00ab', '\u00bb':
			b.WriteByte('"')
		case '\u00a0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200a', '\u202f', '\u205f', '\u3000':
			b.WriteByte(' ')
		case '\u2026':
			b.WriteString("...")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// matcher finds line sequences in a file, level by level.
type matcher struct {
	lines []string
	forms [][]string // the file's lines at each level, computed on demand
}

func newMatcher(lines []string) *matcher {
	return &matcher{lines: lines, forms: make([][]string, len(levels))}
}

func (m *matcher) form(level int) []string {
	if m.forms[level] == nil {
		f := make([]string, len(m.lines))
		for i, l := range m.lines {
			f[i] = levels[level](l)
		}
		m.forms[level] = f
	}
	return m.forms[level]
}

func folded(pattern []string, level int) []string {
	out := make([]string, len(pattern))
	for i, l := range pattern {
		out[i] = levels[level](l)
	}
	return out
}

func equalAt(lines, pattern []string, at int) bool {
	for j, l := range pattern {
		if lines[at+j] != l {
			return false
		}
	}
	return true
}

// find returns where pattern (non-empty) starts at or after from, at the
// strictest level that finds it anywhere: one index, several, or none. When an @@ line gave a scope (scopeEnd >= 0), a single
// match that starts inside the scope wins over matches after it: that is
// what the @@ line is for.
func (m *matcher) find(pattern []string, from, scopeEnd int) []int {
	for level := range levels {
		lines, pat := m.form(level), folded(pattern, level)
		var at, inScope []int
		for i := from; i+len(pat) <= len(lines); i++ {
			if equalAt(lines, pat, i) {
				at = append(at, i)
				if i < scopeEnd {
					inScope = append(inScope, i)
				}
			}
		}
		switch {
		case len(inScope) > 0:
			return inScope
		case len(at) > 0:
			return at
		}
	}
	return nil
}

// scope returns the end (exclusive) of the block that line h opens, read
// from indentation: the lines after it that are blank or indented deeper,
// and a closing line (")", "]", "}", "end") at its own indentation.
func scope(lines []string, h int) int {
	ind := indent(lines[h])
	end := h + 1
	for i := h + 1; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		switch {
		case t == "":
			continue
		case indent(lines[i]) > ind:
			end = i + 1
			continue
		case indent(lines[i]) == ind && (strings.ContainsRune(")]}", rune(t[0])) || t == "end" || strings.HasPrefix(t, "end ")):
			end = i + 1
		}
		break
	}
	return end
}

func indent(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}

// at reports whether pattern matches at index start, at any level.
func (m *matcher) at(pattern []string, start int) bool {
	if start < 0 || start+len(pattern) > len(m.lines) {
		return false
	}
	for level := range levels {
		if equalAt(m.form(level), folded(pattern, level), start) {
			return true
		}
	}
	return false
}

// first returns the first line at or after from that matches line, at the
// strictest level that finds one.
func (m *matcher) first(line string, from int) (int, bool) {
	for level := range levels {
		lines, l := m.form(level), levels[level](line)
		for i := from; i < len(lines); i++ {
			if lines[i] == l {
				return i, true
			}
		}
	}
	return 0, false
}
