package searchreplace

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// parse reads an input under the default limit (MaxInput), as the
// package's callers do with ParseLimit.
func parse(input []byte) (*changeset.Draft, error) { return ParseLimit(input, 0) }

// lines joins its arguments with "\n" and ends them with one.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// blk is one block without its path line: SEARCH lines, then REPLACE lines.
func blk(search, replace []string) []string {
	out := []string{"<<<<<<< SEARCH"}
	out = append(out, search...)
	out = append(out, "=======")
	out = append(out, replace...)
	return append(out, ">>>>>>> REPLACE")
}

// fenced is a block as models write it: the path, a fence, the block.
func fenced(path string, search, replace []string) []string {
	out := []string{path, "```go"}
	out = append(out, blk(search, replace)...)
	return append(out, "```")
}

func cat(parts ...[]string) string {
	var all []string
	for _, p := range parts {
		all = append(all, p...)
	}
	return lines(all...)
}

func l(s ...string) []string { return s }

// intent is the visible part of a changeset.Intent.
type intent struct {
	op      changeset.Op
	path    string
	content string // for OpAdd
	line    int
	blocks  int // for OpEdit
}

func view(in changeset.Intent) intent {
	v := intent{op: in.Op, path: in.Path, line: in.Line}
	if in.Op == changeset.OpAdd {
		v.content = string(in.Content)
	}
	if e, ok := in.Edit.(*edit); ok {
		v.blocks = len(e.blocks)
	}
	return v
}

