package flow_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
)

// history builds a small history with the edits real diffs carry: creates,
// edits at several places, deletes, renames with and without edits, copies
// with and without edits, files without a final newline, CRLF lines, and a
// file replaced by a directory.
func history(t *testing.T) (*gittest.Repo, []string) {
	g := gittest.New(t)
	var commits []string
	lines := func(n int, f string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, f+"\n", i)
		}
		return b.String()
	}
	g.Write("src/a.txt", lines(40, "a line %d"))
	g.Write("src/b.txt", "no final newline")
	g.Write("docs/readme.md", lines(5, "readme %d"))
	g.Write("crlf.txt", "one\r\ntwo\r\nthree\r\n")
	commits = append(commits, g.Commit("c0"))

	a := strings.Replace(lines(40, "a line %d"), "a line 3\n", "a line three\n", 1)
	a = strings.Replace(a, "a line 30\n", "a line thirty\nand one more\n", 1)
	g.Write("src/a.txt", a)
	g.Write("src/b.txt", "no final newline, edited")
	g.Write("src/new.txt", "brand new\n")
	commits = append(commits, g.Commit("c1"))

	g.Git("mv", "docs/readme.md", "docs/README.md")
	g.Write("docs/README.md", strings.Replace(lines(5, "readme %d"), "readme 5", "readme five", 1))
	g.Git("rm", "-q", "src/new.txt")
	g.Write("crlf.txt", "one\r\n2\r\nthree\r\n")
	g.Write("src/b.txt", "now it ends\n")
	commits = append(commits, g.Commit("c2"))

	if err := os.MkdirAll(filepath.Join(g.Dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	g.Git("mv", "src/a.txt", "lib/a.txt")
	g.Write("empty.txt", "")
	commits = append(commits, g.Commit("c3"))

	g.Git("rm", "-q", "src/b.txt")
	g.Write("src/b.txt/inner.txt", "a file became a directory\n")
	g.Write("lib/a.txt", strings.Repeat("x\n", 3))
	commits = append(commits, g.Commit("c4"))

	// Copies, for -C: one exact, one edited, while the source changes.
	src := g.Read("crlf.txt")
	g.Write("copies/exact.txt", src)
	g.Write("copies/edited.txt", strings.Replace(src, "three", "3", 1))
	g.Write("crlf.txt", src+"four\r\n")
	commits = append(commits, g.Commit("c5"))
	return g, commits
}

// TestGitDiffRoundTrip proposes `git diff A B` on A, for pairs of commits
// of a real history, with renames, with copies (-C -C) and without context
// (-U0), applies it, and checks that the result is B's tree, exactly.
func TestGitDiffRoundTrip(t *testing.T) {
	g, commits := history(t)
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range commits {
		for j := range commits {
			if i == j {
				continue
			}
			a, b := commits[i], commits[j]
			for _, v := range []string{"-M", "-C -C", "-U0"} {
				t.Run(fmt.Sprintf("c%d..c%d %s", i, j, v), func(t *testing.T) {
					roundTrip(t, g, r, a, b, strings.Fields(v))
				})
			}
		}
	}
}

func roundTrip(t *testing.T, g *gittest.Repo, r *gitstage.Repo, a, b string, flags []string) {
	g.Git("checkout", "-q", "--detach", a)
	diff, err := exec.Command("git", append(append([]string{"-C", g.Dir, "diff"}, flags...), a, b)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: diff, Format: "diff", Allow: []string{"**"}, Goal: "round trip " + strings.Join(flags, " ")})
	if err != nil {
		t.Fatalf("propose: %v\n%s", err, diff)
	}
	if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if got, want := g.Git("rev-parse", "HEAD^{tree}"), g.Git("rev-parse", b+"^{tree}"); got != want {
		t.Errorf("tree after the diff is %s, want %s\n%s", got, want, g.Git("diff", "--stat", b, "HEAD"))
	}
	g.Clean()
}
