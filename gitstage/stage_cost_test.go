package gitstage

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage/gittest"
)

// TestStageDecodesOnlyChangedPaths: resolving and staging one file four
// directories deep decodes the root tree and the four trees on its path,
// and nothing else, however wide the repository is (law 8).
func TestStageDecodesOnlyChangedPaths(t *testing.T) {
	g := gittest.New(t)
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			for c := 0; c < 4; c++ {
				dir := filepath.Join(g.Dir, fmt.Sprintf("a%d/b%d/c%d/d", a, b, c))
				os.MkdirAll(dir, 0o755)
				for f := 0; f < 3; f++ {
					os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", f)), []byte(fmt.Sprintf("%d %d %d %d\n", a, b, c, f)), 0o644)
				}
			}
		}
	}
	g.Git("add", "-A")
	g.Git("commit", "-q", "-m", "wide")
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	before := treeDecodes.Load()
	base, err := r.OpenBase()
	if err != nil {
		t.Fatal(err)
	}
	p := changeset.Path("a2/b1/c3/d/f1.txt")
	e, err := base.Entry(p)
	if err != nil || e.Kind != changeset.File {
		t.Fatalf("Entry: %+v %v", e, err)
	}
	set := &changeset.Set{Base: base.Head.Commit.String(), Goal: "one", Changes: []changeset.Change{{
		Kind: changeset.Update, Path: p, Before: changeset.NewSide(e.Bytes, e.Mode, e.Blob),
		After: changeset.NewSide([]byte("new\n"), changeset.ModeFile, ""),
	}}}
	if _, err := base.Stage(set, func(*changeset.Proposal) string { return "id" }, ""); err != nil {
		t.Fatal(err)
	}
	if n := treeDecodes.Load() - before; n != 5 {
		t.Fatalf("staging one file at depth 5 decoded %d trees, want 5 (the root and the four on its path)", n)
	}
}
