package flow_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

func lines(n int, tag map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := tag[i]; ok {
			b.WriteString(s)
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// mergeFile is git merge-file -p ours base theirs, and its conflict count.
func mergeFile(t *testing.T, ours, base, theirs string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	for n, s := range map[string]string{"o": ours, "b": base, "t": theirs} {
		os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644)
	}
	cmd := exec.Command("git", "merge-file", "-p", "o", "b", "t")
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// TestRebaseKinds: a proposal of every kind of change, brought forward over
// a real history in which HEAD edited one of its files, left others alone,
// and already made one of its changes. The merged file is git merge-file's;
// the untouched ones are carried as they were; the new proposal applies,
// and binds the proposal it came from.
func TestRebaseKinds(t *testing.T) {
	g := gittest.New(t)
	g.Write("merge.txt", lines(20, nil))
	g.Write("keep.txt", "keep\n")
	g.Write("gone.txt", "gone\n")
	g.Write("from.txt", lines(10, nil))
	g.Write("same.txt", "old\n")
	g.Commit("base")
	r := flow.FromGit(openRepo(t, g.Dir))
	reply := "```text path=merge.txt\n" + lines(20, map[int]string{3: "ours\n"}) + "```\n" +
		"```text path=keep.txt\nkept\n```\n" +
		"```text path=new.txt\nnew\n```\n" +
		"```text path=same.txt\nnew\n```\n"
	p, err := flow.Propose(r, flow.ProposeInput{Input: []byte(reply), Goal: "many", Allow: []string{"*.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	// HEAD moves: an edit far from the proposal's, and the same change to
	// same.txt.
	g.Write("merge.txt", lines(20, map[int]string{18: "theirs\n"}))
	g.Write("same.txt", "new\n")
	g.Commit("the human")

	if err := flow.Ready(r, p); refusal.ClassOf(err) != refusal.StaleRevision || err.(*refusal.Error).Fix != refusal.Rebase {
		t.Fatalf("the stale proposal must be refused with the rebase fix: %v", err)
	}
	rb, err := flow.Rebase(r, p)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rb.Carried, rb.Merged, rb.Already) != "[keep.txt new.txt] [merge.txt] [same.txt]" {
		t.Fatalf("carried %v merged %v already %v", rb.Carried, rb.Merged, rb.Already)
	}
	if rb.Proposal.Set.RebasedFrom != p.ID() || rb.Proposal.Set.Base != g.Git("rev-parse", "HEAD") {
		t.Fatalf("rebased from %q onto %q", rb.Proposal.Set.RebasedFrom, rb.Proposal.Set.Base)
	}
	if _, err := flow.Accept(context.Background(), r, rb.Proposed, flow.HookOptions{}); err != nil {
		t.Fatal(err)
	}
	want, n := mergeFile(t, lines(20, map[int]string{18: "theirs\n"}), lines(20, nil), lines(20, map[int]string{3: "ours\n"}))
	if n != 0 || g.Read("merge.txt") != want {
		t.Fatalf("merge.txt is not git merge-file's (%d conflicts):\n%s\nwant:\n%s", n, g.Read("merge.txt"), want)
	}
	if g.Read("keep.txt") != "kept\n" || g.Read("new.txt") != "new\n" {
		t.Fatal("the untouched changes were not carried")
	}
	if st := g.Git("status", "--porcelain"); st != "" {
		t.Fatalf("git status: %s", st)
	}
	g.Git("fsck", "--strict")
	if msg := g.Git("log", "-1", "--format=%B"); !strings.Contains(msg, "Nika-Rebased-From: "+p.ID()) {
		t.Fatalf("the commit does not name its origin:\n%s", msg)
	}
}

// TestRebaseConflicts: each kind of conflict refuses with the path named,
// and stages nothing: no object, no record.
func TestRebaseConflicts(t *testing.T) {
	for _, tc := range []struct {
		name, reply, path, head string
		want                    string
	}{
		{"the same line two ways", "```text path=a.txt\n" + lines(8, map[int]string{4: "proposal\n"}) + "```\n", "a.txt", lines(8, map[int]string{4: "head\n"}),
			`"a.txt": line 4 of HEAD ("head") against line 4 of the proposal ("proposal")`},
		{"edited in HEAD, deleted by the proposal", "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n", "a.txt", lines(8, map[int]string{1: "head\n"}),
			`"a.txt": HEAD changed it, and the proposal deletes it`},
		{"removed in HEAD, edited by the proposal", "```text path=a.txt\n" + lines(8, map[int]string{4: "proposal\n"}) + "```\n", "a.txt", "",
			`"a.txt": HEAD removed it, and the proposal changes it`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gittest.New(t)
			g.Write("a.txt", lines(8, nil))
			g.Commit("base")
			r := flow.FromGit(openRepo(t, g.Dir))
			p, err := flow.Propose(r, flow.ProposeInput{Input: []byte(tc.reply), Goal: "x", Allow: []string{"a.txt"}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.head == "" {
				g.Git("rm", "-q", tc.path)
			} else {
				g.Write(tc.path, tc.head)
			}
			g.Commit("head")
			objects := g.Git("count-objects", "-v")
			recs := len(records(t, g.Dir))
			_, err = flow.Rebase(r, p)
			if refusal.ClassOf(err) != refusal.StaleRevision || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was staged") {
				t.Fatalf("%v\nwant %s", err, tc.want)
			}
			if g.Git("count-objects", "-v") != objects || len(records(t, g.Dir)) != recs {
				t.Fatal("a refused rebase wrote objects or a record")
			}
		})
	}
}

func records(t *testing.T, dir string) []os.DirEntry {
	es, _ := os.ReadDir(filepath.Join(dir, ".git", "nika", "proposals"))
	return es
}
