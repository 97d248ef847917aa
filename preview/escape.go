package preview

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// hidden counts the bytes of one line (or one file) that a terminal would
// not show as themselves, by kind. Rendering escapes every one of them, so
// that no byte of proposed content can reach the terminal raw and act on it
// (an escape sequence, a carriage return that overwrites the line, a bidi
// override that reorders it) or hide from the reader (a zero-width or tag
// character).
type hidden struct {
	control   int // C0 and C1 controls except tab, and DEL; CR counts here
	invalid   int // bytes that are not valid UTF-8
	invisible int // format characters: bidi controls, zero-width, tags, BOM, separators
}

func (h hidden) any() bool { return h.control+h.invalid+h.invisible > 0 }

func (h *hidden) add(o hidden) {
	h.control += o.control
	h.invalid += o.invalid
	h.invisible += o.invisible
}

// String is the flag a human reads, e.g. "1 control character, 2 invalid
// UTF-8 bytes".
func (h hidden) String() string {
	var parts []string
	plural := func(n int, one, many string) {
		if n == 1 {
			parts = append(parts, "1 "+one)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	plural(h.control, "control character", "control characters")
	plural(h.invalid, "invalid UTF-8 byte", "invalid UTF-8 bytes")
	plural(h.invisible, "invisible format character", "invisible format characters")
	return strings.Join(parts, ", ")
}

// isInvisible reports runes that render as nothing, or reorder or
// disguise text: every Default_Ignorable_Code_Point of Unicode (zero-width
// characters and joiners, the soft hyphen, the combining grapheme joiner,
// Mongolian and Khmer fillers and selectors, variation selectors, the tag
// characters, Hangul fillers, the BOM), every other format character (Cf:
// bidi embeddings, overrides and isolates, the Arabic letter mark), and the
// line and paragraph separators. `isAdmin` and `isAdmin` followed by U+034F
// look alike and are different identifiers, so each is shown escaped.
func isInvisible(r rune) bool {
	return r == 0x2028 || r == 0x2029 || isDefaultIgnorable(r) || unicode.Is(unicode.Cf, r)
}

// defaultIgnorable is Unicode's Default_Ignorable_Code_Point property
// (DerivedCoreProperties.txt, Unicode 15.1), as code point ranges.
var defaultIgnorable = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x00ad, 0x00ad, 1},
		{0x034f, 0x034f, 1},
		{0x061c, 0x061c, 1},
		{0x115f, 0x1160, 1},
		{0x17b4, 0x17b5, 1},
		{0x180b, 0x180f, 1},
		{0x200b, 0x200f, 1},
		{0x202a, 0x202e, 1},
		{0x2060, 0x206f, 1},
		{0x3164, 0x3164, 1},
		{0xfe00, 0xfe0f, 1},
		{0xfeff, 0xfeff, 1},
		{0xffa0, 0xffa0, 1},
		{0xfff0, 0xfff8, 1},
	},
	R32: []unicode.Range32{
		{0x1bca0, 0x1bca3, 1},
		{0x1d173, 0x1d17a, 1},
		{0xe0000, 0xe0fff, 1},
	},
}

func isDefaultIgnorable(r rune) bool { return unicode.Is(defaultIgnorable, r) }

// isControl reports C0 and C1 controls and DEL; tab and newline are not
// included (tab is shown as is; newline ends a line and is never inside one).
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

// scan counts the hidden bytes of s.
func scan(s string) hidden {
	var h hidden
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			h.invalid++
		case isControl(r):
			h.control++
		case isInvisible(r):
			h.invisible++
		}
		i += n
	}
	return h
}

// escapeLine renders the content of one line of a file whose hidden
// characters h.any() reports. Every hidden character becomes a C-style
// escape: \r, \xNN for a control byte below 0x80 or an invalid UTF-8 byte
// (always 0x80 or above), \uNNNN or \UNNNNNNNN for a C1 control or an
// invisible character. So that the escapes are unambiguous, a literal
// backslash in such a line is shown doubled. mark wraps each escape (reverse
// video when color is on).
func escapeLine(s string, on, off string) string {
	var b strings.Builder
	esc := func(t string) {
		b.WriteString(on)
		b.WriteString(t)
		b.WriteString(off)
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			esc(fmt.Sprintf(`\x%02x`, s[i]))
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\r':
			esc(`\r`)
		case r < 0x80 && isControl(r):
			esc(fmt.Sprintf(`\x%02x`, r))
		case isControl(r) || (isInvisible(r) && r <= 0xffff):
			esc(fmt.Sprintf(`\u%04x`, r))
		case isInvisible(r):
			esc(fmt.Sprintf(`\U%08x`, r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// safe renders a one-line field (a goal, a branch name, a finding message)
// for the terminal: printable text as is; any hidden character, and a
// newline, escaped as in escapeLine. A literal backslash is doubled only when
// something else had to be escaped.
func safe(s string) string {
	h := scan(s)
	if !h.any() && !strings.Contains(s, "\n") {
		return s
	}
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteString(`\n`)
		}
		b.WriteString(escapeLine(line, "", ""))
	}
	return b.String()
}

// Escape renders a one-line string that came from outside nika (a goal, a
// path, a branch name, a model's or a remote's error text) for a terminal:
// printable text as is; every control character, escape sequence, bidi
// control and invisible code point, and a newline, as a visible escape.
// It is the one escaper of every door (DESIGN.md, law 9).
func Escape(s string) string { return safe(s) }

// EscapeText renders text of many lines that came from outside nika (a
// model's reply, a hook's or a runner's output) for a terminal: lines stay
// lines (CRLF is read as a line end), and within each line every hidden
// character is shown escaped as in Escape. A line with nothing to escape is
// shown as it is.
func EscapeText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !scan(s).any() {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if scan(l).any() {
			lines[i] = escapeLine(l, "", "")
		}
	}
	return strings.Join(lines, "\n")
}

// HiddenLines lists the 1-based lines of b that hold a character the
// preview shows escaped, and how many such characters there are in all.
func HiddenLines(b []byte) (lines []int, count int) {
	line := 1
	start := 0
	for i := 0; i <= len(b); i++ {
		if i == len(b) || b[i] == '\n' {
			h := scan(string(b[start:i]))
			if n := h.control + h.invalid + h.invisible; n > 0 {
				lines = append(lines, line)
				count += n
			}
			line++
			start = i + 1
		}
	}
	return lines, count
}
