package applypatch

import (
	"errors"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// parse reads an input under the default limit (MaxInput), as the
// package's callers do with ParseLimit.
func parse(input []byte) (*changeset.Draft, error) { return ParseLimit(input, 0) }

// lines joins its arguments with "\n" and ends them with one: a patch or a
// file written one line per argument.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// patch wraps operation lines in the markers.
func patch(ls ...string) string {
	return lines(append(append([]string{"*** Begin Patch"}, ls...), "*** End Patch")...)
}

// intent is the visible part of a changeset.Intent.
type intent struct {
	op      changeset.Op
	path    string
	to      string
	content string // for OpAdd
	line    int
	chunks  int // for an update
}

func view(in changeset.Intent) intent {
	v := intent{op: in.Op, path: in.Path, to: in.To, line: in.Line}
	if in.Op == changeset.OpAdd {
		v.content = string(in.Content)
	}
	if e, ok := in.Edit.(*edit); ok {
		v.chunks = len(e.chunks)
	}
	return v
}

func TestParseReadsOperations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []intent
	}{
		{"an added file holds its + lines, each ending in a newline",
			patch("*** Add File: a.txt", "+one", "+", "+three"),
			[]intent{{op: changeset.OpAdd, path: "a.txt", content: "one\n\nthree\n", line: 2}}},
		{"an added file with no line is empty",
			patch("*** Add File: empty.txt"),
			[]intent{{op: changeset.OpAdd, path: "empty.txt", content: "", line: 2}}},
		{"a blank line between + lines is an empty line of the added file",
			patch("*** Add File: a.txt", "+one", "", "+three"),
			[]intent{{op: changeset.OpAdd, path: "a.txt", content: "one\n\nthree\n", line: 2}}},
		{"blank lines after an added file separate operations",
			patch("*** Add File: a.txt", "+one", "", "", "*** Delete File: b.txt"),
			[]intent{{op: changeset.OpAdd, path: "a.txt", content: "one\n", line: 2}, {op: changeset.OpDelete, path: "b.txt", line: 6}}},
		{"a deletion",
			patch("*** Delete File: old.txt"),
			[]intent{{op: changeset.OpDelete, path: "old.txt", line: 2}}},
		{"an update is an edit with its chunks",
			patch("*** Update File: a.go", "@@", "-x", "+y", "@@ func f()", " a", "-b"),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 2, chunks: 2}}},
		{"the first chunk may omit its @@ line",
			patch("*** Update File: a.go", "-x", "+y", "@@", "-z"),
			[]intent{{op: changeset.OpEdit, path: "a.go", line: 2, chunks: 2}}},
		{"an update with a move is a move that carries the edit",
			patch("*** Update File: a.go", "*** Move to: b/a.go", "@@", "-x", "+y"),
			[]intent{{op: changeset.OpMove, path: "a.go", to: "b/a.go", line: 2, chunks: 1}}},
		{"a move with no chunk is a pure rename",
			patch("*** Update File: a.go", "*** Move to: b.go"),
			[]intent{{op: changeset.OpMove, path: "a.go", to: "b.go", line: 2}}},
		{"whitespace around markers and paths is ignored",
			lines("  *** Begin Patch ", "\t*** Add File:   a b.txt  ", "+x", " *** End Patch\t"),
			[]intent{{op: changeset.OpAdd, path: "a b.txt", content: "x\n", line: 2}}},
		{"an indented operation marker after an operation starts the next one",
			patch("*** Delete File: a", "  *** Delete File: b"),
			[]intent{{op: changeset.OpDelete, path: "a", line: 2}, {op: changeset.OpDelete, path: "b", line: 3}}},
		{"an indented line inside a chunk is context, even if it reads like a marker",
			patch("*** Update File: a", "@@", " *** End of File", "-x"),
			[]intent{{op: changeset.OpEdit, path: "a", line: 2, chunks: 1}}},
		{"several operations keep their order and lines",
			patch("*** Add File: n/new.txt", "+created", "*** Delete File: d.txt", "*** Update File: m.txt", "@@", "-line2", "+changed"),
			[]intent{
				{op: changeset.OpAdd, path: "n/new.txt", content: "created\n", line: 2},
				{op: changeset.OpDelete, path: "d.txt", line: 4},
				{op: changeset.OpEdit, path: "m.txt", line: 5, chunks: 1},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parse([]byte(tc.input))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if d.Format != "patch" {
				t.Errorf("format %q, want patch", d.Format)
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

func TestParseAcceptsWhatModelsWrapThePatchIn(t *testing.T) {
	body := patch("*** Add File: a.txt", "+x")
	for _, tc := range []struct {
		name, input string
		line        int // of the Add File line
	}{
		{"the bare patch", body, 2},
		{"a quoted heredoc", "apply_patch <<'EOF'\n" + body + "EOF\n", 3},
		{"a double-quoted heredoc", "apply_patch << \"PATCH\"\n" + body + "PATCH\n", 3},
		{"a heredoc piped into apply_patch", "cat <<EOF | apply_patch\n" + body + "EOF\n", 3},
		{"a heredoc in a command substitution", "apply_patch \"$(cat <<'EOF'\n" + body + "EOF\n)\"\n", 3},
		{"a heredoc whose terminator is missing", "apply_patch <<'EOF'\n" + body, 3},
		{"a markdown fence", "```diff\n" + body + "```\n", 3},
		{"a fence around a heredoc", "```bash\napply_patch <<'EOF'\n" + body + "EOF\n```\n", 4},
		{"blank lines around", "\n\n" + body + "\n\n", 4},
		{"a bare heredoc", "<<EOF\n" + body + "EOF\n", 3},
		{"a bare quoted heredoc", "<<'EOF'\n" + body + "EOF\n", 3},
		{"a bare double-quoted heredoc", "<<\"EOF\"\n" + body + "EOF\n", 3},
		{"a bare heredoc in a fence", "```\n<<'PATCH'\n" + body + "PATCH\n```\n", 4},
		{"CRLF line endings", strings.ReplaceAll(body, "\n", "\r\n"), 2},
		{"a byte order mark", "\ufeff" + body, 2},
		{"no final newline", strings.TrimSuffix(body, "\n"), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !Looks([]byte(tc.input)) {
				t.Errorf("Looks = false")
			}
			d, err := parse([]byte(tc.input))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if len(d.Intents) != 1 || string(d.Intents[0].Content) != "x\n" || d.Intents[0].Line != tc.line {
				t.Fatalf("got %+v, want one add of \"x\\n\" at line %d", d.Intents, tc.line)
			}
		})
	}
}

func TestParseRefusesWithTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, input, text string
	}{
		{"an empty input", "", `patch line 1: the input holds no *** Begin Patch`},
		{"no begin marker", lines("*** Add File: a", "+x", "*** End Patch"), `patch line 1: the input does not start with *** Begin Patch: "*** Add File: a"`},
		{"prose before the patch", lines("Here is the fix:", "*** Begin Patch", "*** End Patch"), `patch line 1: text before *** Begin Patch (at line 2): "Here is the fix:"`},
		{"prose after the patch", lines("*** Begin Patch", "*** Delete File: a", "*** End Patch", "Done."), `patch line 4: text after *** End Patch (at line 3): "Done."`},
		{"a heredoc terminator that is not the opener's", lines("apply_patch <<'EOF'", "*** Begin Patch", "*** Delete File: a", "*** End Patch", "PATCH"), `patch line 5: text after *** End Patch (at line 4): "PATCH"`},
		{"a heredoc that does not feed apply_patch", lines("cat > p <<EOF", "*** Begin Patch", "*** End Patch", "EOF"), `patch line 1: text before *** Begin Patch (at line 2): "cat > p <<EOF"`},
		{"no end marker", lines("*** Begin Patch", "*** Delete File: a"), `patch line 2: the patch has no *** End Patch`},
		{"no operation", patch(), `patch line 1: the patch holds no operation`},
		{"only blank lines", patch("", "  "), `patch line 1: the patch holds no operation`},
		{"an unknown operation", patch("*** Rename File: a"), `patch line 2: "*** Rename File: a" is not an operation`},
		{"a line that is no operation", patch("hello"), `patch line 2: expected an operation, got "hello"`},
		{"an add with no path", patch("*** Add File:  "), `patch line 2: *** Add File: names no path`},
		{"a delete with no path", patch("*** Delete File:"), `patch line 2: *** Delete File: names no path`},
		{"a move with no path", patch("*** Update File: a", "*** Move to: "), `patch line 3: *** Move to: names no path`},
		{"an added line without +", patch("*** Add File: a.txt", "+one", "two"), `patch line 4: a line of the new file "a.txt" does not start with +: "two"`},
		{"lines after a deletion", patch("*** Delete File: a", "-x"), `patch line 3: unexpected line after the deletion of "a": "-x"`},
		{"an update with no chunk", patch("*** Update File: a.go", "", "*** Delete File: b"), `patch line 2: the update of "a.go" has no chunk`},
		{"an empty chunk", patch("*** Update File: a.go", "@@", "@@ f", "*** Delete File: b"), `patch line 3: chunk 1 of "a.go" is empty`},
		{"a chunk of blank lines", patch("*** Update File: a.go", "@@ f", "", "", "*** Delete File: b"), `patch line 3: chunk 1 of "a.go" is empty`},
		{"a second chunk without @@", patch("*** Update File: a.go", "@@", "-x", "*** End of File", "-y"), `patch line 6: line after *** End of File in "a.go": "-y"`},
		{"a chunk line with no prefix", patch("*** Update File: a.go", "@@", " a", "b", "+c"), `patch line 5: chunk 1 of "a.go" has a line that starts with none of ' ', '-', '+': "b"`},
		{"a first chunk line with no prefix", patch("*** Update File: a.go", "func f() {"), `patch line 3: chunk 1 of "a.go" has a line that starts with none of ' ', '-', '+': "func f() {"`},
		{"a move not after an update", patch("*** Move to: b"), `patch line 2: *** Move to: follows no *** Update File:`},
		{"a move after a chunk", patch("*** Update File: a", "@@", "-x", "*** Move to: b"), `patch line 5: *** Move to: follows no *** Update File:`},
		{"end of file before any chunk", patch("*** Update File: a.go", "*** End of File"), `patch line 3: *** End of File follows no chunk of "a.go"`},
		{"end of file on an empty chunk", patch("*** Update File: a.go", "@@", "*** End of File"), `patch line 4: *** End of File ends the empty chunk 1 of "a.go"`},
		{"a second begin", patch("*** Begin Patch", "*** Delete File: a"), `patch line 2: a second *** Begin Patch inside the patch`},
		{"two patches in one input", patch("*** Delete File: a") + patch("*** Delete File: b"), `patch line 4: text after *** End Patch (at line 3): "*** Begin Patch"`},
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
		patch("*** Delete File: a"):              true,
		"apply_patch <<'EOF'\n*** Begin Patch\n": true,
		"":                                       false,
		"Here:\n*** Begin Patch\n":               false,
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n":    false,
		"<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n": false,
	} {
		if got := Looks([]byte(input)); got != want {
			t.Errorf("Looks(%q) = %v, want %v", input, got, want)
		}
	}
}