func TestParseReadsBlocks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []intent
	}{
		{"a fenced block with its path on the line before the fence",
			cat(fenced("a.go", l("x"), l("y"))),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 1, blocks: 1}}},
		{"prose around the blocks is ignored",
			cat(l("I will change two files.", ""), fenced("a.go", l("x"), l("y")), l("", "And then:", ""), fenced("b/c.go", l("p"), l("q")), l("", "Done.")),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 3, blocks: 1}, {op: changeset.OpEdit, path: "b/c.go", line: 14, blocks: 1}}},
		{"several blocks of one file become one intent, in the order of first appearance",
			cat(fenced("a.go", l("1"), l("one")), fenced("b.go", l("x"), l("y")), fenced("a.go", l("2"), l("two"))),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 1, blocks: 2}, {op: changeset.OpEdit, path: "b.go", line: 9, blocks: 1}}},
		{"blocks in one fence share the path",
			cat(l("a.go", "```"), blk(l("1"), l("one")), blk(l("2"), l("two")), l("```")),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 1, blocks: 2}}},
		{"a block separated from the previous one by fences only shares its path",
			cat(fenced("a.go", l("1"), l("one")), l("", "```go"), blk(l("2"), l("two")), l("```")),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 1, blocks: 2}}},
		{"the path inside the fence (aider's diff-fenced)",
			cat(l("```go", "a.go"), blk(l("x"), l("y")), l("```")),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 2, blocks: 1}}},
		{"the path on the fence",
			cat(l("```src/a.go"), blk(l("x"), l("y")), l("```")),
			[]intent{{op: changeset.OpEdit, path: "src/a.go", line: 1, blocks: 1}}},
		{"an unfenced block with its path right before",
			cat(l("a.go"), blk(l("x"), l("y"))),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 1, blocks: 1}}},
		{"markdown decoration around the path is dropped",
			cat(fenced("**`docs/a b.md`**:", l("x"), l("y")), fenced("### c.go", l("x"), l("y")), fenced("d.go:", l("x"), l("y"))),
			[]intent{{op: changeset.OpEdit, path: "docs/a b.md", line: 1, blocks: 1}, {op: changeset.OpEdit, path: "c.go", line: 9, blocks: 1}, {op: changeset.OpEdit, path: "d.go", line: 17, blocks: 1}}},
		{"an empty SEARCH creates the file with the REPLACE text",
			cat(fenced("new.txt", nil, l("hello", "", "world"))),
			[]intent{{op: changeset.OpAdd, path: "new.txt", content: "hello\n\nworld\n", line: 1}}},
		{"an empty SEARCH and an empty REPLACE create an empty file",
			cat(fenced("empty.txt", nil, nil)),
			[]intent{{op: changeset.OpAdd, path: "empty.txt", content: "", line: 1}}},
		{"later blocks of a new file edit its new content",
			cat(fenced("new.txt", nil, l("a", "b")), fenced("new.txt", l("b"), l("B"))),
			[]intent{{op: changeset.OpAdd, path: "new.txt", content: "a\nB\n", line: 1}}},
		{"markers with other lengths and whitespace around them",
			lines("a.go", "  <<<<<<<<< SEARCH  ", "x", "=====", "y", "\t>>>>>>> REPLACE"),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 1, blocks: 1}}},
		{"a lone ======= outside any block is prose",
			cat(l("Title", "=======", ""), fenced("a.go", l("x"), l("y"))),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 4, blocks: 1}}},
		{"a ... line between two blocks of one file",
			cat(fenced("a.go", l("1"), l("one")), l("", "..."), l("```go"), blk(l("2"), l("two")), l("```")),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 1, blocks: 2}}},
		{"an ellipsis between two blocks, and one inside a block",
			cat(l("a.go"), blk(l("1"), l("…")), l("…", ""), blk(l("2"), l("two"))),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 1, blocks: 2}}},
		{"the file name in a fence of its own, before the block",
			cat(l("```", "src/a.py", "```", ""), l("```python"), blk(l("x"), l("y")), l("```")),
			[]intent{{op: changeset.OpEdit, path: "src/a.py", line: 2, blocks: 1}}},
		{"the file name in a fence of its own, before an unfenced block",
			cat(l("```text", "src/a.py", "```"), blk(l("x"), l("y"))),
			[]intent{{op: changeset.OpEdit, path: "src/a.py", line: 2, blocks: 1}}},
		{"CRLF input",
			strings.ReplaceAll(cat(fenced("a.go", l("x"), l("y"))), "\n", "\r\n"),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 1, blocks: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !Looks([]byte(tc.input)) {
				t.Errorf("Looks = false")
			}
			d, err := parse([]byte(tc.input))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if d.Format != "search-replace" {
				t.Errorf("format %q", d.Format)
			}
			var got []intent
			for _, in := range d.Intents {
				got = append(got, view(in))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("intent %d: got %+v\n          want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestParseKeepsBlockContentVerbatim(t *testing.T) {
	in := cat(l("README.md", "````markdown"), blk(l("```go", "x := 1  ", "```"), l("~~~", "\t", "~~~")), l("````"))
	d, err := parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	e := d.Intents[0].Edit.(*edit)
	if got := strings.Join(e.blocks[0].search, "|"); got != "```go|x := 1  |```" {
		t.Errorf("search %q", got)
	}
	if got := strings.Join(e.blocks[0].replace, "|"); got != "~~~|\t|~~~" {
		t.Errorf("replace %q", got)
	}
}

func TestParseRefusesWithTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, input, text string
	}{
		{"no block", lines("just prose"), `search-replace line 1: the input holds no <<<<<<< SEARCH block`},
		{"an empty input", "", `search-replace line 1: the input holds no <<<<<<< SEARCH block`},
		{"a block with no path", cat(blk(l("x"), l("y"))), `search-replace line 1: the block at line 1 names no file`},
		{"a fenced block with no path", cat(l("```"), blk(l("x"), l("y")), l("```")), `search-replace line 1: the block at line 2 names no file`},
		{"a block after prose with no path", cat(l("Change this:", "```"), blk(l("x"), l("y"))), `search-replace line 1: the block at line 3 names no file: "Change this:" is not a path`},
		{"a ... line before a first block is not a path", cat(l("...", "```"), blk(l("x"), l("y"))), `search-replace line 1: the block at line 3 names no file: "..." is not a path`},
		{"a ... line and prose between blocks", cat(fenced("a.go", l("x"), l("y")), l("...", "Now this:"), blk(l("p"), l("q"))),
			`search-replace line 10: the block at line 11 names no file: "Now this:" is not a path`},
		{"a second block after prose with no path", cat(fenced("a.go", l("x"), l("y")), l("", "Then this one:"), blk(l("p"), l("q"))),
			`search-replace line 10: the block at line 11 names no file: "Then this one:" is not a path`},
		{"no divider", lines("a.go", "<<<<<<< SEARCH", "x"), `search-replace line 2: the block has no =======`},
		{"no REPLACE", lines("a.go", "<<<<<<< SEARCH", "x", "=======", "y"), `search-replace line 2: the block has no >>>>>>> REPLACE`},
		{"a REPLACE before the divider", lines("a.go", "<<<<<<< SEARCH", "x", ">>>>>>> REPLACE"), `search-replace line 4: >>>>>>> REPLACE before the ======= of the block at line 2`},
		{"a SEARCH inside a SEARCH", lines("a.go", "<<<<<<< SEARCH", "x", "<<<<<<< SEARCH"), `search-replace line 4: a <<<<<<< SEARCH inside the SEARCH text of the block at line 2`},
		{"a new block before the REPLACE", lines("a.go", "<<<<<<< SEARCH", "x", "=======", "y", "<<<<<<< SEARCH"), `search-replace line 2: the block has no >>>>>>> REPLACE before the next <<<<<<< SEARCH (line 6)`},
		{"a stray REPLACE", lines("a.go", ">>>>>>> REPLACE"), `search-replace line 2: >>>>>>> REPLACE without a <<<<<<< SEARCH before it`},
		{"an empty SEARCH after another block of the file", cat(fenced("a.go", l("x"), l("y")), fenced("a.go", nil, l("z"))),
			`search-replace line 11: block 2 of "a.go" has an empty SEARCH, which creates a file, but block 1 already changes it`},
		{"a later block of a new file that does not match", cat(fenced("n.txt", nil, l("a")), fenced("n.txt", l("b"), l("c"))),
			`search-replace line 10: block 2 of "n.txt": the SEARCH text (1 line) is not in the file as the blocks before it left it`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parse([]byte(tc.input))
			if err == nil {
				t.Fatalf("parsed %+v, want refused with %q", d, tc.text)
			}
			var e *refusal.Error
			if !errors.As(err, &e) || e.Class != refusal.Invalid {
				t.Fatalf("refusal %#v is not an Invalid *refusal.Error", err)
			}
			if e.Text != tc.text {
				t.Errorf("text %q\nwant %q", e.Text, tc.text)
			}
			if e.Hint == "" {
				t.Errorf("no hint")
			}
		})
	}
}

