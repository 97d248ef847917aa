package gitstage

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/nika-dev/nika/gitstage/gittest"
)

// TestRevListStopsNearTheRange: main..topic over a long history lists
// exactly what git rev-list lists, newest first, and decodes the commits of
// the range and a few below it, not main's whole history.
func TestRevListStopsNearTheRange(t *testing.T) {
	g := gittest.New(t)
	var script strings.Builder
	for i := 1; i <= 300; i++ {
		body := fmt.Sprintf("%d\n", i)
		fmt.Fprintf(&script, "commit refs/heads/main\nmark :%d\ncommitter A <a@example.com> %d +0000\ndata 2\nc\n", i, 1700000000+i*60)
		if i > 1 {
			fmt.Fprintf(&script, "from :%d\n", i-1)
		}
		fmt.Fprintf(&script, "M 644 inline f.txt\ndata %d\n%s\n", len(body), body)
	}
	fi := exec.Command("git", "fast-import", "--quiet")
	fi.Dir, fi.Stdin = g.Dir, strings.NewReader(script.String())
	if out, err := fi.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	g.Git("reset", "-q", "--hard", "main")
	g.Git("checkout", "-q", "-b", "topic")
	for i := 0; i < 3; i++ {
		g.Write("t.txt", fmt.Sprintf("%d\n", i))
		g.Commit(fmt.Sprintf("topic %d", i))
	}
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	main, topic := g.Git("rev-parse", "main"), g.Git("rev-parse", "topic")
	before := commitDecodes.Load()
	got, err := r.RevList([]string{topic}, []string{main}, 0)
	if err != nil {
		t.Fatal(err)
	}
	decoded := commitDecodes.Load() - before
	var ids []string
	for _, c := range got {
		ids = append(ids, c.Hash)
	}
	if want := g.Git("rev-list", "main..topic"); strings.Join(ids, "\n") != want {
		t.Errorf("RevList = %v, git rev-list = %v", ids, want)
	}
	if decoded > 20 {
		t.Errorf("the walk decoded %d commits for a range of 3 over a history of 300", decoded)
	}
}
