package changeset

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nika-dev/nika/refusal"
)

// files is a Base over a map: a File if the map holds the path, a Dir if
// it is a prefix of one, else Absent.
type files map[string]string

func (m files) Entry(p Path) (Entry, error) {
	if b, ok := m[string(p)]; ok {
		return Entry{Kind: File, Mode: ModeFile, Blob: "b" + string(p), Bytes: []byte(b)}, nil
	}
	for k := range m {
		if strings.HasPrefix(k, string(p)+"/") {
			return Entry{Kind: Dir, Mode: ModeDir}, nil
		}
	}
	return Entry{Kind: Absent}, nil
}

// replace is an Edit that replaces old by new once, and refuses when old
// is not in the bytes.
type replace struct{ old, new string }

func (r replace) Apply(b []byte) ([]byte, error) {
	if !strings.Contains(string(b), r.old) {
		return nil, refusal.New(refusal.Invalid, "rebuild it", "%q is not in the file", r.old)
	}
	return []byte(strings.Replace(string(b), r.old, r.new, 1)), nil
}

func TestResolveFoldsSections(t *testing.T) {
	base := files{"a.txt": "one two", "dir/k.txt": "k", "A.md": "x"}
	edit := func(p, old, new string, line int) Intent {
		return Intent{Op: OpEdit, Path: p, Edit: replace{old, new}, Line: line}
	}
	for _, tc := range []struct {
		name      string
		intents   []Intent
		want      string // the changes, "kind path[<-from] after" sorted; "" for a refusal
		unchanged string
		class     refusal.Class
		text      string
	}{
		{"two edits compose, and witness the base",
			[]Intent{edit("a.txt", "one", "1", 1), edit("a.txt", "two", "2", 5)},
			"update a.txt 1 2 (before one two)", "", "", ""},
		{"a later edit sees what the earlier left",
			[]Intent{edit("a.txt", "one", "1", 1), edit("a.txt", "one", "uno", 5)},
			"", "", refusal.Invalid, `"one" is not in the file (section 2 for "a.txt", applied to what the section at line 1 left)`},
		{"an add, then an edit: one create",
			[]Intent{{Op: OpAdd, Path: "n.txt", Content: []byte("new"), Line: 1}, edit("n.txt", "new", "newer", 3)},
			"create n.txt newer", "", "", ""},
		{"an add, then a delete: nothing",
			[]Intent{{Op: OpAdd, Path: "n.txt", Content: []byte("new"), Line: 1}, {Op: OpDelete, Path: "n.txt", Line: 3}},
			"", "n.txt", "", ""},
		{"an edit, then a delete: a delete that witnesses the base",
			[]Intent{edit("a.txt", "one", "1", 1), {Op: OpDelete, Path: "a.txt", Line: 3}},
			"delete a.txt (before one two)", "", "", ""},
		{"a delete, then anything",
			[]Intent{{Op: OpDelete, Path: "a.txt", Line: 1}, {Op: OpAdd, Path: "a.txt", Content: []byte("again"), Line: 3}},
			"", "", refusal.Invalid, `input line 3: this section changes "a.txt", but the section at line 1 deletes it`},
		{"an edit, a move, an edit at the new name",
			[]Intent{edit("a.txt", "one", "1", 1), {Op: OpMove, Path: "a.txt", To: "b/c.txt", Line: 3}, edit("b/c.txt", "two", "2", 5)},
			"move b/c.txt<-a.txt 1 2 (before one two)", "", "", ""},
		{"the old name after a move",
			[]Intent{{Op: OpMove, Path: "a.txt", To: "b.txt", Line: 1}, edit("a.txt", "one", "1", 3)},
			"", "", refusal.Invalid, `input line 3: this section changes "a.txt", but the section at line 1 moves it to "b.txt"`},
		{"a rename that only changes case, then an edit at the new name",
			[]Intent{{Op: OpMove, Path: "A.md", To: "a.md", Line: 1}, edit("a.md", "x", "y", 3)},
			"move a.md<-A.md y (before x)", "", "", ""},
		{"a name that folds to another's is never a section of its change",
			[]Intent{edit("A.md", "x", "y", 1), edit("a.MD", "x", "z", 3)},
			"", "", refusal.NotAllowed, `input line 3: path "a.MD" collides with "A.md", which the same proposal also writes: on macOS and Windows they are the same file`},
		{"a second whole content",
			[]Intent{{Op: OpWrite, Path: "a.txt", Content: []byte("first"), Line: 1}, {Op: OpWrite, Path: "a.txt", Content: []byte("second"), Line: 4}},
			"", "", refusal.Invalid, `input line 4: two changes name the path "a.txt" (the first at line 1)`},
		{"a whole content, then an edit of it",
			[]Intent{{Op: OpWrite, Path: "a.txt", Content: []byte("first"), Line: 1}, edit("a.txt", "first", "second", 4)},
			"update a.txt second (before one two)", "", "", ""},
		{"a write whose Edit meets no file",
			[]Intent{{Op: OpWrite, Path: "n.txt", Edit: replace{"", "filled"}, Line: 1}},
			"create n.txt filled", "", "", ""},
		{"a copy starts from the base, whatever an earlier section did",
			[]Intent{edit("a.txt", "one", "1", 1), {Op: OpCopy, Path: "a.txt", To: "c.txt", Edit: replace{"two", "2"}, Line: 3}},
			"update a.txt 1 two (before one two)\ncreate c.txt one 2", "", "", ""},
		{"a copy, then an edit of the copy",
			[]Intent{{Op: OpCopy, Path: "a.txt", To: "c.txt", Line: 1}, edit("c.txt", "one", "1", 3)},
			"create c.txt 1 two", "", "", ""},
		{"a copy of a directory",
			[]Intent{{Op: OpCopy, Path: "dir", To: "c.txt", Line: 1}},
			"", "", refusal.NotAllowed, `input line 1: path "dir" is a directory`},
		{"a move onto a path another section writes",
			[]Intent{{Op: OpAdd, Path: "b.txt", Content: []byte("b"), Line: 1}, {Op: OpMove, Path: "a.txt", To: "b.txt", Line: 3}},
			"", "", refusal.NotAllowed, `input line 3: cannot move "a.txt" onto "b.txt", which the section at line 1 writes`},
		{"a wrapper directory that is a directory",
			[]Intent{{Op: OpAdd, Path: "dir/n.txt", Content: []byte("n"), Dir: "dir", Line: 2}},
			"create dir/n.txt n", "", "", ""},
		{"a wrapper directory that is a file",
			[]Intent{{Op: OpAdd, Path: "a.txt/n.txt", Content: []byte("n"), Dir: "a.txt", Line: 2}},
			"", "", refusal.NotAllowed, `input line 2: the wrapper changes into "a.txt", but "a.txt" is a file`},
		{"a wrapper directory the base lacks",
			[]Intent{{Op: OpAdd, Path: "no/n.txt", Content: []byte("n"), Dir: "no", Line: 2}},
			"", "", refusal.NotFound, `input line 2: the wrapper changes into "no", which is not a directory of the project`},
		{"a wrapper directory the path rule refuses",
			[]Intent{{Op: OpAdd, Path: ".git/n.txt", Content: []byte("n"), Dir: ".git", Line: 2}},
			"", "", refusal.NotAllowed, `input line 2: the wrapper's cd: path ".git" is inside .git`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes, unchanged, err := Resolve(&Draft{Intents: tc.intents}, base, Policy{Allow: []string{"**"}})
			if tc.want == "" && tc.unchanged == "" {
				var e *refusal.Error
				if !errors.As(err, &e) || e.Class != tc.class || e.Text != tc.text || e.Hint == "" {
					t.Fatalf("got %v %#v\nwant %s %q with a hint", changes, err, tc.class, tc.text)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				s := string(c.Kind) + " " + string(c.Path)
				if c.From != "" {
					s += "<-" + string(c.From)
				}
				if c.After != nil {
					s += " " + string(c.After.Bytes)
				}
				if c.Before != nil {
					at := c.Path
					if c.Kind == Move {
						at = c.From
					}
					if c.Before.Witness != WitnessOf([]byte(base[string(at)])) || c.Before.Blob != "b"+string(at) {
						t.Errorf("%s witnesses other bytes than the base's", c.Path)
					}
					s += fmt.Sprintf(" (before %s)", c.Before.Bytes)
				}
				got = append(got, s)
			}
			if g := strings.Join(got, "\n"); g != tc.want {
				t.Errorf("changes\n%s\nwant\n%s", g, tc.want)
			}
			var un []string
			for _, p := range unchanged {
				un = append(un, string(p))
			}
			if g := strings.Join(un, " "); g != tc.unchanged {
				t.Errorf("unchanged %q, want %q", g, tc.unchanged)
			}
		})
	}
}

