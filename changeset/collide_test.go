package changeset

import (
	"strings"
	"testing"

	"github.com/nika-dev/nika/refusal"
)

// foldBase is a Base over a list of existing paths that also implements
// Folder by scanning them (fine for a test).
type foldBase []string

func (b foldBase) Entry(p Path) (Entry, error) { return Entry{Kind: Absent}, nil }

func (b foldBase) Folds(p Path) (Path, bool) {
	comps := p.Components()
	for _, e := range b {
		ec := strings.Split(e, "/")
		for i := 0; i < len(comps) && i < len(ec); i++ {
			if ec[i] == comps[i] {
				continue
			}
			if FoldKey(ec[i]) == FoldKey(comps[i]) {
				return Path(strings.Join(ec[:i+1], "/")), true
			}
			break
		}
	}
	return "", false
}

func TestCheckFolds(t *testing.T) {
	base := foldBase{"Docs.nika.yaml", "caf\u00e9.nika.yaml", "Tools/x.nika.yaml", "dir/a.nika.yaml"}
	side := NewSide([]byte("x\n"), ModeFile, "")
	for _, tc := range []struct {
		name    string
		changes []Change
		refuse  string // "" for no refusal; else the existing path named
	}{
		{"case of a file", []Change{{Kind: Create, Path: "docs.nika.yaml", After: side}}, `"Docs.nika.yaml"`},
		{"NFD against NFC", []Change{{Kind: Create, Path: "cafe\u0301.nika.yaml", After: side}}, "caf\u00e9.nika.yaml"},
		{"case of a directory", []Change{{Kind: Create, Path: "tools/y.nika.yaml", After: side}}, `"Tools"`},
		{"nested directory", []Change{{Kind: Create, Path: "DIR/b.nika.yaml", After: side}}, `"dir"`},
		{"a move onto a folded name", []Change{{Kind: Move, From: "dir/a.nika.yaml", Path: "DOCS.nika.yaml", Before: side, After: side}}, `"Docs.nika.yaml"`},
		{"a rename that only changes case", []Change{{Kind: Move, From: "Docs.nika.yaml", Path: "docs.nika.yaml", Before: side, After: side}}, ""},
		{"a delete then a create of the folded name", []Change{{Kind: Delete, Path: "Docs.nika.yaml", Before: side}, {Kind: Create, Path: "docs.nika.yaml", After: side}}, ""},
		{"the exact name is an update, not a collision", []Change{{Kind: Update, Path: "Docs.nika.yaml", Before: side, After: side}}, ""},
		{"a fresh name", []Change{{Kind: Create, Path: "new/x.nika.yaml", After: side}}, ""},
		{"same directory, other file", []Change{{Kind: Create, Path: "Tools/z.nika.yaml", After: side}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckFolds(base, tc.changes)
			if tc.refuse == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if refusal.ClassOf(err) != refusal.NotAllowed || !strings.Contains(err.Error(), tc.refuse) || !strings.Contains(err.Error(), "collides") {
				t.Fatalf("err = %v (%s), want NotAllowed naming %s", err, refusal.ClassOf(err), tc.refuse)
			}
		})
	}
	// A base that is not a Folder checks nothing.
	type plain struct{ Base }
	if err := CheckFolds(plain{base}, []Change{{Kind: Create, Path: "docs.nika.yaml", After: side}}); err != nil {
		t.Fatalf("a plain base refused: %v", err)
	}
}

func TestParsePathHardening(t *testing.T) {
	for _, tc := range []struct {
		path  string
		class refusal.Class
		text  string
	}{
		{".git::$INDEX_ALLOCATION/config", refusal.NotAllowed, "inside .git"},
		{".GIT:$DATA", refusal.NotAllowed, "inside .git"},
		{"a\u200cb.nika.yaml", refusal.NotAllowed, "invisible character U+200C"},
		{".nika/hook\u200ds/x", refusal.NotAllowed, "invisible character U+200D"},
		{"x\u2066y", refusal.NotAllowed, "invisible character U+2066"},
		{".nika./hooks/x", refusal.Invalid, "ends in"},
		{"dir /x", refusal.Invalid, "ends in"},
		{"COM\u00b9", refusal.NotAllowed, "reserved"},
		{"NIKA~1/hooks/x", refusal.NotAllowed, "short name of .nika"},
		{"nika~9", refusal.NotAllowed, "short name of .nika"},
		{"lpt\u00b3.txt", refusal.NotAllowed, "reserved"},
	} {
		_, err := ParsePath(tc.path)
		if refusal.ClassOf(err) != tc.class || err == nil || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("ParsePath(%q) = %v (%s), want %s with %q", tc.path, err, refusal.ClassOf(err), tc.class, tc.text)
		}
	}
	for _, ok := range []string{"COM0", "COM10.txt", "lpt.txt", "a.b.c", ".nika/x.nika.yaml", "caf\u00e9.nika.yaml", "x.y/z", "nika~0", "nika~01", "nika~1x"} {
		if _, err := ParsePath(ok); err != nil {
			t.Errorf("ParsePath(%q) refused: %v", ok, err)
		}
	}
}
