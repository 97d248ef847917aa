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
	d, err := parse([]byte(patch(append([]string{"*** Update File: a.go"}, chunkLines...)...)))
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
		{"chunks out of the file's order apply where they match once",
			lines("a", "b", "c"), []string{"@@", "-c", "+C", "@@", "-a", "+A"}, lines("A", "b", "C")},
		{"a chunk out of order with its @@ line",
			lines("h", "a", "b"), []string{"@@", "-b", "+B", "@@ h", "-a"}, lines("h", "B")},
		{"after an out-of-order chunk the next one is looked for after it",
			lines("x", "a", "x", "b", "x", "c"), []string{"@@", "-c", "+C", "@@", " a", "-x", "+X", "@@", "-x", "+Y"}, lines("x", "a", "X", "b", "Y", "C")},
		{"lines an out-of-order chunk changed are no other chunk's",
			lines("x", "a", "x", "b"), []string{"@@", " b", "+B", "@@", " a", "-x", "+X1", "@@", "-x", "+X0"}, lines("X0", "a", "X1", "b", "B")},
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
			`patch line 6: chunk 2 of "a.go": this context line is not in the file`},
		{"missing context in a first chunk without @@ (its first line)",
			lines("a"), []string{"-z", "+y"},
			`patch line 3: chunk 1 of "a.go": this context line is not in the file`},
		{"two places, named by line",
			lines("x", "y", "x", "y"), []string{"@@", " x", "-y", "+z"},
			`patch line 3: chunk 1 of "a.go": these 2 context lines are in the file twice, at lines 1 and 3`},
		{"many places",
			lines("x", "x", "x", "x", "x", "x", "x"), []string{"@@", "-x", "+y"},
			`patch line 3: chunk 1 of "a.go": this context line is in the file 7 times, at lines 1 to 7`},
		{"every place is named",
			lines("x", "a", "x", "x", "b", "x", "c", "x", "x", "x", "x"), []string{"@@", "-x", "+y"},
			`patch line 3: chunk 1 of "a.go": this context line is in the file 8 times, at lines 1, 3, 4, 6 and 8 to 11`},
		{"two places found by a looser level",
			lines("x ", "x\t"), []string{"@@", "-x", "+y"},
			`patch line 3: chunk 1 of "a.go": this context line is in the file twice, at lines 1 and 2`},
		{"two places after an @@ line",
			lines("h", "x", "x"), []string{"@@ h", "-x", "+y"},
			`patch line 3: chunk 1 of "a.go": this context line is in the file twice, at lines 2 and 3 after its @@ line`},
		{"a chunk out of the file's order that matches twice before the previous one",
			lines("x", "x", "c"), []string{"@@", "-c", "+C", "@@", "-x", "+X"},
			`patch line 6: chunk 2 of "a.go": this context line is in the file twice, at lines 1 and 2`},
		{"overlapping chunks",
			lines("a", "b", "c"), []string{"@@", " a", "-b", "+B", "@@", " b", "-c", "+C"},
			`patch line 7: chunk 2 of "a.go": these 2 context lines are at line 2 of the file, where another chunk already changes it`},
		{"a chunk out of order on lines a chunk after it changed",
			lines("a", "b", "c", "d"), []string{"@@", "-c", "+C", " d", "@@", " b", "-c"},
			`patch line 7: chunk 2 of "a.go": these 2 context lines are at line 2 of the file, where another chunk already changes it`},
		{"an @@ line that is not in the file",
			lines("a"), []string{"@@ func g()", "-a"},
			`patch line 3: chunk 1 of "a.go": the @@ line "func g()" is not in the file`},
		{"a chunk that starts on its @@ line but runs past the end of the file",
			lines("x", "h"), []string{"@@ h", " h", " y", "-z"},
			`patch line 3: chunk 1 of "a.go": these 3 context lines are not in the file after its @@ line`},
		{"a second @@ line that is not after the first",
			lines("def g(self):", "class A:", "    x = 1"), []string{"@@ class A:", "@@     def g(self):", "-    x = 1"},
			`patch line 4: chunk 1 of "a.go": the @@ line "    def g(self):" is not in the file after the @@ line "class A:"`},
		{"an @@ line that is nowhere",
			lines("h", "a", "b"), []string{"@@", "-b", "+B", "@@ g", "-a"},
			`patch line 6: chunk 2 of "a.go": the @@ line "g" is not in the file`},
		{"two places within the block of the @@ line",
			lines("func a() {", "	x()", "	x()", "}", "func b() {", "	x()", "}"), []string{"@@ func a() {", "-	x()"},
			`patch line 3: chunk 1 of "a.go": this context line is in the file twice, at lines 2 and 3 after its @@ line`},
		{"a chunk not after its @@ line",
			lines("a", "h"), []string{"@@ h", "-a"},
			`patch line 3: chunk 1 of "a.go": this context line is at line 1 of the file, before its @@ line`},
		{"*** End of File on lines that are not the last",
			lines("a", "b"), []string{"@@", "-a", "+A", "*** End of File"},
			`patch line 3: chunk 1 of "a.go": this context line is not at the end of the file, as its *** End of File says`},
		{"a chunk whose change the file holds already",
			lines("a", "B", "c"), []string{"@@", " a", "-b", "+B"},
			`patch line 3: chunk 1 of "a.go": these 2 context lines are not in the file, but the lines the chunk leaves are, at line 1: the file may hold this change already`},
		{"*** End of File on lines another chunk changes",
			lines("a", "b"), []string{"@@", "-b", "+B", "@@", "-b", "+C", "*** End of File"},
			`patch line 6: chunk 2 of "a.go": this context line is at the end of the file, where chunk 1 already changes line 2`},
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
			switch e.Hint {
			case "rebuild the patch against the current file",
				"add context lines to the chunk (or an @@ line) so that it matches one place",
				"drop the chunks the file already holds, or rebuild the patch against the current file":
			default:
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

// Sections for one path compose: each is applied to what the ones before
// it left, the change witnesses the base, and a section after a deletion
// or a move away is refused.
func TestResolveComposesSections(t *testing.T) {
	base := map[string][]byte{"a.txt": []byte(lines("1", "2", "3")), "dir/keep.txt": []byte(lines("k"))}
	for _, tc := range []struct {
		name  string
		patch string
		want  map[string][]byte // nil: refused with text
		class refusal.Class
		text  string
	}{
		{"two updates of one file",
			patch("*** Update File: a.txt", "@@", "-1", "+one", "*** Update File: a.txt", "@@", " one", "-2", "+two"),
			map[string][]byte{"a.txt": []byte(lines("one", "two", "3")), "dir/keep.txt": []byte(lines("k"))}, "", ""},
		{"an add, then an update of the new file",
			patch("*** Add File: n.txt", "+x", "+y", "*** Update File: n.txt", "@@", "-y", "+Y"),
			map[string][]byte{"a.txt": base["a.txt"], "dir/keep.txt": base["dir/keep.txt"], "n.txt": []byte(lines("x", "Y"))}, "", ""},
		{"an update, a move, and an update at the new path",
			patch("*** Update File: a.txt", "@@", "-1", "+one", "*** Update File: a.txt", "*** Move to: b.txt", "*** Update File: b.txt", "@@", "-3", "+three"),
			map[string][]byte{"b.txt": []byte(lines("one", "2", "three")), "dir/keep.txt": base["dir/keep.txt"]}, "", ""},
		{"an update, then a deletion",
			patch("*** Update File: a.txt", "@@", "-1", "+one", "*** Delete File: a.txt"),
			map[string][]byte{"dir/keep.txt": base["dir/keep.txt"]}, "", ""},
		{"a later section that does not match what the earlier one left",
			patch("*** Update File: a.txt", "@@", "-1", "+one", "*** Update File: a.txt", "@@", "-1", "+uno"),
			nil, refusal.Invalid, `patch line 7: chunk 1 of "a.txt": this context line is not in the file (section 2 for "a.txt", applied to what the section at line 2 left)`},
		{"a section after the deletion",
			patch("*** Delete File: a.txt", "*** Update File: a.txt", "@@", "-1", "+one"),
			nil, refusal.Invalid, `patch line 3: this section changes "a.txt", but the section at line 2 deletes it`},
		{"an add after the deletion",
			patch("*** Delete File: a.txt", "*** Add File: a.txt", "+new"),
			nil, refusal.Invalid, `patch line 3: this section changes "a.txt", but the section at line 2 deletes it`},
		{"a section at the old path after a move",
			patch("*** Update File: a.txt", "*** Move to: b.txt", "*** Update File: a.txt", "@@", "-1", "+one"),
			nil, refusal.Invalid, `patch line 4: this section changes "a.txt", but the section at line 2 moves it to "b.txt"`},
		{"two adds of one path",
			patch("*** Add File: n.txt", "+x", "*** Add File: n.txt", "+y"),
			nil, refusal.NotAllowed, `patch line 4: section 2 of "n.txt" adds the file, but the section at line 2 already writes it`},
		{"a move onto a path another section writes",
			patch("*** Add File: b.txt", "+x", "*** Update File: a.txt", "*** Move to: b.txt"),
			nil, refusal.NotAllowed, `patch line 4: cannot move "a.txt" onto "b.txt", which the section at line 2 writes`},
		{"a cd resolves under its directory",
			"cd dir && apply_patch <<'EOF'\n" + patch("*** Update File: keep.txt", "@@", "-k", "+K", "*** Add File: new.txt", "+n") + "EOF\n",
			map[string][]byte{"a.txt": base["a.txt"], "dir/keep.txt": []byte(lines("K")), "dir/new.txt": []byte(lines("n"))}, "", ""},
		{"a cd into a directory the project lacks",
			"cd nowhere && apply_patch <<'EOF'\n" + patch("*** Add File: new.txt", "+n") + "EOF\n",
			nil, refusal.NotFound, `patch line 3: the wrapper changes into "nowhere", which is not a directory of the project`},
		{"a cd into a file",
			"cd a.txt && apply_patch <<'EOF'\n" + patch("*** Add File: new.txt", "+n") + "EOF\n",
			nil, refusal.NotAllowed, `patch line 3: the wrapper changes into "a.txt", but "a.txt" is a file`},
		{"a cd does not let a path climb out of its directory",
			"cd dir && apply_patch <<'EOF'\n" + patch("*** Add File: ../x.txt", "+n") + "EOF\n",
			nil, refusal.NotAllowed, `patch line 3: path "dir/../x.txt" contains '..' and could leave the repository`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run([]byte(tc.patch), base)
			if tc.want == nil {
				var e *refusal.Error
				if !errors.As(err, &e) || e.Class != tc.class || e.Text != tc.text || e.Hint == "" {
					t.Fatalf("got %#v\nwant %s %q with a hint", err, tc.class, tc.text)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			compareTrees(t, got, tc.want)
		})
	}
}

// The composed change witnesses the base's bytes, not an intermediate.
func TestComposedChangeWitnessesTheBase(t *testing.T) {
	base := map[string][]byte{"a.txt": []byte(lines("1", "2"))}
	d, err := parse([]byte(patch("*** Update File: a.txt", "@@", "-1", "+one", "*** Update File: a.txt", "@@", "-2", "+two")))
	if err != nil {
		t.Fatal(err)
	}
	changes, _, err := changeset.Resolve(d, mapBase(base), changeset.Policy{Allow: []string{"**"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 {
		t.Fatalf("%d changes, want one", len(changes))
	}
	c := changes[0]
	if c.Kind != changeset.Update || c.Before.Witness != changeset.WitnessOf(base["a.txt"]) || string(c.After.Bytes) != lines("one", "two") {
		t.Errorf("change %s before %s after %q", c.Kind, c.Before.Witness, c.After.Bytes)
	}
}