func TestLooks(t *testing.T) {
	for input, want := range map[string]bool{
		cat(fenced("a.go", l("x"), l("y"))): true,
		"":                                  false,
		"<<<<<<< SEARCH\nx\n":               false,
		"<<<<<<< SEARCH\n=======\n":         false,
		">>>>>>> REPLACE\n=======\n<<<<<<< SEARCH\n":           false,
		"*** Begin Patch\n*** Delete File: a\n*** End Patch\n": false,
		"<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> branch\n":        false,
	} {
		if got := Looks([]byte(input)); got != want {
			t.Errorf("Looks(%q) = %v, want %v", input, got, want)
		}
	}
}

func TestParseReadsOnlyItsInput(t *testing.T) {
	in := []byte(cat(fenced("a.go", l("x"), l("y"))))
	keep := bytes.Clone(in)
	if _, err := parse(in); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in, keep) {
		t.Fatal("Parse modified its input")
	}
}

func TestParseLimit(t *testing.T) {
	in := []byte(cat(fenced("a.go", l("x"), l("y"))))
	if _, err := ParseLimit(in, len(in)); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := ParseLimit(in, len(in)-1)
	var e *refusal.Error
	if !errors.As(err, &e) || e.Class != refusal.TooLarge || e.Text != "the search/replace text is 58 bytes, over the limit of 57 bytes" {
		t.Fatalf("over the limit: %#v", err)
	}
}
