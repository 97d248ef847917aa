package reply

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// parse reads an input under the default limit (MaxInput), as the
// package's callers do with ParseLimit.
func parse(input []byte) (*changeset.Draft, error) { return ParseLimit(input, 0) }

// file is one expected intent: its path, exact content and the line of its
// opening fence.
type file struct {
	path    string
	content string
	line    int
}

// md builds markdown from a table's text, where every ' stands for a
// backtick so that fences stay readable in Go strings.
func md(s string) []byte { return []byte(strings.ReplaceAll(s, "'", "`")) }

func TestParseProposesFiles(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []file
	}{
		{
			name:  "a reply with no block proposes nothing",
			input: "Sure, here is what I think.\nNo files today.\n",
			want:  nil,
		},
		{
			name:  "an empty reply proposes nothing",
			input: "",
			want:  nil,
		},
		{
			name:  "path= in the info string names the file",
			input: "Here:\n\n'''yaml path=daily.nika.yaml\nname: daily\nsteps: []\n'''\n\nDone.\n",
			want:  []file{{"daily.nika.yaml", "name: daily\nsteps: []\n", 3}},
		},
		{
			name:  "path= may come first",
			input: "'''path=a.txt\nx\n'''\n",
			want:  []file{{"a.txt", "x\n", 1}},
		},
		{
			name:  "path= among other attributes",
			input: "'''yaml title=\"my flow\" path=flows/a.nika.yaml linenos\nx\n'''\n",
			want:  []file{{"flows/a.nika.yaml", "x\n", 1}},
		},
		{
			name:  "a quoted path keeps its spaces",
			input: "'''text path=\"a b.txt\"\nx\n'''\n",
			want:  []file{{"a b.txt", "x\n", 1}},
		},
		{
			name:  "a quoted path unescapes \\\" and \\\\ only",
			input: "'''text path=\"say \\\"hi\\\" \\\\ \\n.txt\"\nx\n'''\n",
			want:  []file{{`say "hi" \ \n.txt`, "x\n", 1}},
		},
		{
			name:  "the same path= twice is one path",
			input: "'''path=a path=a\nx\n'''\n",
			want:  []file{{"a", "x\n", 1}},
		},
		{
			name:  "a first line # path: names the file and is not content",
			input: "'''yaml\n# path: flows/b.nika.yaml\nname: b\n'''\n",
			want:  []file{{"flows/b.nika.yaml", "name: b\n", 1}},
		},
		{
			name:  "the marker tolerates spacing and a quoted path",
			input: "'''\n#path:   \"c d.nika\"  \nx\n'''\n",
			want:  []file{{"c d.nika", "x\n", 1}},
		},
		{
			name:  "the marker with the same path as path= is still not content",
			input: "'''yaml path=a.nika.yaml\n# path: a.nika.yaml\nx: 1\n'''\n",
			want:  []file{{"a.nika.yaml", "x: 1\n", 1}},
		},
		{
			name:  "a marker on a later line is content",
			input: "'''yaml path=a.nika.yaml\nx: 1\n# path: b\n'''\n",
			want:  []file{{"a.nika.yaml", "x: 1\n# path: b\n", 1}},
		},
		{
			name:  "other comments on the first line are content",
			input: "'''yaml path=a.nika.yaml\n# pathological\n'''\n",
			want:  []file{{"a.nika.yaml", "# pathological\n", 1}},
		},
		{
			name:  "blocks without a path are prose",
			input: "'''go\nfunc main() {}\n'''\n\n'''yaml path=a.nika\nx\n'''\n~~~\n# not a path\n~~~\n",
			want:  []file{{"a.nika", "x\n", 5}},
		},
		{
			name:  "several files keep their order and lines",
			input: "one\n'''path=b\nB\n'''\ntwo\n\n'''path=a\nA1\nA2\n'''\n",
			want:  []file{{"b", "B\n", 2}, {"a", "A1\nA2\n", 7}},
		},
		{
			name:  "a block with no lines is the empty file",
			input: "'''path=empty.txt\n'''\n",
			want:  []file{{"empty.txt", "", 1}},
		},
		{
			name:  "a block with only the marker is the empty file",
			input: "'''\n# path: empty.txt\n'''\n",
			want:  []file{{"empty.txt", "", 1}},
		},
		{
			name:  "blank lines are content, exactly",
			input: "'''path=a\n\n\nx\n\n'''\n",
			want:  []file{{"a", "\n\nx\n\n", 1}},
		},
		{
			name:  "a longer fence holds a shorter one",
			input: "''''markdown path=README.md\n# Title\n'''sh\nls\n'''\n''''\n",
			want:  []file{{"README.md", "# Title\n```sh\nls\n```\n", 1}},
		},
		{
			name:  "a tilde fence holds backtick fences",
			input: "~~~ path=doc.md\n'''\nx\n'''\n~~~\n",
			want:  []file{{"doc.md", "```\nx\n```\n", 1}},
		},
		{
			name:  "a tilde fence's info string may hold backticks",
			input: "~~~ path=a `weird`\nx\n~~~\n",
			want:  []file{{"a", "x\n", 1}},
		},
		{
			name:  "a closing fence may be longer than the opening one",
			input: "'''path=a\nx\n'''''\n",
			want:  []file{{"a", "x\n", 1}},
		},
		{
			name:  "a closing fence may have trailing spaces and up to 3 spaces of indent",
			input: "'''path=a\nx\n   '''  \t\n",
			want:  []file{{"a", "x\n", 1}},
		},
		{
			name:  "a fence line with text after it does not close",
			input: "'''path=a\n''' not a close\n~~~\n'''\n",
			want:  []file{{"a", "``` not a close\n~~~\n", 1}},
		},
		{
			name:  "the other fence character does not close",
			input: "~~~path=a\n'''\n~~~\n",
			want:  []file{{"a", "```\n", 1}},
		},
		{
			name:  "a fence indented by 4 spaces is not a fence",
			input: "    '''path=a\n    x\n    '''\n",
			want:  nil,
		},
		{
			name:  "a backtick run with a backtick after it is inline code, not a fence",
			input: "'''path=a''' is inline\n'''path=b\nx\n'''\n",
			want:  []file{{"b", "x\n", 2}},
		},
		{
			name:  "an indented fence strips that much indentation from its lines",
			input: "1. step\n\n  '''path=a\n  x:\n    y\n z\nw\n  '''\n",
			want:  []file{{"a", "x:\n  y\nz\nw\n", 3}},
		},
		{
			name:  "tabs are never stripped",
			input: " '''path=a\n\tx\n '''\n",
			want:  []file{{"a", "\tx\n", 1}},
		},
		{
			name:  "a reply may end right after the closing fence",
			input: "'''path=a\nx\n'''",
			want:  []file{{"a", "x\n", 1}},
		},
		{
			name:  "an unclosed block without a path runs to the end and hides what follows",
			input: "'''\nx\n'''yaml path=a\ny\n",
			want:  nil,
		},
		{
			name:  "CRLF: fences are recognized and the content keeps its bytes",
			input: "Here\r\n'''yaml path=a.nika.yaml\r\nx: 1\r\ny: 2\r\n'''\r\n",
			want:  []file{{"a.nika.yaml", "x: 1\r\ny: 2\r\n", 2}},
		},
		{
			name:  "CRLF: the marker line and its line ending are dropped",
			input: "'''\r\n# path: a.txt\r\nx\r\n'''\r\n",
			want:  []file{{"a.txt", "x\r\n", 1}},
		},
		{
			name:  "mixed line endings are kept as written",
			input: "'''path=a\nx\r\ny\n'''\r\n",
			want:  []file{{"a", "x\r\ny\n", 1}},
		},
		{
			name:  "a lone CR is not a line end",
			input: "'''path=a\rx\n'''\n",
			want:  []file{{"a\rx", "", 1}},
		},
		{
			name:  "a diff may be the content of a .patch or .diff file",
			input: "'''diff path=fix.patch\n--- a/x\n+++ b/x\n'''\n'''diff path=b.diff\n-a\n'''\n",
			want:  []file{{"fix.patch", "--- a/x\n+++ b/x\n", 1}, {"b.diff", "-a\n", 5}},
		},
		{
			name:  "a diff block without a path is another format, not a file",
			input: "'''diff\n--- a/x\n+++ b/x\n'''\n",
			want:  nil,
		},
		{
			name:  "paths the resolver judges pass through as written",
			input: "'''path=../etc/passwd\nx\n'''\n'''path=/abs\ny\n'''\n",
			want:  []file{{"../etc/passwd", "x\n", 1}, {"/abs", "y\n", 4}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parse(md(tt.input))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d.Format != "reply" {
				t.Errorf("Format = %q, want reply", d.Format)
			}
			var got []file
			for _, in := range d.Intents {
				if in.Op != changeset.OpWrite || in.Edit != nil || in.To != "" {
					t.Errorf("intent %+v is not a plain write", in)
				}
				if in.Content == nil {
					t.Errorf("intent for %q has nil content; the resolver would read that as 'keep'", in.Path)
				}
				got = append(got, file{in.Path, string(in.Content), in.Line})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d files %#v, want %d %#v", len(got), got, len(tt.want), tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("file %d = %#v, want %#v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name  string
		input string
		class refusal.Class
		text  string
	}{
		{
			name:  "an empty path=",
			input: "prose\n\n'''yaml path=\nx\n'''\n",
			class: refusal.Invalid,
			text:  "reply line 3: the block's path= names no path",
		},
		{
			name:  "an empty quoted path=",
			input: "'''yaml path=\"\"\nx\n'''\n",
			class: refusal.Invalid,
			text:  "reply line 1: the block's path= names no path",
		},
		{
			name:  "an empty marker",
			input: "a\n'''\n# path:\nx\n'''\n",
			class: refusal.Invalid,
			text:  "reply line 3: the block's # path: line names no path",
		},
		{
			name:  "a NUL in path=",
			input: "'''path=a\x00b\nx\n'''\n",
			class: refusal.Invalid,
			text:  `reply line 1: the block's path= names the path "a\u0000b", which contains a NUL byte`,
		},
		{
			name:  "a NUL in the marker",
			input: "'''\n# path: a\x00\n'''\n",
			class: refusal.Invalid,
			text:  `reply line 2: the block's # path: line names the path "a\u0000", which contains a NUL byte`,
		},
		{
			name:  "an unclosed quote in path=",
			input: "x\n'''path=\"a b.txt\nx\n'''\n",
			class: refusal.Invalid,
			text:  "reply line 2: the block's path= has an unclosed quote",
		},
		{
			name:  "text after the closing quote",
			input: "'''path=\"a\"b\nx\n'''\n",
			class: refusal.Invalid,
			text:  "reply line 1: the block's path= has text after its closing quote",
		},
		{
			name:  "two different path= in one block",
			input: "'''path=a path=b\nx\n'''\n",
			class: refusal.Invalid,
			text:  `reply line 1: the block names two paths, "a" and "b"`,
		},
		{
			name:  "path= and a marker that disagree",
			input: "\n'''path=a\n# path: b\nx\n'''\n",
			class: refusal.Invalid,
			text:  `reply line 3: the block names two paths, "a" in its info string and "b" on its first line`,
		},
		{
			name:  "an unclosed block with path=",
			input: "intro\n\n'''yaml path=a.nika.yaml\nx: 1\n",
			class: refusal.Invalid,
			text:  `reply line 3: the block for "a.nika.yaml" opened here is never closed`,
		},
		{
			name:  "an unclosed block with a marker",
			input: "'''\n'''\n\n~~~~\n# path: a\nx\n~~~\n",
			class: refusal.Invalid,
			text:  `reply line 4: the block for "a" opened here is never closed`,
		},
		{
			name:  "a block closed by a shorter fence is unclosed",
			input: "''''path=a\nx\n'''\n",
			class: refusal.Invalid,
			text:  `reply line 1: the block for "a" opened here is never closed`,
		},
		{
			name:  "a diff block with a path",
			input: "Fix:\n'''diff path=src/a.go\n--- a/src/a.go\n+++ b/src/a.go\n'''\n",
			class: refusal.Invalid,
			text:  `reply line 2: the block for "src/a.go" holds a diff, not the file's content`,
		},
		{
			name:  "an apply_patch payload with a path",
			input: "'''\n# path: a.go\n*** Begin Patch\n*** End Patch\n'''\n",
			class: refusal.Invalid,
			text:  `reply line 1: the block for "a.go" holds an apply_patch payload, not the file's content`,
		},
		{
			name:  "an apply_patch payload in a heredoc, with a path",
			input: "'''bash path=a.go\ncd src && apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF\n'''\n",
			class: refusal.Invalid,
			text:  `reply line 1: the block for "a.go" holds an apply_patch payload, not the file's content`,
		},
		{
			name:  "a git diff with a path",
			input: "'''text path=a.go\ndiff --git a/a.go b/a.go\n'''\n",
			class: refusal.Invalid,
			text:  `reply line 1: the block for "a.go" holds a diff, not the file's content`,
		},
		{
			name:  "the first error wins",
			input: "'''path=ok\nx\n'''\n'''path=\n'''\n'''path=a path=b\n'''\n",
			class: refusal.Invalid,
			text:  "reply line 4: the block's path= names no path",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parse(md(tt.input))
			if err == nil {
				t.Fatalf("Parse succeeded with %+v, want %s", d, tt.text)
			}
			if d != nil {
				t.Errorf("Parse returned a draft with its error")
			}
			var e *refusal.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not a *refusal.Error", err, err)
			}
			if e.Class != tt.class {
				t.Errorf("class = %s, want %s", e.Class, tt.class)
			}
			if e.Text != tt.text {
				t.Errorf("text = %q\nwant   %q", e.Text, tt.text)
			}
			if e.Hint == "" {
				t.Errorf("no hint for %q", e.Text)
			}
		})
	}
}

