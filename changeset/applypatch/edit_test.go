package applypatch

import (
	"bytes"
	"errors"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// update parses a patch that updates a.go with the given chunk lines (the
// "*** Update File: a.go" line is line 2) and returns its edit.
func update(t *testing.T, chunkLines ...string) changeset.Edit {
	t.Helper()
	d, err := Parse([]byte(patch(append([]string{"*** Update File: a.go"}, chunkLines...)...)))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return d.Intents[0].Edit
}

func TestEditAppliesChunks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		base   string
		chunks []string
		want   string
	}{
		{"a chunk replaces the lines it removes",
			lines("a", "b", "c"), []string{"@@", " a", "-b", "+B", " c"}, lines("a", "B", "c")},
		{"chunks apply in order",
			lines("1", "2", "3", "4"), []string{"@@", "-2", "+two", "@@", "-4", "+four"}, lines("1", "two", "3", "four")},
		{"the same lines in two chunks match successive places",
			lines("x", "y", "x", "y"), []string{"@@", " y", "-x", "+X1", "@@", "-y", "+Y2"}, lines("x", "y", "X1", "Y2")},
		{"an @@ line locates the chunk after it",
			lines("func a() {", "\treturn 1", "}", "func b() {", "\treturn 1", "}"),
			[]string{"@@ func b() {", "-\treturn 1", "+\treturn 2"},
			lines("func a() {", "\treturn 1", "}", "func b() {", "\treturn 2", "}")},
		{"an @@ line picks the place inside the block it opens",
			lines("func a() {", "	return 1", "}", "func b() {", "	return 1", "}"),
			[]string{"@@ func a() {", "-	return 1", "+	return 0"},
			lines("func a() {", "	return 0", "}", "func b() {", "	return 1", "}")},
		{"stacked @@ lines narrow the place step by step",
			lines("class A:", "    def f(self):", "        return 1", "class B:", "    def f(self):", "        return 1"),
			[]string{"@@ class B:", "@@     def f(self):", "-        return 1", "+        return 2"},
			lines("class A:", "    def f(self):", "        return 1", "class B:", "    def f(self):", "        return 2")},
		{"a chunk may repeat its @@ line as its first context line",
			lines("func a() {", "\tx()", "}", "func b() {", "\tx()", "}"),
			[]string{"@@ func b() {", " func b() {", "-\tx()", "+\ty()"},
			lines("func a() {", "\tx()", "}", "func b() {", "\ty()", "}")},
		{"a block ends at its closing line, so context after it is found after it",
			lines("if a {", "	x", "}", "y"), []string{"@@ if a {", " }", "-y", "+z"}, lines("if a {", "	x", "}", "z")},
		{"an @@ line that opens no block still orders the search",
			lines("x", "// part two", "x"), []string{"@@ // part two", "-x", "+X"}, lines("x", "// part two", "X")},
		{"a bare @@ before an @@ line changes nothing",
			lines("h", "a"), []string{"@@", "@@ h", "-a", "+b"}, lines("h", "b")},
		{"a unified diff header is read as its trailing context",
			lines("func a() {", "\treturn 1", "}", "func b() {", "\treturn 1", "}"),
			[]string{"@@ -4,3 +4,3 @@ func b() {", "-\treturn 1", "+\treturn 2"},
			lines("func a() {", "\treturn 1", "}", "func b() {", "\treturn 2", "}")},
		{"a unified diff header without context is a bare @@",
			lines("a", "b"), []string{"@@ -2 +2 @@", "-b", "+c"}, lines("a", "c")},
		{"added lines after an @@ line go right after it",
			lines("import (", ")", "func f() {}"), []string{"@@ import (", "+\t\"os\""}, lines("import (", "\t\"os\"", ")", "func f() {}")},
		{"added lines without context go at the end of the file",
			lines("a", "b"), []string{"@@", "+c", "+d"}, lines("a", "b", "c", "d")},
		{"added lines to an empty file",
			"", []string{"+first"}, lines("first")},
		{"*** End of File anchors the chunk at the end, not at an earlier match",
			lines("}", "x", "}"), []string{"@@", "-}", "+} // end", "*** End of File"}, lines("}", "x", "} // end")},
		{"blank lines before *** End of File are the file's last lines",
			lines("x", "", ""), []string{"@@", "-x", "+y", "", "", "*** End of File"}, lines("y", "", "")},
		{"an @@ line after a tab",
			lines("h", "a"), []string{"@@\th", "-a", "+b"}, lines("h", "b")},
		{"*** End of File with only added lines appends",
			lines("a"), []string{"@@", "+b", "*** End of File"}, lines("a", "b")},
		{"removing every line leaves an empty file",
			lines("a", "b"), []string{"-a", "-b"}, ""},
		{"an empty context line from a bare blank line",
			lines("a", "", "b"), []string{"@@", " a", "", "-b", "+c"}, lines("a", "", "c")},
		{"blank lines at the end of a chunk are separators, not context",
			lines("a", "b"), []string{"@@", "-a", "+A", "", "", "@@", "-b", "+B"}, lines("A", "B")},

		{"trailing whitespace in the file is forgiven, and context keeps it",
			lines("keep  ", "old\t"), []string{"@@", " keep", "-old", "+new"}, lines("keep  ", "new")},
		{"other indentation is forgiven, and context keeps the file's",
			lines("\tif x {", "\t\ty()", "\t}"), []string{"@@", " if x {", "-    y()", "+\t\tz()", " }"}, lines("\tif x {", "\t\tz()", "\t}")},
		{"typographic punctuation in the file matches ASCII in the patch",
			lines("say “hi” — it’s fine…", "x"), []string{"@@", " say \"hi\" - it's fine...", "-x", "+y"}, lines("say “hi” — it’s fine…", "y")},
		{"typographic punctuation in the patch matches ASCII in the file",
			lines("a\u00a0=\u00a0'b'", "x"), []string{"@@", " a = ‘b’", "-x", "+y"}, lines("a\u00a0=\u00a0'b'", "y")},
		{"a stricter level decides even when a looser one would find two places",
			lines("x ", "x"), []string{"@@", "-x", "+y"}, lines("x ", "y")},

		{"a file without a final newline keeps it when the end is untouched",
			"a\nb\nc", []string{"@@", "-a", "+A"}, "A\nb\nc"},
		{"a chunk that reaches the end of the file ends it with a newline",
			"a\nb", []string{"@@", "-b", "+B"}, "a\nB\n"},
		{"CRLF line endings are kept, and added lines get them",
			"a\r\nb\r\n", []string{"@@", " a", "-b", "+c", "+d"}, "a\r\nc\r\nd\r\n"},
		{"a move with chunks edits the bytes it moves",
			lines("v1"), []string{"-v1", "+v2"}, lines("v2")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := update(t, tc.chunks...)
			base := []byte(tc.base)
			keep := bytes.Clone(base)
			got, err := e.Apply(base)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if !bytes.Equal(base, keep) {
				t.Errorf("Apply modified its input")
			}
		})
	}
}