// converted is a Base whose one file git converts: LF in git's form, CRLF
// in the working tree.
type converted struct{}

func (converted) Entry(p Path) (Entry, error) {
	if p == "a.txt" {
		return Entry{Kind: File, Mode: ModeFile, Blob: "ba", Bytes: []byte("one\ntwo\n"), WorkTree: []byte("one\r\ntwo\r\n")}, nil
	}
	return Entry{Kind: Absent}, nil
}

// TestResolveWorkTreeForm: a patch applies to git's form first; one that
// only the working tree's form holds (its lines carry the disk's CRLF)
// applies there, as git apply without --index reads it, and the change
// says so; a later section goes on from those bytes.
func TestResolveWorkTreeForm(t *testing.T) {
	for _, tc := range []struct {
		name     string
		intents  []Intent
		after    string
		worktree bool
	}{
		{"git's form", []Intent{{Op: OpEdit, Path: "a.txt", Edit: replace{"two\n", "2\n"}, Line: 1}}, "one\n2\n", false},
		{"the working tree's form", []Intent{{Op: OpEdit, Path: "a.txt", Edit: replace{"two\r\n", "2\r\n"}, Line: 1}}, "one\r\n2\r\n", true},
		{"then another section", []Intent{
			{Op: OpEdit, Path: "a.txt", Edit: replace{"two\r\n", "2\r\n"}, Line: 1},
			{Op: OpEdit, Path: "a.txt", Edit: replace{"one\r\n", "1\r\n"}, Line: 5}}, "1\r\n2\r\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, _, err := Resolve(&Draft{Format: "diff", Intents: tc.intents}, converted{}, Policy{Allow: []string{"**"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != 1 || string(cs[0].After.Bytes) != tc.after || cs[0].FromWorkTree != tc.worktree {
				t.Fatalf("got %q (from the work tree %v), want %q (%v)", cs[0].After.Bytes, cs[0].FromWorkTree, tc.after, tc.worktree)
			}
		})
	}
}
