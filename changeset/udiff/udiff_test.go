package udiff

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// parse reads an input under the default limit (MaxInput), as the
// package's callers do with ParseLimit.
func parse(input []byte) (*changeset.Draft, error) { return ParseLimit(input, 0) }

// text joins lines, each ended by "\n".
func text(lines ...string) []byte {
	return []byte(strings.Join(lines, "\n") + "\n")
}

// result is what a test expects from one intent: its op, paths and line,
// and the bytes it yields over the given base.
type result struct {
	op    changeset.Op
	path  string
	to    string
	line  int
	base  string // the bytes the Edit is applied to
	after string // the Content, or what Edit.Apply(base) returns
	edit  bool   // whether the intent carries an Edit
}

func TestParseSections(t *testing.T) {
	tests := []struct {
		name  string
		input []byte
		want  []result
	}{
		{
			name: "a git modification is an edit",
			input: text(
				"diff --git a/a.go b/a.go",
				"index 1111111..2222222 100644",
				"--- a/a.go",
				"+++ b/a.go",
				"@@ -1,3 +1,3 @@",
				" one",
				"-two",
				"+TWO",
				" three",
			),
			want: []result{{op: changeset.OpEdit, path: "a.go", line: 1, edit: true,
				base: "one\ntwo\nthree\nfour\n", after: "one\nTWO\nthree\nfour\n"}},
		},
		{
			name: "prose before and between files is ignored",
			input: text(
				"From: someone",
				"Subject: fix things",
				"",
				"diff --git a/x b/x",
				"--- a/x",
				"+++ b/x",
				"@@ -1 +1 @@",
				"-a",
				"+b",
				"",
				"and now the other file:",
				"diff --git a/y b/y",
				"--- a/y",
				"+++ b/y",
				"@@ -1 +1 @@",
				"-c",
				"+d",
				"-- ",
				"2.39.0",
			),
			want: []result{
				{op: changeset.OpEdit, path: "x", line: 4, edit: true, base: "a\n", after: "b\n"},
				{op: changeset.OpEdit, path: "y", line: 12, edit: true, base: "c\n", after: "d\n"},
			},
		},
		{
			name:  "a diff inside a markdown fence: the fences are prose",
			input: text("Here is the change:", "```diff", "--- a/x", "+++ b/x", "@@ -1 +1 @@", "-a", "+b", "```", "Done."),
			want:  []result{{op: changeset.OpEdit, path: "x", line: 3, edit: true, base: "a\n", after: "b\n"}},
		},
		{
			name: "a new file is an add with its content",
			input: text(
				"diff --git a/dir/new.txt b/dir/new.txt",
				"new file mode 100644",
				"index 0000000..3333333",
				"--- /dev/null",
				"+++ b/dir/new.txt",
				"@@ -0,0 +1,2 @@",
				"+hello",
				"+world",
			),
			want: []result{{op: changeset.OpAdd, path: "dir/new.txt", line: 1, after: "hello\nworld\n"}},
		},
		{
			name: "a new file without a trailing newline",
			input: text(
				"--- /dev/null",
				"+++ b/n.txt",
				"@@ -0,0 +1,2 @@",
				"+a",
				"+b",
				`\ No newline at end of file`,
			),
			want: []result{{op: changeset.OpAdd, path: "n.txt", line: 1, after: "a\nb"}},
		},
		{
			name: "a new empty file has no hunk",
			input: text(
				"diff --git a/empty b/empty",
				"new file mode 100644",
				"index 0000000..e69de29",
			),
			want: []result{{op: changeset.OpAdd, path: "empty", line: 1, after: ""}},
		},
		{
			name: "a deleted file witnesses its removed lines",
			input: text(
				"diff --git a/old.txt b/old.txt",
				"deleted file mode 100644",
				"index 4444444..0000000",
				"--- a/old.txt",
				"+++ /dev/null",
				"@@ -1,2 +0,0 @@",
				"-bye",
				"-now",
			),
			want: []result{{op: changeset.OpDelete, path: "old.txt", line: 1, edit: true, base: "bye\nnow\n"}},
		},
		{
			name: "a deleted empty file witnesses the empty blob",
			input: text(
				"diff --git a/empty b/empty",
				"deleted file mode 100644",
				"index e69de29..0000000",
			),
			want: []result{{op: changeset.OpDelete, path: "empty", line: 1, edit: true, base: ""}},
		},
		{
			name: "a deletion with no hunk and no index line witnesses an empty file",
			input: text(
				"diff --git a/gone b/gone",
				"deleted file mode 100644",
			),
			want: []result{{op: changeset.OpDelete, path: "gone", line: 1, edit: true, base: ""}},
		},
		{
			name: "a pure rename is a move without edit",
			input: text(
				"diff --git a/from.txt b/to/here.txt",
				"similarity index 100%",
				"rename from from.txt",
				"rename to to/here.txt",
			),
			want: []result{{op: changeset.OpMove, path: "from.txt", to: "to/here.txt", line: 1}},
		},
		{
			name: "a rename with hunks is a move with an edit",
			input: text(
				"diff --git a/from.txt b/to.txt",
				"similarity index 80%",
				"rename from from.txt",
				"rename to to.txt",
				"index 5555555..6666666 100644",
				"--- a/from.txt",
				"+++ b/to.txt",
				"@@ -2 +2 @@",
				"-b",
				"+B",
			),
			want: []result{{op: changeset.OpMove, path: "from.txt", to: "to.txt", line: 1, edit: true, base: "a\nb\nc\n", after: "a\nB\nc\n"}},
		},
		{
			name: "quoted names decode git's C escapes",
			input: text(
				`diff --git "a/t\tab" "b/t\tab"`,
				`--- "a/t\tab"`,
				`+++ "b/t\tab"`,
				"@@ -1 +1 @@",
				"-x",
				"+y",
				`diff --git "a/\303\274 \"q\".txt" "b/\303\274 \"q\".txt"`,
				`--- "a/\303\274 \"q\".txt"`,
				`+++ "b/\303\274 \"q\".txt"`,
				"@@ -1 +1 @@",
				"-x",
				"+y",
			),
			want: []result{
				{op: changeset.OpEdit, path: "t\tab", line: 1, edit: true, base: "x\n", after: "y\n"},
				{op: changeset.OpEdit, path: `ü "q".txt`, line: 7, edit: true, base: "x\n", after: "y\n"},
			},
		},
		{
			name: "names with spaces end at git's tab",
			input: text(
				"diff --git a/sp ace.txt b/sp ace.txt",
				"--- a/sp ace.txt\t",
				"+++ b/sp ace.txt\t",
				"@@ -1 +1 @@",
				"-x",
				"+y",
			),
			want: []result{{op: changeset.OpEdit, path: "sp ace.txt", line: 1, edit: true, base: "x\n", after: "y\n"}},
		},
		{
			name: "a rename between names with spaces reads the rename lines",
			input: text(
				"diff --git a/my file b/your file",
				"similarity index 100%",
				"rename from my file",
				"rename to your file",
			),
			want: []result{{op: changeset.OpMove, path: "my file", to: "your file", line: 1}},
		},
		{
			name: "diff -u names without prefixes, with timestamps",
			input: text(
				"--- conf.yaml\t2026-01-01 10:00:00.000000000 +0000",
				"+++ conf.yaml\t2026-01-02 10:00:00.000000000 +0000",
				"@@ -1,2 +1,2 @@",
				" a: 1",
				"-b: 2",
				"+b: 3",
			),
			want: []result{{op: changeset.OpEdit, path: "conf.yaml", line: 1, edit: true, base: "a: 1\nb: 2\n", after: "a: 1\nb: 3\n"}},
		},
		{
			name: "diff -ruN names two trees and dates an absent file at the epoch",
			input: text(
				"diff -ruN old/src/a.c new/src/a.c",
				"--- old/src/a.c\t2026-01-01 10:00:00.000000000 +0000",
				"+++ new/src/a.c\t2026-01-02 10:00:00.000000000 +0000",
				"@@ -1 +1 @@",
				"-x",
				"+y",
				"diff -ruN old/b.c new/b.c",
				"--- old/b.c\t1970-01-01 00:00:00.000000000 +0000",
				"+++ new/b.c\t2026-01-02 10:00:00.000000000 +0000",
				"@@ -0,0 +1 @@",
				"+new",
			),
			want: []result{
				{op: changeset.OpEdit, path: "src/a.c", line: 2, edit: true, base: "x\n", after: "y\n"},
				{op: changeset.OpAdd, path: "b.c", line: 8, after: "new\n"},
			},
		},
		{
			name: "a changed last line without newline",
			input: text(
				"--- a/f",
				"+++ b/f",
				"@@ -1,2 +1,2 @@",
				" a",
				"-b",
				`\ No newline at end of file`,
				"+B",
				`\ No newline at end of file`,
			),
			want: []result{{op: changeset.OpEdit, path: "f", line: 1, edit: true, base: "a\nb", after: "a\nB"}},
		},
		{
			name: "a file gains its last newline",
			input: text(
				"--- a/f",
				"+++ b/f",
				"@@ -1 +1 @@",
				"-b",
				`\ No newline at end of file`,
				"+b",
			),
			want: []result{{op: changeset.OpEdit, path: "f", line: 1, edit: true, base: "b", after: "b\n"}},
		},
		{
			name:  "CRLF content is kept byte for byte",
			input: []byte("--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n+TWO\r\n"),
			want:  []result{{op: changeset.OpEdit, path: "w.txt", line: 1, edit: true, base: "one\r\ntwo\r\n", after: "one\r\nTWO\r\n"}},
		},
		{
			name:  "a diff written with CRLF applies to a CRLF file",
			input: []byte("diff --git a/w.txt b/w.txt\r\n--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,2 +1,2 @@\r\n one\r\n-two\r\n+TWO\r\n"),
			want:  []result{{op: changeset.OpEdit, path: "w.txt", line: 1, edit: true, base: "one\r\ntwo\r\n", after: "one\r\nTWO\r\n"}},
		},
		{
			name: "an empty line in a hunk is an empty context line whose space was lost",
			input: text(
				"--- a/f",
				"+++ b/f",
				"@@ -1,3 +1,3 @@",
				" a",
				"",
				"-b",
				"+c",
			),
			want: []result{{op: changeset.OpEdit, path: "f", line: 1, edit: true, base: "a\n\nb\n", after: "a\n\nc\n"}},
		},
		{
			name:  "a diff whose last line has no newline",
			input: []byte("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b"),
			want:  []result{{op: changeset.OpEdit, path: "f", line: 1, edit: true, base: "a\n", after: "b\n"}},
		},
		{
			name: "several hunks apply in order",
			input: text(
				"--- a/f",
				"+++ b/f",
				"@@ -1,2 +1,2 @@",
				"-1",
				"+one",
				" 2",
				"@@ -5,2 +5,3 @@",
				" 5",
				"+5.5",
				" 6",
				"@@ -9 +10 @@",
				"-9",
				"+nine",
			),
			want: []result{{op: changeset.OpEdit, path: "f", line: 1, edit: true,
				base: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", after: "one\n2\n3\n4\n5\n5.5\n6\n7\n8\nnine\n"}},
		},
		{
			name: "a hunk at the wrong line applies where its lines are unique",
			input: text(
				"--- a/f",
				"+++ b/f",
				"@@ -2,3 +2,3 @@",
				" c",
				"-d",
				"+D",
				" e",
			),
			want: []result{{op: changeset.OpEdit, path: "f", line: 1, edit: true, base: "a\nb\nc\nd\ne\nf\n", after: "a\nb\nc\nD\ne\nf\n"}},
		},
		{
			name: "the stated line wins over other matches",
			input: text(
				"--- a/f",
				"+++ b/f",
				"@@ -3 +3 @@",
				"-x",
				"+y",
			),
			want: []result{{op: changeset.OpEdit, path: "f", line: 1, edit: true, base: "x\nx\nx\nx\n", after: "x\nx\ny\nx\n"}},
		},
		{
			name: "a -U0 insertion applies after its stated line",
			input: text(
				"--- a/f",
				"+++ b/f",
				"@@ -2,0 +3 @@",
				"+new",
				"@@ -3,0 +5 @@",
				"+end",
			),
			want: []result{{op: changeset.OpEdit, path: "f", line: 1, edit: true, base: "a\nb\nc\n", after: "a\nb\nnew\nc\nend\n"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parse(tt.input)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d.Format != "diff" {
				t.Errorf("Format = %q", d.Format)
			}
			if len(d.Intents) != len(tt.want) {
				t.Fatalf("%d intents %+v, want %d", len(d.Intents), d.Intents, len(tt.want))
			}
			for i, w := range tt.want {
				in := d.Intents[i]
				if in.Op != w.op || in.Path != w.path || in.To != w.to || in.Line != w.line || (in.Edit != nil) != w.edit {
					t.Errorf("intent %d = {%s %q %q line %d edit %v}, want {%s %q %q line %d edit %v}",
						i, in.Op, in.Path, in.To, in.Line, in.Edit != nil, w.op, w.path, w.to, w.line, w.edit)
				}
				var got []byte
				switch {
				case w.op == changeset.OpAdd:
					if in.Content == nil {
						t.Errorf("an add without content")
					}
					got = in.Content
				case in.Edit != nil:
					got, err = in.Edit.Apply([]byte(w.base))
					if err != nil {
						t.Fatalf("Apply: %v", err)
					}
				default:
					continue
				}
				if string(got) != w.after {
					t.Errorf("bytes = %q, want %q", got, w.after)
				}
				if w.op == changeset.OpDelete && got != nil {
					t.Errorf("a deletion's Edit returned %q, want nil", got)
				}
			}
		})
	}
}

// wantErr checks a refusal's class and exact text, and that it has a hint.
func wantErr(t *testing.T, err error, class refusal.Class, text string) {
	t.Helper()
	var e *refusal.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want a *refusal.Error", err, err)
	}
	if e.Class != class {
		t.Errorf("class = %s, want %s", e.Class, class)
	}
	if e.Text != text {
		t.Errorf("text = %q\nwant   %q", e.Text, text)
	}
	if e.Hint == "" {
		t.Errorf("no hint")
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name  string
		input []byte
		class refusal.Class
		text  string
	}{
		{
			name:  "a hunk with no file",
			input: text("here is my change:", "@@ -1 +1 @@", "-a", "+b"),
			class: refusal.Invalid,
			text:  "diff line 2: this hunk belongs to no file: no --- and +++ lines come before it",
		},
		{
			name:  "a malformed hunk header",
			input: text("--- a/f", "+++ b/f", "@@ -1,x +1 @@", "-a"),
			class: refusal.Invalid,
			text:  `diff line 3: hunk 1 of f has a malformed header: "x" is not a line number`,
		},
		{
			name:  "a hunk header with a number missing",
			input: text("--- a/f", "+++ b/f", "@@ -1 @@", "-a"),
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of f has a malformed header: it has no +<line>",
		},
		{
			name:  "a hunk cut off by the end of the diff",
			input: text("--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@", " a", "-b"),
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of f is cut off by the end of the diff, 1 old line and 2 new lines short of its header @@ -1,3 +1,3 @@",
		},
		{
			name:  "a hunk that stops early",
			input: text("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " a", "-b", "prose"),
			class: refusal.Invalid,
			text:  "diff line 6: hunk 1 of f stops here, 0 old lines and 1 new line short of its header @@ -1,2 +1,2 @@",
		},
		{
			name:  "a hunk with more lines than it counts",
			input: text("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-a", "+b", "+c"),
			class: refusal.Invalid,
			text:  "diff line 6: hunk 1 of f has more lines than its header @@ -1,1 +1,1 @@ counts",
		},
		{
			name:  "a context line beyond the count",
			input: text("--- a/f", "+++ b/f", "@@ -1 +1,2 @@", "-a", "+b", " c"),
			class: refusal.Invalid,
			text:  "diff line 6: hunk 1 of f has more lines than its header @@ -1,1 +1,2 @@ counts",
		},
		{
			name:  "a hunk of context only",
			input: text("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " a", " b"),
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of f changes no line: it holds only context",
		},
		{
			name:  "a missing newline in the middle of a hunk",
			input: text("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", "-a", `\ No newline at end of file`, "-b", "+c", "+d"),
			class: refusal.Invalid,
			text:  "diff line 4: hunk 1 of f marks a line without newline that other lines follow",
		},
		{
			name:  "a git binary patch",
			input: text("diff --git a/logo.png b/logo.png", "index 1111111..2222222 100644", "GIT binary patch", "literal 5", "zcmV"),
			class: refusal.Unsupported,
			text:  "diff line 3: logo.png is a binary patch, and nika proposes text only",
		},
		{
			name:  "git's binary files differ",
			input: text("diff --git a/logo.png b/logo.png", "index 1111111..2222222 100644", "Binary files a/logo.png and b/logo.png differ"),
			class: refusal.Unsupported,
			text:  "diff line 3: logo.png is a binary patch, and nika proposes text only",
		},
		{
			name:  "diff -r's binary files differ",
			input: text("Binary files old/x.bin and new/x.bin differ"),
			class: refusal.Unsupported,
			text:  "diff line 1: a binary file changes here (Binary files old/x.bin and new/x.bin differ), and nika proposes text only",
		},
		{
			name:  "a mode-only change",
			input: text("intro", "diff --git a/run.sh b/run.sh", "old mode 100644", "new mode 100755"),
			class: refusal.Unsupported,
			text:  "diff line 2: the diff changes the mode of run.sh from 100644 to 100755, and nika does not change file modes",
		},
		{
			name:  "a mode change with hunks",
			input: text("diff --git a/run.sh b/run.sh", "old mode 100644", "new mode 100755", "--- a/run.sh", "+++ b/run.sh", "@@ -1 +1 @@", "-a", "+b"),
			class: refusal.Unsupported,
			text:  "diff line 1: the diff changes the mode of run.sh from 100644 to 100755, and nika does not change file modes",
		},
		{
			name:  "a new executable file",
			input: text("diff --git a/run.sh b/run.sh", "new file mode 100755", "--- /dev/null", "+++ b/run.sh", "@@ -0,0 +1 @@", "+echo"),
			class: refusal.Unsupported,
			text:  "diff line 1: the diff creates run.sh with mode 100755, and nika creates regular files only",
		},
		{
			name:  "a new symlink",
			input: text("diff --git a/l b/l", "new file mode 120000", "--- /dev/null", "+++ b/l", "@@ -0,0 +1 @@", "+target", `\ No newline at end of file`),
			class: refusal.Unsupported,
			text:  "diff line 1: the diff creates l with mode 120000, and nika creates regular files only",
		},
		{
			name:  "a copy that names one side",
			input: text("diff --git a/a b/b", "similarity index 100%", "copy from a"),
			class: refusal.Invalid,
			text:  "diff line 1: the copy of b names only one side",
		},
		{
			name:  "no file section at all",
			input: text("just prose", "", "nothing to apply"),
			class: refusal.Invalid,
			text:  "diff line 1: the input holds no diff: no file section (a diff --git line, or --- and +++ lines)",
		},
		{
			name:  "an empty diff",
			input: []byte{},
			class: refusal.Invalid,
			text:  "diff line 1: the input holds no diff: no file section (a diff --git line, or --- and +++ lines)",
		},
		{
			name:  "git format-patch of an empty commit",
			input: text("From 50cb07512d7ca823bcf113eb81f6f4be62aa6699 Mon Sep 17 00:00:00 2001", "From: a <a@a>", "Date: Tue, 1 Dec 2026 21:25:26 +0000", "Subject: [PATCH] empty", "", "-- ", "2.39.5"),
			class: refusal.Invalid,
			text:  "diff line 1: the input holds no diff: no file section (a diff --git line, or --- and +++ lines)",
		},
		{
			name:  "an unnumbered hunk with no file",
			input: text("here:", "@@ ... @@", "-a", "+b"),
			class: refusal.Invalid,
			text:  "diff line 2: this hunk belongs to no file: no --- and +++ lines come before it",
		},
		{
			name:  "a combined diff",
			input: text("diff --cc f", "index 1,2..3", "--- a/f", "+++ b/f"),
			class: refusal.Unsupported,
			text:  "diff line 1: a combined diff of a merge cannot be applied",
		},
		{
			name:  "a new file whose hunk keeps lines",
			input: text("--- /dev/null", "+++ b/n", "@@ -1 +1,2 @@", " a", "+b"),
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of n removes or keeps lines of a file that does not exist yet",
		},
		{
			name:  "a deleted file whose hunk adds lines",
			input: text("--- a/n", "+++ /dev/null", "@@ -1 +1 @@", "-a", "+b"),
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of n keeps or adds lines to a file it deletes",
		},
		{
			name:  "a bad escape in a quoted name",
			input: text(`diff --git "a/x\q" "b/x\q"`, `--- "a/x\q"`, `+++ "b/x\q"`, "@@ -1 +1 @@", "-a", "+b"),
			class: refusal.Invalid,
			text:  `diff line 2: the --- line has an unknown escape \q`,
		},
		{
			name:  "an unclosed quote in a rename",
			input: text("diff --git a/x b/y", `rename from "x`, "rename to y"),
			class: refusal.Invalid,
			text:  `diff line 2: the "rename from" line has an unclosed quote`,
		},
		{
			name:  "a git header that changes nothing",
			input: text("diff --git a/f b/f", "index 1111111..2222222 100644", "prose"),
			class: refusal.Invalid,
			text:  "diff line 1: the section for f changes nothing",
		},
		{
			name:  "--- and +++ without a hunk",
			input: text("--- a/f", "+++ b/f", "prose"),
			class: refusal.Invalid,
			text:  "diff line 1: the file f has --- and +++ lines but no hunk",
		},
		{
			name:  "two names without a rename",
			input: text("diff --git a/f b/g", "--- a/f", "+++ b/g", "@@ -1 +1 @@", "-a", "+b"),
			class: refusal.Invalid,
			text:  "diff line 1: the section names f and g but is not a rename",
		},
		{
			name:  "both sides absent",
			input: text("--- /dev/null", "+++ /dev/null", "@@ -0,0 +1 @@", "+a"),
			class: refusal.Invalid,
			text:  "diff line 2: both the --- and the +++ line name no file",
		},
		{
			name:  "a +++ line without a name",
			input: text("prose", "--- /dev/null", "+++ ", "@@ -0,0 +1 @@", "+a"),
			class: refusal.Invalid,
			text:  "diff line 2: the section names no file",
		},
		{
			name:  "an unsplittable header with nothing else",
			input: text("diff --git nonsense", "new file mode 100644"),
			class: refusal.Invalid,
			text:  "diff line 1: the diff --git header has no two names",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parse(tt.input)
			if err == nil {
				t.Fatalf("Parse succeeded with %+v", d)
			}
			if d != nil {
				t.Errorf("a draft came with the refusal")
			}
			wantErr(t, err, tt.class, tt.text)
		})
	}
}

func TestApplyRefuses(t *testing.T) {
	tests := []struct {
		name  string
		input []byte
		base  string
		text  string
	}{
		{
			name: "the hunk's lines are not in the file",
			input: text(
				"Fix the loop.", "", "", "", "", "", "", // prose, so that the hunk lands on line 14
				"diff --git a/a.go b/a.go",
				"--- a/a.go",
				"+++ b/a.go",
				"@@ -1,2 +1,2 @@",
				"-package a",
				"+package b",
				" ",
				"@@ -10,3 +10,3 @@",
				" for {",
				"-\tbreak",
				"+\tcontinue",
				" }",
			),
			base: "package a\n\nfor {\n\treturn\n}\n",
			text: "diff line 15: hunk 2 of a.go: these 3 lines are not in the file",
		},
		{
			name:  "one line, not in the file",
			input: text("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-x", "+y"),
			base:  "a\n",
			text:  "diff line 3: hunk 1 of f: this line is not in the file",
		},
		{
			name:  "the lines are in several places, none at the stated line",
			input: text("--- a/f", "+++ b/f", "@@ -7,3 +7,3 @@", " x", "-y", "+z", " q"),
			base:  "x\ny\nq\nx\ny\nq\n",
			text:  "diff line 3: hunk 1 of f: these 3 lines are at lines 1 and 4 of the file, not at line 7 as its header says",
		},
		{
			name:  "a missing newline that would join the next line",
			input: text("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-x", "+y", `\ No newline at end of file`),
			base:  "x\nz\n",
			text:  "diff line 3: hunk 1 of f would join two lines: it leaves a line without newline before others",
		},
		{
			name:  "a missing newline that must be the whole file",
			input: text("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " w", "-x", "+y", `\ No newline at end of file`),
			base:  "w\nx\nz\n",
			text:  "diff line 3: hunk 1 of f: these 2 lines are at line 1 of the file, but the hunk starts at line 1 and has no context after its changes, so it must be the whole file",
		},
		{
			name:  "an insertion after a last line without newline",
			input: text("--- a/f", "+++ b/f", "@@ -1,0 +2 @@", "+z"),
			base:  "a",
			text:  "diff line 3: hunk 1 of f would join two lines: it leaves a line without newline before others",
		},
		{
			name:  "a deletion of other bytes",
			input: text("", "diff --git a/d b/d", "deleted file mode 100644", "--- a/d", "+++ /dev/null", "@@ -1,2 +0,0 @@", "-a", "-b"),
			base:  "a\nb\nc\n",
			text:  "diff line 2: the diff deletes d, but the file holds other bytes than the 2 lines it removes",
		},
		{
			name:  "a deletion of another blob",
			input: text("diff --git a/d b/d", "deleted file mode 100644", "index e69de29..0000000"),
			base:  "not empty\n",
			text:  "diff line 1: the diff deletes d as blob e69de29, but the file is blob 042c24a",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parse(tt.input)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var last error
			for _, in := range d.Intents {
				if in.Edit == nil {
					continue
				}
				if _, err := in.Edit.Apply([]byte(tt.base)); err != nil {
					last = err
				}
			}
			wantErr(t, last, refusal.Invalid, tt.text)
		})
	}
}

func TestParseLimit(t *testing.T) {
	in := text("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-a", "+b")
	if _, err := ParseLimit(in, len(in)); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := ParseLimit(in, len(in)-1)
	wantErr(t, err, refusal.TooLarge, fmt.Sprintf("the diff is %d bytes, over the limit of %d bytes", len(in), len(in)-1))
	_, err = parse(make([]byte, MaxInput+1))
	wantErr(t, err, refusal.TooLarge, "the diff is 16777217 bytes (16.0 MiB), over the limit of 16777216 bytes (16.0 MiB)")
	if _, err := ParseLimit(make([]byte, MaxInput+1), 0); refusal.ClassOf(err) != refusal.TooLarge {
		t.Errorf("ParseLimit(_, 0) must mean MaxInput: %v", err)
	}
}

// mapBase is a changeset.Base over a map of files.
type mapBase map[string]string

func (m mapBase) Entry(p changeset.Path) (changeset.Entry, error) {
	if b, ok := m[string(p)]; ok {
		return changeset.Entry{Kind: changeset.File, Mode: changeset.ModeFile, Bytes: []byte(b)}, nil
	}
	return changeset.Entry{Kind: changeset.Absent}, nil
}

func TestDraftResolves(t *testing.T) {
	diff := text(
		"diff --git a/flow.nika.yaml b/flow.nika.yaml",
		"--- a/flow.nika.yaml",
		"+++ b/flow.nika.yaml",
		"@@ -1,2 +1,2 @@",
		" name: flow",
		"-steps: []",
		"+steps: [a]",
		"diff --git a/new.nika b/new.nika",
		"new file mode 100644",
		"--- /dev/null",
		"+++ b/new.nika",
		"@@ -0,0 +1 @@",
		"+x",
		"diff --git a/old.nika b/moved.nika",
		"similarity index 100%",
		"rename from old.nika",
		"rename to moved.nika",
		"diff --git a/gone.nika b/gone.nika",
		"deleted file mode 100644",
		"--- a/gone.nika",
		"+++ /dev/null",
		"@@ -1 +0,0 @@",
		"-bye",
	)
	d, err := parse(diff)
	if err != nil {
		t.Fatal(err)
	}
	base := mapBase{"flow.nika.yaml": "name: flow\nsteps: []\n", "old.nika": "o\n", "gone.nika": "bye\n"}
	changes, _, err := changeset.Resolve(d, base, changeset.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range changes {
		after := "<absent>"
		if c.After != nil {
			after = string(c.After.Bytes)
		}
		got[string(c.Kind)+" "+string(c.Path)+" "+string(c.From)] = after
	}
	want := map[string]string{
		"update flow.nika.yaml ":   "name: flow\nsteps: [a]\n",
		"create new.nika ":         "x\n",
		"move moved.nika old.nika": "o\n",
		"delete gone.nika ":        "<absent>",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("changes = %q\nwant      %q", got, want)
	}

	// The resolver's refusals name the diff's line.
	_, _, err = changeset.Resolve(d, mapBase{"flow.nika.yaml": "name: other\n", "old.nika": "o\n", "gone.nika": "bye\n"}, changeset.Policy{})
	wantErr(t, err, refusal.Invalid, "diff line 4: hunk 1 of flow.nika.yaml: these 2 lines are not in the file")
}

// The hunk search agrees with the obvious quadratic one.
func TestOccurrences(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	words := [][]byte{[]byte("a\n"), []byte("b\n"), []byte("a")}
	pick := func(n int) [][]byte {
		ls := make([][]byte, n)
		for i := range ls {
			ls[i] = words[rng.Intn(len(words))]
		}
		return ls
	}
	for round := 0; round < 2000; round++ {
		hay, needle := pick(rng.Intn(20)), pick(1+rng.Intn(4))
		var want []int
		for p := 0; p+len(needle) <= len(hay); p++ {
			ok := true
			for i := range needle {
				ok = ok && string(hay[p+i]) == string(needle[i])
			}
			if ok {
				want = append(want, p)
			}
		}
		if got := occurrences(hay, needle); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("occurrences(%q, %q) = %v, want %v", hay, needle, got, want)
		}
	}
}

// An Edit is applied by the resolver long after Parse returned: it must not
// depend on the caller's buffer.
func TestEditsDoNotAliasTheInput(t *testing.T) {
	in := text("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-old", "+new")
	d, err := parse(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = '?'
	}
	got, err := d.Intents[0].Edit.Apply([]byte("old\n"))
	if err != nil || string(got) != "new\n" {
		t.Errorf("Apply after the input changed = %q, %v; want \"new\\n\"", got, err)
	}
}