func TestEditRefusesWithLines(t *testing.T) {
	for _, tc := range []struct {
		name   string
		base   string
		chunks []string
		text   string
	}{
		{"missing context",
			lines("a", "b", "c"), []string{"@@", " a", " x", "-c"},
			`patch line 3: chunk 1 of "a.go": these 3 context lines are not in the file`},
		{"missing context in a later chunk (line of its @@)",
			lines("a", "b"), []string{"@@", "-a", "+A", "@@", "-z"},
			`patch line 6: chunk 2 of "a.go": this context line is not in the file after chunk 1`},
		{"missing context in a first chunk without @@ (its first line)",
			lines("a"), []string{"-z", "+y"},
			`patch line 3: chunk 1 of "a.go": this context line is not in the file`},
		{"two places, named by line",
			lines("x", "y", "x", "y"), []string{"@@", " x", "-y", "+z"},
			`patch line 3: chunk 1 of "a.go": these 2 context lines are in the file twice, at lines 1 and 3`},
		{"many places",
			lines("x", "x", "x", "x", "x", "x", "x"), []string{"@@", "-x", "+y"},
			`patch line 3: chunk 1 of "a.go": this context line is in the file 7 times, at lines 1, 2, 3, 4 and 5 (and 2 more)`},
		{"two places found by a looser level",
			lines("x ", "x\t"), []string{"@@", "-x", "+y"},
			`patch line 3: chunk 1 of "a.go": this context line is in the file twice, at lines 1 and 2`},
		{"two places after an @@ line",
			lines("h", "x", "x"), []string{"@@ h", "-x", "+y"},
			`patch line 3: chunk 1 of "a.go": this context line is in the file twice, at lines 2 and 3 after its @@ line`},
		{"chunks out of the file's order",
			lines("a", "b", "c"), []string{"@@", "-c", "+C", "@@", "-a", "+A"},
			`patch line 6: chunk 2 of "a.go": this context line is at line 1 of the file, before chunk 1; chunks must follow the order of the file`},
		{"overlapping chunks",
			lines("a", "b", "c"), []string{"@@", " a", "-b", "+B", "@@", " b", "-c", "+C"},
			`patch line 7: chunk 2 of "a.go": these 2 context lines are at line 2 of the file, before chunk 1; chunks must follow the order of the file`},
		{"an @@ line that is not in the file",
			lines("a"), []string{"@@ func g()", "-a"},
			`patch line 3: chunk 1 of "a.go": the @@ line "func g()" is not in the file`},
		{"a chunk that starts on its @@ line but runs past the end of the file",
			lines("x", "h"), []string{"@@ h", " h", " y", "-z"},
			`patch line 3: chunk 1 of "a.go": these 3 context lines are not in the file after its @@ line`},
		{"a second @@ line that is not after the first",
			lines("def g(self):", "class A:", "    x = 1"), []string{"@@ class A:", "@@     def g(self):", "-    x = 1"},
			`patch line 4: chunk 1 of "a.go": the @@ line "    def g(self):" is not in the file after the @@ line "class A:"`},
		{"an @@ line that is not after the previous chunk",
			lines("h", "a", "b"), []string{"@@", "-b", "+B", "@@ h", "-a"},
			`patch line 6: chunk 2 of "a.go": the @@ line "h" is not in the file after chunk 1`},
		{"two places within the block of the @@ line",
			lines("func a() {", "	x()", "	x()", "}", "func b() {", "	x()", "}"), []string{"@@ func a() {", "-	x()"},
			`patch line 3: chunk 1 of "a.go": this context line is in the file twice, at lines 2 and 3 after its @@ line`},
		{"a chunk not after its @@ line",
			lines("a", "h"), []string{"@@ h", "-a"},
			`patch line 3: chunk 1 of "a.go": this context line is at line 1 of the file, before its @@ line; chunks must follow the order of the file`},
		{"*** End of File on lines that are not the last",
			lines("a", "b"), []string{"@@", "-a", "+A", "*** End of File"},
			`patch line 3: chunk 1 of "a.go": this context line is not at the end of the file, as its *** End of File says`},
		{"*** End of File on more lines than the file has",
			lines("a"), []string{"@@", " z", "-a", "*** End of File"},
			`patch line 3: chunk 1 of "a.go": these 2 context lines are not at the end of the file, as its *** End of File says`},
		{"an edit of an empty file that expects lines",
			"", []string{"-a"},
			`patch line 3: chunk 1 of "a.go": this context line is not in the file`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := update(t, tc.chunks...).Apply([]byte(tc.base))
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
			if e.Hint != "rebuild the patch against the current file" && e.Hint != "add context lines to the chunk (or an @@ line) so that it matches one place" {
				t.Errorf("hint %q", e.Hint)
			}
		})
	}
}