func TestParseLimitRefusesLargeInput(t *testing.T) {
	in := md("'''path=a\n" + strings.Repeat("x", 100) + "\n'''\n")
	if _, err := ParseLimit(in, len(in)); err != nil {
		t.Fatalf("input at the limit: %v", err)
	}
	_, err := ParseLimit(in, len(in)-1)
	var e *refusal.Error
	if !errors.As(err, &e) || e.Class != refusal.TooLarge {
		t.Fatalf("err = %v, want TooLarge", err)
	}
	want := fmt.Sprintf("the reply is %d bytes, over the limit of %d bytes", len(in), len(in)-1)
	if e.Text != want || e.Hint != "split the input, or raise the input limit" || e.Fix != refusal.RaiseInputLimit || e.Subject != fmt.Sprint(len(in)-1) {
		t.Errorf("got %q · %q (fix %q %q), want %q with the fix to raise the limit of %d", e.Text, e.Hint, e.Fix, e.Subject, want, len(in)-1)
	}

	big := make([]byte, MaxInput+1)
	_, err = parse(big)
	if !errors.As(err, &e) || e.Class != refusal.TooLarge {
		t.Fatalf("Parse of MaxInput+1 bytes: err = %v, want TooLarge", err)
	}
	if want := "the reply is 16777217 bytes (16.0 MiB), over the limit of 16777216 bytes (16.0 MiB)"; e.Text != want {
		t.Errorf("text = %q, want %q", e.Text, want)
	}
	if _, err := BlocksLimit(big, 0); refusal.ClassOf(err) != refusal.TooLarge {
		t.Errorf("Blocks of MaxInput+1 bytes: err = %v, want TooLarge", err)
	}
	if _, err := ParseLimit(big, 0); refusal.ClassOf(err) != refusal.TooLarge {
		t.Errorf("ParseLimit(_, 0) must mean MaxInput: err = %v", err)
	}
	if _, err := ParseLimit(big, MaxInput+1); err != nil {
		t.Errorf("a raised limit: %v", err)
	}
}

