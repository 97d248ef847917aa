package searchreplace

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// blocks parses the given blocks of a.go (each a SEARCH and a REPLACE) and
// returns the edit. The first block's SEARCH line is line 3; the next one
// starts 3 + len(search) + len(replace) lines after it (its three markers).
func blocks(t *testing.T, pairs ...[]string) changeset.Edit {
	t.Helper()
	var ls []string
	for i := 0; i < len(pairs); i += 2 {
		ls = append(ls, blk(pairs[i], pairs[i+1])...)
	}
	d, err := parse([]byte(cat(l("a.go", "```"), ls, l("```"))))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return d.Intents[0].Edit
}

func TestEditReplacesTheOnePlace(t *testing.T) {
	for _, tc := range []struct {
		name  string
		base  string
		pairs [][]string
		want  string
	}{
		{"one line", lines("a", "b", "c"), [][]string{l("b"), l("B")}, lines("a", "B", "c")},
		{"several lines, by more lines", lines("a", "b", "c"), [][]string{l("a", "b"), l("1", "2", "3")}, lines("1", "2", "3", "c")},
		{"an empty REPLACE removes the lines", lines("a", "b", "c"), [][]string{l("b"), nil}, lines("a", "c")},
		{"the whole file", lines("a"), [][]string{l("a"), l("z")}, lines("z")},
		{"removing every line leaves an empty file", lines("a"), [][]string{l("a"), nil}, ""},
		{"blocks apply in order, each to the result of the ones before",
			lines("a", "b"), [][]string{l("a"), l("x"), l("x"), l("y")}, lines("y", "b")},
		{"a text that occurs twice is unique once an earlier block changed one",
			lines("x", "x"), [][]string{l("x", "x"), l("x", "y"), l("x"), l("z")}, lines("z", "y")},
		{"whitespace is part of the text", lines("\tx", "x"), [][]string{l("\tx"), l("\ty")}, lines("\ty", "x")},
		{"a file without a final newline keeps it", "a\nb", [][]string{l("b"), l("c", "d")}, "a\nc\nd"},
		{"CRLF files stay CRLF", "a\r\nb\r\n", [][]string{l("a"), l("x", "y")}, "x\r\ny\r\nb\r\n"},
		{"a single empty line", "\n", [][]string{l(""), l("x")}, "x\n"},

		// A SEARCH text that matches one place once whitespace is ignored.
		{"trailing whitespace in the file",
			lines("a  ", "b\t"), [][]string{l("a", "b"), l("A", "B")}, lines("A", "B")},
		{"missing indentation: the replacement is indented alike",
			lines("func f() {", "\tif x {", "\t\ty()", "\t}", "}"), [][]string{l("if x {", "\ty()", "}"), l("if x {", "\tz()", "", "}")},
			lines("func f() {", "\tif x {", "\t\tz()", "", "\t}", "}")},
		{"extra indentation: the replacement loses it alike",
			lines("f()", "g()"), [][]string{l("    g()"), l("    h()", "    i()")}, lines("f()", "h()", "i()")},
		{"indentation that differs from line to line: the replacement as written",
			lines("a", "\tif x {", "\t\ty()", "\t}"), [][]string{l("if x {", "    y()", "}"), l("z")}, lines("a", "z")},
		{"blank lines around the SEARCH text, and around the REPLACE text",
			lines("a", "b", "c"), [][]string{l("", "b", ""), l("", "B", "")}, lines("a", "B", "c")},
		{"blank lines around the SEARCH text only",
			lines("a", "b", "c"), [][]string{l("", "b"), l("B1", "B2")}, lines("a", "B1", "B2", "c")},
		{"an exact match wins over a loose one",
			lines("x ", "x"), [][]string{l("x"), l("y")}, lines("x ", "y")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := []byte(tc.base)
			keep := bytes.Clone(base)
			got, err := blocks(t, tc.pairs...).Apply(base)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if !bytes.Equal(base, keep) {
				t.Error("Apply modified its input")
			}
		})
	}
}

func TestEditRefusesWithLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		base  string
		pairs [][]string
		text  string
		hint  string
	}{
		{"a text that is not in the file",
			lines("a", "b"), [][]string{l("c", "d"), l("x")},
			`search-replace line 3: block 1 of "a.go": the SEARCH text (2 lines) is not in the file`,
			"copy the SEARCH text from the current file, exactly, whitespace included"},
		{"a part of a line is not a line",
			lines("foo()"), [][]string{l("foo"), l("bar")},
			`search-replace line 3: block 1 of "a.go": the SEARCH text (1 line) is not in the file`, ""},
		{"twice once whitespace is ignored, every place named",
			lines(" x", "a", "\tx"), [][]string{l("x"), l("y")},
			`search-replace line 3: block 1 of "a.go": the SEARCH text (1 line) is in the file 2 times, ignoring whitespace around lines, at lines 1 and 3`, ""},
		{"twice once blank lines around it are ignored",
			lines("a", "x", "b", "x"), [][]string{l("", "x", ""), l("y")},
			`search-replace line 3: block 1 of "a.go": the SEARCH text (3 lines) is in the file 2 times, ignoring blank lines around the text, at lines 2 and 4`, ""},
		{"a text that occurs twice",
			lines("x", "a", "x", "b"), [][]string{l("x"), l("y")},
			`search-replace line 3: block 1 of "a.go": the SEARCH text (1 line) is in the file 2 times, at lines 1 and 3`,
			"add lines around the SEARCH text so that it matches one place"},
		{"a text that occurs many times",
			strings.Repeat("x\n", 7), [][]string{l("x"), l("y")},
			`search-replace line 3: block 1 of "a.go": the SEARCH text (1 line) is in the file 7 times, at lines 1 to 7`, ""},
		{"a later block, against the file as the earlier ones left it",
			lines("a", "b"), [][]string{l("a"), l("b"), l("b"), l("c")},
			`search-replace line 8: block 2 of "a.go": the SEARCH text (1 line) is in the file 2 times as the blocks before it left it, at lines 1 and 2`, ""},
		{"a later block whose text an earlier block removed",
			lines("a", "b"), [][]string{l("a", "b"), l("c"), l("a"), l("d")},
			`search-replace line 9: block 2 of "a.go": the SEARCH text (1 line) is not in the file as the blocks before it left it`, ""},
		{"an empty file", "", [][]string{l("a"), l("b")},
			`search-replace line 3: block 1 of "a.go": the SEARCH text (1 line) is not in the file`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := blocks(t, tc.pairs...).Apply([]byte(tc.base))
			if err == nil {
				t.Fatalf("applied: %q, want refused with %q", got, tc.text)
			}
			var e *refusal.Error
			if !errors.As(err, &e) || e.Class != refusal.Invalid {
				t.Fatalf("refusal %#v is not an Invalid *refusal.Error", err)
			}
			if e.Text != tc.text {
				t.Errorf("text %q\nwant %q", e.Text, tc.text)
			}
			if tc.hint != "" && e.Hint != tc.hint {
				t.Errorf("hint %q\nwant %q", e.Hint, tc.hint)
			}
		})
	}
}

// mapBase is a changeset.Base over a map of path to bytes.
type mapBase map[string][]byte

func (m mapBase) Entry(p changeset.Path) (changeset.Entry, error) {
	if b, ok := m[string(p)]; ok {
		return changeset.Entry{Kind: changeset.File, Mode: changeset.ModeFile, Bytes: b}, nil
	}
	for k := range m {
		if strings.HasPrefix(k, string(p)+"/") {
			return changeset.Entry{Kind: changeset.Dir, Mode: changeset.ModeDir}, nil
		}
	}
	return changeset.Entry{Kind: changeset.Absent}, nil
}

func resolve(t *testing.T, input string, tree map[string][]byte) ([]changeset.Change, error) {
	t.Helper()
	d, err := parse([]byte(input))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	changes, _, err := changeset.Resolve(d, mapBase(tree), changeset.Policy{Allow: []string{"**"}})
	return changes, err
}

func TestResolve(t *testing.T) {
	tree := map[string][]byte{"a.go": []byte(lines("package a", "", "func A() {}")), "b.go": []byte(lines("package b"))}

	t.Run("edits and creates, each file once", func(t *testing.T) {
		input := cat(
			fenced("a.go", l("func A() {}"), l("func A() int { return 1 }")),
			fenced("c/new.go", nil, l("package c")),
			fenced("a.go", l("package a"), l("// Package a is new.", "package a")),
		)
		changes, err := resolve(t, input, tree)
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != 2 {
			t.Fatalf("%d changes", len(changes))
		}
		if c := changes[0]; c.Kind != changeset.Update || c.Path != "a.go" || string(c.After.Bytes) != lines("// Package a is new.", "package a", "", "func A() int { return 1 }") {
			t.Errorf("a.go: %s %q", c.Kind, c.After.Bytes)
		}
		if c := changes[1]; c.Kind != changeset.Create || c.Path != "c/new.go" || string(c.After.Bytes) != lines("package c") {
			t.Errorf("c/new.go: %s %q", c.Kind, c.After.Bytes)
		}
	})
	t.Run("an empty SEARCH on an existing file is refused, not appended", func(t *testing.T) {
		_, err := resolve(t, cat(fenced("b.go", nil, l("func B() {}"))), tree)
		if refusal.ClassOf(err) != refusal.NotAllowed || err.Error() != `search-replace line 1: path "b.go" already exists · propose an update of the file instead` {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a SEARCH in a missing file is refused", func(t *testing.T) {
		_, err := resolve(t, cat(fenced("z.go", l("x"), l("y"))), tree)
		if refusal.ClassOf(err) != refusal.NotAllowed || !strings.HasPrefix(err.Error(), `search-replace line 1: path "z.go" does not exist`) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a refusal of one block refuses every file", func(t *testing.T) {
		changes, err := resolve(t, cat(fenced("a.go", l("package a"), l("package aa")), fenced("b.go", l("nope"), l("x"))), tree)
		if err == nil || changes != nil || err.Error() != `search-replace line 11: block 1 of "b.go": the SEARCH text (1 line) is not in the file · copy the SEARCH text from the current file, exactly, whitespace included` {
			t.Fatalf("got %v, %v", changes, err)
		}
	})
}