func TestParseLimit(t *testing.T) {
	in := []byte(patch("*** Add File: a.txt", "+x"))
	if _, err := ParseLimit(in, len(in)); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := ParseLimit(in, len(in)-1)
	var e *refusal.Error
	if !errors.As(err, &e) || e.Class != refusal.TooLarge || e.Text != "the patch is 53 bytes, over the limit of 52 bytes" {
		t.Fatalf("over the limit: %#v", err)
	}
}

// TestParseCdWrapper reads the cd of a `cd DIR && apply_patch <<'EOF'`
// wrapper: every path is under DIR, and the intents carry DIR for the
// resolver to check. A cd that nika cannot follow is refused, never
// ignored.
func TestParseCdWrapper(t *testing.T) {
	body := patch("*** Add File: a.txt", "+x", "*** Update File: old.txt", "*** Move to: sub/new.txt", "*** Delete File: /abs")
	for _, tc := range []struct {
		name, input, dir string
	}{
		{"cd DIR &&", "cd src && apply_patch <<'EOF'\n" + body + "EOF\n", "src"},
		{"cd DIR;", "cd src; apply_patch <<'EOF'\n" + body + "EOF\n", "src"},
		{"a quoted directory", "cd 'my dir' && apply_patch <<'EOF'\n" + body + "EOF\n", "my dir"},
		{"a double-quoted directory", "cd \"my dir\" && apply_patch <<'EOF'\n" + body + "EOF\n", "my dir"},
		{"./ and a trailing slash", "cd ./pkg/util/ && apply_patch <<'EOF'\n" + body + "EOF\n", "pkg/util"},
		{"two cds", "cd pkg && cd util && apply_patch <<EOF\n" + body + "EOF\n", "pkg/util"},
		{"in a fence, with a pipe", "```bash\ncd src && cat <<'EOF' | apply_patch\n" + body + "EOF\n```\n", "src"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !Looks([]byte(tc.input)) {
				t.Errorf("Looks = false")
			}
			d, err := parse([]byte(tc.input))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			want := []changeset.Intent{
				{Op: changeset.OpAdd, Path: tc.dir + "/a.txt", Dir: tc.dir},
				{Op: changeset.OpMove, Path: tc.dir + "/old.txt", To: tc.dir + "/sub/new.txt", Dir: tc.dir},
				{Op: changeset.OpDelete, Path: "/abs", Dir: tc.dir},
			}
			if len(d.Intents) != len(want) {
				t.Fatalf("%d intents", len(d.Intents))
			}
			for i, w := range want {
				in := d.Intents[i]
				if in.Op != w.Op || in.Path != w.Path || in.To != w.To || in.Dir != w.Dir {
					t.Errorf("intent %d = %s %q %q dir %q, want %s %q %q dir %q", i, in.Op, in.Path, in.To, in.Dir, w.Op, w.Path, w.To, w.Dir)
				}
			}
		})
	}
	for _, tc := range []struct {
		name, line string
		class      refusal.Class
		text       string
	}{
		{"a variable", "cd $DIR && apply_patch <<'EOF'", refusal.Invalid, `patch line 1: the wrapper's cd names "$DIR", which the shell expands, and nika cannot tell which directory it means`},
		{"the home directory", "cd ~/src && apply_patch <<'EOF'", refusal.Invalid, `patch line 1: the wrapper's cd names "~/src", which the shell expands, and nika cannot tell which directory it means`},
		{"no directory", "cd && apply_patch <<'EOF'", refusal.Invalid, `patch line 1: the wrapper's cd names no directory (it would go to the home directory), and nika cannot tell which directory it means`},
		{"the previous directory", "cd - && apply_patch <<'EOF'", refusal.Invalid, `patch line 1: the wrapper's cd names "-", which cd reads as an option, and nika cannot tell which directory it means`},
		{"a glob", "cd src* && apply_patch <<'EOF'", refusal.Invalid, `patch line 1: the wrapper's cd names "src*", which the shell expands, and nika cannot tell which directory it means`},
		{"an expansion in double quotes", "cd \"$HOME/x\" && apply_patch <<'EOF'", refusal.Invalid, `patch line 1: the wrapper's cd names "$HOME/x", which the shell expands, and nika cannot tell which directory it means`},
		{"a subshell", "(cd src; apply_patch <<'EOF')", refusal.Invalid, `patch line 1: the wrapper runs cd in a way nika does not follow: "(cd src; apply_patch <<'EOF')"`},
		{"pushd", "pushd src && apply_patch <<'EOF'", refusal.Invalid, `patch line 1: the wrapper runs pushd in a way nika does not follow: "pushd src && apply_patch <<'EOF'"`},
		{"a cd after another command", "git stash && cd src && apply_patch <<'EOF'", refusal.Invalid, `patch line 1: the wrapper runs cd in a way nika does not follow: "git stash && cd src && apply_patch <<'EOF'"`},
		{"a cd with no && after it", "cd src apply_patch <<'EOF'", refusal.Invalid, `patch line 1: the wrapper's cd "src" is not followed by && or ;`},
		{"out of the repository", "cd .. && apply_patch <<'EOF'", refusal.NotAllowed, `patch line 1: the wrapper's cd: path ".." contains '..' and could leave the repository`},
		{"an absolute directory", "cd /srv/repo && apply_patch <<'EOF'", refusal.NotAllowed, `patch line 1: the wrapper's cd: path "/srv/repo" is absolute`},
		{"into .git", "cd .git && apply_patch <<'EOF'", refusal.NotAllowed, `patch line 1: the wrapper's cd: path ".git" is inside .git`},
		{"the root as .", "cd . && apply_patch <<'EOF'", refusal.Invalid, `patch line 1: the wrapper's cd: path "." has a '.' component`},
		{"on the second wrapper line", "```sh\ncd a/../.. && apply_patch <<'EOF'", refusal.NotAllowed, `patch line 2: the wrapper's cd: path "a/../.." contains '..' and could leave the repository`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parse([]byte(tc.line + "\n" + patch("*** Add File: a.txt", "+x") + "EOF\n"))
			if err == nil {
				t.Fatalf("parsed %+v, want refused", d.Intents)
			}
			var e *refusal.Error
			if !errors.As(err, &e) || e.Class != tc.class || e.Text != tc.text || e.Hint == "" {
				t.Fatalf("got %#v\nwant %s %q with a hint", err, tc.class, tc.text)
			}
		})
	}
}