func TestBlocksListsEveryBlock(t *testing.T) {
	in := md("Here is a patch:\n\n" +
		"'''diff\n--- a/x\n+++ b/x\n'''\n" +
		"and a file\n" +
		"~~~~ yaml path=a.nika.yaml\n# path: a.nika.yaml\nx\n~~~~\n" +
		"  '''\n  *** Begin Patch\n  *** End Patch\n")
	bs, err := BlocksLimit(in, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{Line: 3, Fence: "```", Info: "diff", Content: []byte("--- a/x\n+++ b/x\n"), Closed: true},
		{Line: 8, Fence: "~~~~", Info: "yaml path=a.nika.yaml", Content: []byte("# path: a.nika.yaml\nx\n"), Closed: true},
		{Line: 12, Fence: "```", Info: "", Content: []byte("*** Begin Patch\n*** End Patch\n"), Closed: false},
	}
	if len(bs) != len(want) {
		t.Fatalf("got %d blocks %+v, want %d", len(bs), bs, len(want))
	}
	for i := range want {
		g, w := bs[i], want[i]
		if g.Line != w.Line || g.Fence != w.Fence || g.Info != w.Info || !bytes.Equal(g.Content, w.Content) || g.Closed != w.Closed {
			t.Errorf("block %d = %+v\nwant      %+v", i, g, w)
		}
	}
	if l := bs[0].Lang(); l != "diff" {
		t.Errorf("Lang = %q, want diff", l)
	}
	if l := bs[2].Lang(); l != "" {
		t.Errorf("Lang of a bare fence = %q, want empty", l)
	}
	if l := (Block{Info: "path=a"}).Lang(); l != "" {
		t.Errorf("Lang of path=a = %q, want empty", l)
	}
}

