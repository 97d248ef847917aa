package synth

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ChangeSet is one change set in the three shapes a benchmark feeds: a
// fenced reply for nika, a unified diff for git apply, and the paths.
type ChangeSet struct {
	Paths []string
	Reply []byte // ```text path=P fences with the new bytes
	Patch []byte // a git diff that rewrites each file whole
	New   int    // the new bytes, summed
}

// Targets picks k files spread evenly over a repository of n files (so a
// change set touches as many directories as it can: the costly case for
// tree rewriting).
func Targets(n, k int) []int {
	if k > n {
		k = n
	}
	out := make([]int, 0, k)
	for j := 0; j < k; j++ {
		out = append(out, (j*n/k+n/(2*k))%n)
	}
	return out
}

// Change builds a change set of k files for the repository at dir (n
// files): each target's bytes are read from disk (the clean HEAD) and get
// new bytes that depend on seq, so that each seq is a distinct proposal.
func Change(dir string, n, k, seq int) (*ChangeSet, error) {
	cs := &ChangeSet{}
	var reply, patch bytes.Buffer
	for _, i := range Targets(n, k) {
		p := Path(n, i)
		old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		nu := Content(i, 1_000_000+seq)
		cs.Paths = append(cs.Paths, p)
		cs.New += len(nu)
		fmt.Fprintf(&reply, "```text path=%s\n%s```\n\n", p, nu)
		ol, nl := lines(old), lines(nu)
		fmt.Fprintf(&patch, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@\n", p, p, p, p, len(ol), len(nl))
		for _, l := range ol {
			patch.WriteString("-" + l + "\n")
		}
		for _, l := range nl {
			patch.WriteString("+" + l + "\n")
		}
	}
	cs.Reply, cs.Patch = reply.Bytes(), patch.Bytes()
	return cs, nil
}

func lines(b []byte) []string {
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// EditChange is a change set of k files for a rebase: each target keeps
// its bytes on disk except its last line, which becomes a line that
// depends on seq. A HEAD that then moves with HeadEdit (the first line of
// every other target) leaves the proposal stale, and each of those files
// merges cleanly three ways; the others are carried forward as they were.
func EditChange(dir string, n, k, seq int) (*ChangeSet, error) {
	cs := &ChangeSet{}
	var reply bytes.Buffer
	for _, i := range Targets(n, k) {
		p := Path(n, i)
		old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		ls := lines(old)
		ls[len(ls)-1] = fmt.Sprintf("the proposal's last line of file %d, seq %d", i, seq)
		nu := strings.Join(ls, "\n") + "\n"
		cs.Paths = append(cs.Paths, p)
		cs.New += len(nu)
		fmt.Fprintf(&reply, "```text path=%s\n%s```\n\n", p, nu)
	}
	cs.Reply = reply.Bytes()
	return cs, nil
}

// HeadEdit rewrites, on disk, the first line of every other target of
// Targets(n, k) (the 1st, 3rd, ...) and returns their paths: what a
// commit of HEAD's own changes does to a proposal made by EditChange.
func HeadEdit(dir string, n, k, seq int) ([]string, error) {
	var out []string
	for j, i := range Targets(n, k) {
		if j%2 != 0 {
			continue
		}
		p := Path(n, i)
		disk := filepath.Join(dir, filepath.FromSlash(p))
		old, err := os.ReadFile(disk)
		if err != nil {
			return nil, err
		}
		ls := lines(old)
		ls[0] = fmt.Sprintf("// file %d, as HEAD moved it at seq %d", i, seq)
		if err := os.WriteFile(disk, []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
