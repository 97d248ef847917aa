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

// isInvisible reports runes that render as nothing or reorder text: Unicode
// format characters (Cf: bidi embeddings, overrides and isolates, zero-width
// space and joiners, the BOM, soft hyphen, tag characters), the line and
// paragraph separators, and variation selectors other than the two emoji
// presentation selectors (the supplement range is used to smuggle data).
func isInvisible(r rune) bool {
	switch {
	case r == 0xfe0e || r == 0xfe0f:
		return false
	case r >= 0xfe00 && r <= 0xfe0d, r >= 0xe0100 && r <= 0xe01ef:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0: // Hangul fillers
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

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
