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
	n        int  // 1-based index of the hunk in its file
	line     int  // input line of the @@ header
	numbered bool // false for "@@ ... @@": the hunk is placed by its text alone
	oldStart int
	oldCount int
	newStart int
	newCount int
	context  int // context lines
	leading  int // context lines before the first - or + line
	trailing int // context lines after the last - or + line
	old, new [][]byte
}

type entry struct {
	kind byte // ' ', '-' or '+'
	text []byte
	line int
}

// hunk reads the hunk whose header is at p.i.
func (p *parser) hunk(n int, name string) (*hunk, error) {
	h := &hunk{n: n, line: p.i + 1}
	numbered, err := h.parseHeader(p.header(p.i))
	if err != nil {
		return nil, refuse(refusal.Invalid, h.line, "write hunk headers as @@ -<line>,<count> +<line>,<count> @@",
			"hunk %d of %s has a malformed header: %v", n, name, err)
	}
	h.numbered = numbered
	p.i++
	var es []entry
	if numbered {
		if es, err = p.countedBody(h, name); err != nil {
			return nil, err
		}
	} else {
		es = p.openBody()
	}
	changed := false
	for _, e := range es {
		if e.kind != '+' {
			h.old = append(h.old, e.text)
		}
		if e.kind != '-' {
			h.new = append(h.new, e.text)
		}
		if e.kind == ' ' {
			h.context++
			if !changed {
				h.leading++
			}
			h.trailing++
		} else {
			changed = true
			h.trailing = 0
		}
	}
	if !changed {
		return nil, refuse(refusal.Invalid, h.line, "give the hunk the lines it removes (-) and adds (+), or drop it",
			"hunk %d of %s changes no line: it holds only context", n, name)
	}
	if !numbered {
		h.oldCount, h.newCount = len(h.old), len(h.new)
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

// countedBody reads the lines of a numbered hunk: exactly as many as its
// header counts, and the "\ No newline" markers among them.
func (p *parser) countedBody(h *hunk, name string) ([]entry, error) {
	n := h.n
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
	if p.i < len(p.lines) && !p.sectionStart(p.i) {
		switch t := p.header(p.i); {
		case t == "--" || t == "-- ":
			// a mail's signature, as git format-patch writes it
		case t != "" && (t[0] == '+' || t[0] == '-' || t[0] == ' '):
			return nil, refuse(refusal.Invalid, p.i+1, "make the hunk's lines agree with the counts in its @@ header",
				"hunk %d of %s has more lines than its header %s counts", n, name, h.spec())
		}
	}
	return es, nil
}

// openBody reads the lines of an unnumbered hunk: every line that starts
// with ' ', '-', '+' or '\', up to the next hunk or file section. An empty
// line is an empty context line when more lines of the hunk follow it;
// empty lines at its end separate it from what comes next.
func (p *parser) openBody() []entry {
	var es []entry
	blank := 0 // empty lines read but not yet kept
	for p.i < len(p.lines) && !p.sectionStart(p.i) {
		l := p.lines[p.i]
		t := p.header(p.i)
		if t == "--" || t == "-- " {
			break // a mail's signature
		}
		if t == "" {
			blank++
			p.i++
			continue
		}
		kind := l[0]
		if kind != ' ' && kind != '-' && kind != '+' && kind != '\\' {
			break
		}
		for ; blank > 0; blank-- {
			es = append(es, entry{' ', []byte("\n"), p.i - blank + 1})
		}
		text := l[1:]
		if !bytes.HasSuffix(text, []byte("\n")) {
			text = append(bytes.Clone(text), '\n')
		}
		if kind == '\\' {
			if len(es) > 0 {
				last := &es[len(es)-1]
				last.text = bytes.TrimSuffix(last.text, []byte("\n"))
			}
		} else {
			es = append(es, entry{kind, text, p.i + 1})
		}
		p.i++
	}
	p.i -= blank // trailing empty lines belong to what follows
	return es
}

// sectionStart reports whether line i starts a new hunk or file section.
func (p *parser) sectionStart(i int) bool {
	t := p.header(i)
	return isHunkHeader(t) || strings.HasPrefix(t, "diff ") || p.isPlainHeader(i)
}

// isHunkHeader reports a line that opens a hunk: "@@ -…", or "@@" alone or
// followed by a space.
func isHunkHeader(t string) bool {
	return t == "@@" || strings.HasPrefix(t, "@@ ")
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

// parseHeader reads a hunk header. It reports false for the unnumbered
// headers that models write ("@@ ... @@", "@@ @@", "@@"): the text between
// the two @@ holds no digit.
func (h *hunk) parseHeader(t string) (numbered bool, err error) {
	inner := strings.TrimPrefix(t, "@@")
	if i := strings.Index(inner, "@@"); i >= 0 {
		inner = inner[:i]
	}
	switch strings.TrimSpace(inner) {
	case "", "...", "…", "-... +...", "-…+…", "-… +…":
		return false, nil
	}
	rest, ok := strings.CutPrefix(t, "@@ -")
	if !ok {
		return true, fmt.Errorf("it does not start with @@ -")
	}
	oldSpec, rest, ok := strings.Cut(rest, " +")
	if !ok {
		return true, fmt.Errorf("it has no +<line>")
	}
	newSpec, _, ok := strings.Cut(rest, " @@")
	if !ok {
		return true, fmt.Errorf("it does not end with @@")
	}
	if h.oldStart, h.oldCount, err = rangeSpec(oldSpec); err != nil {
		return true, err
	}
	if h.newStart, h.newCount, err = rangeSpec(newSpec); err != nil {
		return true, err
	}
	if (h.oldStart == 0 && h.oldCount != 0) || (h.newStart == 0 && h.newCount != 0) {
		return true, fmt.Errorf("line 0 holds no lines")
	}
	if h.oldCount == 0 && h.newCount == 0 {
		return true, fmt.Errorf("it changes no line")
	}
	return true, nil
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

// edit is the Edit of a modified, renamed or copied file: its hunks, in
// order.
type edit struct {
	name  string
	hunks []*hunk
	zero  bool // the diff reads as git apply --unidiff-zero reads it (see detectZero)
}

func (e *edit) Apply(base []byte) ([]byte, error) { return applyHunks(base, e.hunks, e.name, e.zero) }

// imgLine is one line of the image: its bytes, whether a hunk wrote it
// (git apply's patched lines, which a later hunk may not match), and the
// base line it is (-1 for a line a hunk wrote).
type imgLine struct {
	b       []byte
	patched bool
	orig    int
}

// image is the file as the hunks applied so far left it, as git apply
// keeps it: the lines before a cursor, built (head), then the base's lines
// from the cursor on, untouched. Hunks in the file's order only move the
// cursor forward, so a diff costs time linear in the file and the diff; a
// hunk before the cursor rewrites the head.
type image struct {
	head []imgLine
	orig [][]byte
	tail int // the base index of the first line after head
}

func newImage(base []byte) *image { return &image{orig: splitLines(base)} }

func (im *image) size() int { return len(im.head) + len(im.orig) - im.tail }

// at is image line i.
func (im *image) at(i int) imgLine {
	if i < len(im.head) {
		return im.head[i]
	}
	o := im.tail + i - len(im.head)
	return imgLine{b: im.orig[o], orig: o}
}

// texts lists the bytes of every image line.
func (im *image) texts() [][]byte {
	out := make([][]byte, 0, im.size())
	for _, l := range im.head {
		out = append(out, l.b)
	}
	return append(out, im.orig[im.tail:]...)
}

// bytes renders the image, refusing to join a line without newline to
// the next one.
func (im *image) bytes(h *hunk, name string) ([]byte, error) {
	out := []byte{}
	for _, b := range im.texts() {
		if len(out) > 0 && out[len(out)-1] != '\n' {
			return nil, refuse(refusal.Invalid, h.line, "rebuild the diff against the current file",
				"hunk %d of %s would join two lines: it leaves a line without newline before others", h.n, name)
		}
		out = append(out, b...)
	}
	return out, nil
}

// replace puts lines in place of the m image lines from i, as patched
// lines.
func (im *image) replace(i, m int, lines [][]byte) {
	if i < len(im.head) {
		// Before the cursor: rebuild the head, taking in the base lines
		// the replaced ones reach past it.
		var rest []imgLine
		if i+m < len(im.head) {
			rest = append(rest, im.head[i+m:]...)
		} else {
			im.tail += i + m - len(im.head)
		}
		im.head = append(im.head[:i:i], patched(lines)...)
		im.head = append(im.head, rest...)
		return
	}
	skip := i - len(im.head) // base lines between the cursor and i
	for o := im.tail; o < im.tail+skip; o++ {
		im.head = append(im.head, imgLine{b: im.orig[o], orig: o})
	}
	im.tail += skip + m
	im.head = append(im.head, patched(lines)...)
}

func patched(lines [][]byte) []imgLine {
	out := make([]imgLine, len(lines))
	for k, l := range lines {
		out[k] = imgLine{b: l, patched: true, orig: -1}
	}
	return out
}

// baseLine is the base's index for image line i: its own when a hunk did
// not write it, else counted on from the base line before it.
func (im *image) baseLine(i int) int {
	for k := i; k >= 0; k-- {
		if o := im.at(k).orig; o >= 0 {
			return o + i - k
		}
	}
	return i
}

// applyHunks applies hunks in order to base the way git apply does (see
// the package doc), and returns the new bytes.
func applyHunks(base []byte, hunks []*hunk, name string, zero bool) ([]byte, error) {
	im := newImage(base)
	prevEnd := 0 // the image line after the previous hunk, for unnumbered hunks
	for _, h := range hunks {
		var err error
		if prevEnd, err = h.place(im, prevEnd, name, zero); err != nil {
			return nil, err
		}
	}
	if len(hunks) == 0 {
		return append([]byte{}, base...), nil
	}
	return im.bytes(hunks[len(hunks)-1], name)
}

// place finds where h applies in im, puts it there, and returns the image
// line after what it wrote.
func (h *hunk) place(im *image, prevEnd int, name string, zero bool) (int, error) {
	hint := "rebuild the diff against the current file"
	m := len(h.old)
	size := im.size()
	matchBeginning := h.numbered && (h.oldStart == 0 || (h.oldStart == 1 && !zero))
	matchEnd := h.numbered && !zero && h.trailing == 0
	take := func(i int) (int, error) {
		im.replace(i, m, h.new)
		return i + len(h.new), nil
	}
	if m == 0 {
		// A pure insertion goes where its header says (git's new line,
		// in the image as the hunks before it left it).
		var i int
		switch {
		case !h.numbered:
			if size > 0 {
				return 0, refuse(refusal.Invalid, h.line, "give the hunk line numbers, or context lines that say where it goes",
					"hunk %d of %s only adds lines, and without line numbers nothing says where", h.n, name)
			}
		case matchBeginning:
			if matchEnd && size > 0 && h.oldStart == 0 {
				return 0, refuse(refusal.Invalid, h.line, "propose the new lines as an update of the file's current lines",
					"hunk %d of %s creates the file's content (@@ -0,0), but the file is not empty (%s)", h.n, name, plural(size, "line"))
			}
			if matchEnd && size > 0 {
				return 0, refuse(refusal.Invalid, h.line, "give the hunk context lines, or write a diff with git diff",
					"hunk %d of %s adds lines at line %d with no context around them, so it must be the whole file, but the file has %s", h.n, name, h.oldStart, plural(size, "line"))
			}
		case matchEnd:
			i = size
		default:
			i = min(max(h.newStart-1, 0), size)
		}
		return take(i)
	}
	// fits reports whether h's old lines match image lines from i, none
	// of them patched, at the start or the end where h must be.
	fits := func(i int) bool {
		if i < 0 || i+m > size || (matchBeginning && i != 0) || (matchEnd && i+m != size) {
			return false
		}
		for k := 0; k < m; k++ {
			if im.at(i + k).patched {
				return false
			}
		}
		for k, l := range h.old[:m-1] {
			if !bytes.Equal(im.at(i+k).b, l) {
				return false
			}
		}
		return lastMatches(im.at(i+m-1).b, h.old[m-1], matchEnd)
	}
	if h.numbered {
		// git starts at the hunk's new line in the image, and so does
		// nika. A hunk that leaves no new line (+N,0) names the line
		// before it: git finds it one line on, nearest first.
		pos := 0
		switch {
		case h.newCount == 0:
			pos = h.newStart
		case h.newStart > 0:
			pos = h.newStart - 1
		}
		switch {
		case matchBeginning:
			pos = 0
		case matchEnd:
			pos = size - m
		}
		pos = min(max(pos, 0), size)
		tries := []int{pos}
		if h.newCount == 0 && pos > 0 && !matchBeginning && !matchEnd {
			// git tries the line before first, and nika as git does.
			tries = []int{pos - 1, pos}
		}
		for _, p := range tries {
			if fits(p) {
				return take(p)
			}
		}
	}
	all := h.occurrences(im.texts(), matchEnd)
	var found []int
	for _, i := range all {
		if fits(i) {
			found = append(found, i)
		}
	}
	if !h.numbered && len(found) > 1 {
		// An unnumbered hunk comes after the one before it, when that
		// says which place it means.
		var after []int
		for _, i := range found {
			if i >= prevEnd {
				after = append(after, i)
			}
		}
		if len(after) == 1 {
			found = after
		}
	}
	these, are := "these "+plural(m, "line"), "are"
	if m == 1 {
		these, are = "this line", "is"
	}
	// Line numbers in refusals are the base's: image lines a hunk did
	// not write are base lines.
	lines := func(is []int) string {
		var os []int
		for _, i := range is {
			os = append(os, im.baseLine(i))
		}
		return lineList(os)
	}
	switch {
	case len(found) == 1:
		return take(found[0])
	case len(found) > 1 && h.numbered:
		return 0, refuse(refusal.Invalid, h.line, "add context lines to the hunk so that it matches one place",
			"hunk %d of %s: %s %s at %s of the file, not at line %d as its header says",
			h.n, name, these, are, lines(found), h.oldStart)
	case len(found) > 1:
		return 0, refuse(refusal.Invalid, h.line, "add context lines to the hunk, or line numbers to its header, so that it matches one place",
			"hunk %d of %s has no line numbers, and %s %s at %s of the file",
			h.n, name, these, are, lines(found))
	}
	// Nowhere: say why, when the lines are in the file after all.
	var loose, overlapping []int
	for _, i := range all {
		free := true
		for k := 0; k < m; k++ {
			free = free && !im.at(i+k).patched
		}
		if free {
			loose = append(loose, i)
		} else {
			overlapping = append(overlapping, i)
		}
	}
	switch {
	case len(loose) > 0 && matchBeginning && matchEnd:
		return 0, refuse(refusal.Invalid, h.line, hint,
			"hunk %d of %s: %s %s at %s of the file, but the hunk starts at line %d and has no context after its changes, so it must be the whole file",
			h.n, name, these, are, lines(loose), h.oldStart)
	case len(loose) > 0 && matchBeginning:
		return 0, refuse(refusal.Invalid, h.line, hint,
			"hunk %d of %s: %s %s at %s of the file, but the hunk starts at line %d, so it must match the start of the file",
			h.n, name, these, are, lines(loose), h.oldStart)
	case len(loose) > 0 && matchEnd:
		return 0, refuse(refusal.Invalid, h.line, hint,
			"hunk %d of %s: %s %s at %s of the file, but the hunk has no context after its changes, so it must match the end of the file",
			h.n, name, these, are, lines(loose))
	case len(overlapping) > 0:
		return 0, refuse(refusal.Invalid, h.line, hint,
			"hunk %d of %s: %s %s in the file only at %s, where an earlier hunk already changes it",
			h.n, name, these, are, lines(overlapping))
	}
	if len(h.new) > 0 {
		// A diff applied once already, in part or whole: say where its
		// result is.
		if done := occurrences(im.texts(), h.new); len(done) > 0 {
			return 0, refuse(refusal.Invalid, h.line, "drop the hunks the file already holds, or rebuild the diff against the current file",
				"hunk %d of %s: %s %s not in the file, but the lines the hunk leaves are, at %s: the file may hold this change already", h.n, name, these, are, lines(done))
		}
	}
	return 0, refuse(refusal.Invalid, h.line, hint, "hunk %d of %s: %s %s not in the file", h.n, name, these, are)
}

// lastMatches compares a hunk's last old line with a line of the file, as
// git apply compares them: exactly, except that a line marked "\ No
// newline at end of file" also matches a line that goes on with only
// whitespace and its newline, unless the hunk must end the file.
func lastMatches(line, old []byte, atEnd bool) bool {
	if bytes.Equal(line, old) {
		return true
	}
	if atEnd || bytes.HasSuffix(old, []byte("\n")) || !bytes.HasPrefix(line, old) {
		return false
	}
	for _, c := range line[len(old):] {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// occurrences lists where h's old lines occur in lines, its last line
// compared as lastMatches compares it.
func (h *hunk) occurrences(lines [][]byte, atEnd bool) []int {
	m := len(h.old)
	last := h.old[m-1]
	if bytes.HasSuffix(last, []byte("\n")) {
		return occurrences(lines, h.old)
	}
	var heads []int
	if m == 1 {
		for i := range lines {
			heads = append(heads, i)
		}
	} else {
		heads = occurrences(lines, h.old[:m-1])
	}
	var out []int
	for _, o := range heads {
		if o+m <= len(lines) && lastMatches(lines[o+m-1], last, atEnd) {
			out = append(out, o)
		}
	}
	return out
}

// occurrences lists every index where needle occurs in hay, line by line,
// in time linear in both (Knuth-Morris-Pratt over line ids).
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

// lineList renders 0-based positions as 1-based lines, every one of them,
// with runs of three or more written as ranges: "4 and 9", "4, 9 and 12",
// "1 to 7".
func lineList(ps []int) string {
	var ss []string
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if j-i >= 2 {
			ss = append(ss, fmt.Sprintf("%d to %d", ps[i]+1, ps[j]+1))
		} else {
			for k := i; k <= j; k++ {
				ss = append(ss, strconv.Itoa(ps[k]+1))
			}
		}
		i = j + 1
	}
	if len(ss) == 1 {
		if len(ps) == 1 {
			return "line " + ss[0]
		}
		return "lines " + ss[0]
	}
	return "lines " + strings.Join(ss[:len(ss)-1], ", ") + " and " + ss[len(ss)-1]
}

// deletion is the Edit of a deleted file. It witnesses what the diff says it
// removes: the whole old content when the diff has hunks, or the git blob
// id of the index line when it has none, or else that the file is empty
// (git apply refuses to delete a file with content that the diff never
// showed). Apply returns nil bytes, the file's absence, or refuses.
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
	switch {
	case d.whole:
		if !bytes.Equal(base, d.old) {
			return nil, refuse(refusal.Invalid, d.line, hint,
				"the diff deletes %s, but the file holds other bytes than the %s it removes",
				d.name, plural(d.lines, "line"))
		}
	case d.blob != "":
		if !blobMatches(base, d.blob) {
			id := gitBlobID(sha1.New(), base)
			return nil, refuse(refusal.Invalid, d.line, hint,
				"the diff deletes %s as blob %s, but the file is blob %s", d.name, d.blob, id[:min(len(id), max(len(d.blob), 7))])
		}
	case len(base) > 0:
		return nil, refuse(refusal.Invalid, d.line, "give the deletion the lines it removes, as git diff writes them",
			"the diff deletes %s without showing its content, and the file is not empty (%s)", d.name, plural(len(splitLines(base)), "line"))
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