func TestBlocksDoNotAliasTheInput(t *testing.T) {
	in := md("'''path=a\nxyz\n'''\n")
	d, err := parse(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = '!'
	}
	if got := string(d.Intents[0].Content); got != "xyz\n" {
		t.Errorf("content changed with the input buffer: %q", got)
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
	in := md("'''yaml path=new.nika.yaml\nname: new\n'''\n" +
		"'''yaml path=old.nika.yaml\n'''\n" +
		"'''path=same.nika\nsame\n'''\n")
	d, err := parse(in)
	if err != nil {
		t.Fatal(err)
	}
	base := mapBase{"old.nika.yaml": "name: old\n", "same.nika": "same\n"}
	changes, unchanged, err := changeset.Resolve(d, base, changeset.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 || len(unchanged) != 1 || unchanged[0] != "same.nika" {
		t.Fatalf("changes %+v unchanged %v", changes, unchanged)
	}
	if c := changes[0]; c.Path != "new.nika.yaml" || c.Kind != changeset.Create || string(c.After.Bytes) != "name: new\n" {
		t.Errorf("new: %+v", c)
	}
	if c := changes[1]; c.Path != "old.nika.yaml" || c.Kind != changeset.Update || len(c.After.Bytes) != 0 {
		t.Errorf("an empty block must empty the file: %+v", c)
	}

	// The resolver names the reply's line for what it refuses.
	d, err = parse(md("\n'''path=a.nika\nx\n'''\n'''path=../b.nika\ny\n'''\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = changeset.Resolve(d, base, changeset.Policy{})
	if err == nil || !strings.HasPrefix(err.Error(), "reply line 5: ") {
		t.Errorf("resolve error = %v, want it to name reply line 5", err)
	}
}