// The resolver is what the CLI runs: a refusal of an edit keeps its text,
// and a refused patch changes nothing at all.
func TestResolveRefusesTheWholePatch(t *testing.T) {
	tree := map[string][]byte{"a.go": []byte(lines("a", "b")), "b.go": []byte(lines("x"))}
	p := patch(
		"*** Update File: a.go", "@@", "-a", "+A",
		"*** Update File: b.go", "@@", "-nope", "+y",
	)
	_, err := run([]byte(p), tree)
	if err == nil || err.Error() != `patch line 7: chunk 1 of "b.go": this context line is not in the file · rebuild the patch against the current file` {
		t.Fatalf("got %v", err)
	}
	if string(tree["a.go"]) != lines("a", "b") {
		t.Fatalf("the base was modified")
	}
}

func TestResolveMovesAndRenames(t *testing.T) {
	tree := map[string][]byte{"a.go": []byte(lines("v1")), "c.go": []byte(lines("same"))}
	p := patch(
		"*** Update File: a.go", "*** Move to: pkg/b.go", "@@", "-v1", "+v2",
		"*** Update File: c.go", "*** Move to: d.go",
	)
	got, err := run([]byte(p), tree)
	if err != nil {
		t.Fatal(err)
	}
	compareTrees(t, got, map[string][]byte{"pkg/b.go": []byte(lines("v2")), "d.go": []byte(lines("same"))})
}
