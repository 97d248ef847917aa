package searchreplace

import (
	"fmt"
	"strings"
	"unicode"

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
		m := match(lines, b)
		switch {
		case len(m.at) == 0:
			return t, e.refuse(b, "copy the SEARCH text from the current file, exactly, whitespace included",
				"the SEARCH text (%s) is not in the file%s", count(len(b.search), "line"), where)
		case len(m.at) > 1:
			return t, e.refuse(b, "add lines around the SEARCH text so that it matches one place",
				"the SEARCH text (%s) is in the file %d times%s%s, at %s", count(len(b.search), "line"), len(m.at), m.level, where, lineList(m.at))
		}
		at, n := m.at[0], len(m.search)
		replace := m.replacement(lines[at:at+n], b.replace)
		out := make([]string, 0, len(lines)-n+len(replace))
		out = append(out, lines[:at]...)
		out = append(out, replace...)
		out = append(out, lines[at+n:]...)
		lines = out
	}
	t.lines = lines
	return t, nil
}

// A found is where a block's SEARCH text matched, and how.
type found struct {
	at     []int    // the places, at the strictest way that finds any
	search []string // the SEARCH lines that matched (edge blank lines may be dropped)
	level  string   // "" for an exact match; else what was ignored ("ignoring …"), for a refusal
	fold   int      // which of folds matched
	// the blank lines dropped from the start and end of the SEARCH text
	dropHead, dropTail int
}

// folds are the ways of comparing lines, strictest first: exactly, then
// ignoring trailing whitespace, then ignoring leading and trailing
// whitespace.
var folds = []func(string) string{
	func(s string) string { return s },
	func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) },
	strings.TrimSpace,
}

// match finds a block's SEARCH text in lines: exactly; then ignoring
// trailing whitespace; then ignoring leading whitespace too; then each of
// those again without the blank lines at the start and the end of the
// SEARCH text. The first way that finds anything decides, so a looser way
// never overrides a stricter one, and it must find one place.
func match(lines []string, b block) found {
	head, tail := edgeBlanks(b.search)
	tries := []found{{search: b.search}}
	if (head > 0 || tail > 0) && head < len(b.search) {
		tries = append(tries, found{search: b.search[head : len(b.search)-tail], dropHead: head, dropTail: tail})
	}
	for _, f := range tries {
		for level, fold := range folds {
			if at := find(lines, f.search, fold); len(at) > 0 {
				f.at, f.fold = at, level
				var ignored []string
				if level == 1 {
					ignored = append(ignored, "trailing whitespace")
				}
				if level == 2 {
					ignored = append(ignored, "whitespace around lines")
				}
				if f.dropHead > 0 || f.dropTail > 0 {
					ignored = append(ignored, "blank lines around the text")
				}
				if len(ignored) > 0 {
					f.level = ", ignoring " + strings.Join(ignored, " and ")
				}
				return f
			}
		}
	}
	return found{}
}

// edgeBlanks counts the blank lines at the start and the end of ls.
func edgeBlanks(ls []string) (head, tail int) {
	for head < len(ls) && strings.TrimSpace(ls[head]) == "" {
		head++
	}
	for tail < len(ls)-head && strings.TrimSpace(ls[len(ls)-1-tail]) == "" {
		tail++
	}
	return head, tail
}

// replacement is the REPLACE text as it goes into the file at a match. A
// match that ignored indentation re-indents the replacement by the same
// amount, when the file's lines differ from the SEARCH lines by one
// prefix of whitespace throughout (aider's missing leading whitespace);
// blank lines dropped around the SEARCH text are dropped around the
// REPLACE text too, as far as it has them.
func (f found) replacement(matched, replace []string) []string {
	head, tail := edgeBlanks(replace)
	replace = replace[min(head, f.dropHead) : len(replace)-min(tail, f.dropTail, len(replace)-min(head, f.dropHead))]
	if f.fold < 2 {
		return replace
	}
	add, remove, ok := indentDelta(f.search, matched)
	if !ok {
		return replace
	}
	out := make([]string, len(replace))
	for i, l := range replace {
		switch {
		case strings.TrimSpace(l) == "":
			out[i] = l
		case add != "":
			out[i] = add + l
		default:
			out[i] = strings.TrimPrefix(l, remove)
		}
	}
	return out
}

// indentDelta finds the one whitespace prefix that the file's lines have
// in front of the SEARCH lines (add), or that the SEARCH lines have in
// front of the file's (remove), on every line that is not blank.
func indentDelta(search, matched []string) (add, remove string, ok bool) {
	first := true
	for i, s := range search {
		f := matched[i]
		if strings.TrimSpace(s) == "" {
			continue
		}
		ls, lf := leading(s), leading(f)
		var a, r string
		switch {
		case strings.HasPrefix(lf, ls):
			a = lf[len(ls):]
		case strings.HasPrefix(ls, lf):
			r = ls[len(lf):]
		default:
			return "", "", false
		}
		if first {
			add, remove, first = a, r, false
		} else if a != add || r != remove {
			return "", "", false
		}
	}
	return add, remove, !first && (add != "" || remove != "")
}

func leading(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

func (e *edit) refuse(b block, hint, format string, args ...any) *refusal.Error {
	return refuse(b.line, hint, "block %d of %s: "+format, append([]any{b.n, changeset.Quote(e.path)}, args...)...)
}

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
