package searchreplace

import (
	"fmt"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// edit is the changeset.Edit of one file: its blocks, applied in order.
type edit struct {
	path   string
	blocks []block
}

// Apply replaces, block by block, the one place where the SEARCH text is
// in the file as the blocks before it left it. It never modifies base.
func (e *edit) Apply(base []byte) ([]byte, error) {
	t, err := e.apply(splitText(base), e.blocks)
	if err != nil {
		return nil, err
	}
	return t.bytes(), nil
}

func (e *edit) apply(t text, blocks []block) (text, error) {
	lines := t.lines
	for _, b := range blocks {
		where := ""
		if b.n > 1 {
			where = " as the blocks before it left it"
		}
		if len(b.search) == 0 {
			return t, e.refuse(b, "search for the lines the new text follows, and repeat them in REPLACE", "the SEARCH text is empty")
		}
		at := find(lines, b.search, exact)
		switch {
		case len(at) == 0:
			loose := ""
			if near := find(lines, b.search, strings.TrimSpace); len(near) > 0 {
				loose = fmt.Sprintf("; ignoring whitespace, it is at %s", lineList(near))
			}
			return t, e.refuse(b, "copy the SEARCH text from the current file, exactly, whitespace included",
				"the SEARCH text (%s) is not in the file%s%s", count(len(b.search), "line"), where, loose)
		case len(at) > 1:
			return t, e.refuse(b, "add lines around the SEARCH text so that it matches one place",
				"the SEARCH text (%s) is in the file %d times%s, at %s", count(len(b.search), "line"), len(at), where, lineList(at))
		}
		out := make([]string, 0, len(lines)-len(b.search)+len(b.replace))
		out = append(out, lines[:at[0]]...)
		out = append(out, b.replace...)
		out = append(out, lines[at[0]+len(b.search):]...)
		lines = out
	}
	t.lines = lines
	return t, nil
}

func (e *edit) refuse(b block, hint, format string, args ...any) *refusal.Error {
	return refuse(b.line, hint, "block %d of %s: "+format, append([]any{b.n, changeset.Quote(e.path)}, args...)...)
}

func exact(s string) string { return s }

// find returns every index where pattern starts in lines, comparing lines
// through fold.
func find(lines, pattern []string, fold func(string) string) []int {
	var at []int
	for i := 0; i+len(pattern) <= len(lines); i++ {
		ok := true
		for j, p := range pattern {
			if fold(lines[i+j]) != fold(p) {
				ok = false
				break
			}
		}
		if ok {
			at = append(at, i)
		}
	}
	return at
}

// lineList names 0-based indexes as 1-based lines: "line 4", "lines 4 and
// 9", "lines 4, 9 and 14", at most five of them.
func lineList(at []int) string {
	var ns []string
	for i, a := range at {
		if i == 5 {
			ns[len(ns)-1] += fmt.Sprintf(" (and %d more)", len(at)-5)
			break
		}
		ns = append(ns, fmt.Sprint(a+1))
	}
	switch len(ns) {
	case 1:
		return "line " + ns[0]
	}
	return "lines " + strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
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

// bytes joins the lines with the file's line ending, ending the last one
// with it if the file did.
func (t text) bytes() []byte {
	if len(t.lines) == 0 {
		return []byte{}
	}
	eol := "\n"
	if t.crlf {
		eol = "\r\n"
	}
	s := strings.Join(t.lines, eol)
	if t.finalNL {
		s += eol
	}
	return []byte(s)
}
