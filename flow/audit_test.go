package flow_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

const (
	auditParent = "nika: parent\npermits:\n  exec: [echo]\ntasks:\n  call:\n    invoke:\n      workflow: ./child.nika.yaml\n"
	auditChild  = "nika: child\npermits:\n  exec: [echo]\ntasks:\n  say:\n    exec:\n      command: [echo, hi]\n"
	// auditGreedy needs the network, which the parent does not grant.
	auditGreedy = "nika: child\npermits:\n  net:\n    http: [api.example.com]\n  tools: [nika:fetch]\ntasks:\n  get:\n    invoke:\n      tool: nika:fetch\n      args: { url: \"https://api.example.com/x\" }\n"
)

func fenced(files ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(files); i += 2 {
		fmt.Fprintf(&b, "```yaml path=%s\n%s```\n", files[i], files[i+1])
	}
	return b.String()
}

func codes(reps []checker.Report, path string) string {
	for _, r := range reps {
		if r.Path != path {
			continue
		}
		seen := map[string]bool{}
		var out []string
		for _, f := range r.Errors() {
			if !seen[f.Code] {
				seen[f.Code] = true
				out = append(out, f.Code)
			}
		}
		if out == nil {
			return "clean"
		}
		return strings.Join(out, " ")
	}
	return "no report"
}

// TestAuditReadsTheProposalsOwnTree: the preview's audit judges a
// workflow's neighbours as the apply will leave them, from the proposal
// commit's tree, never from the disk: a child the proposal adds beside its
// parent is seen though nothing is on disk yet; a child that HEAD holds is
// seen; a child the disk holds but git does not is not; a child the same
// proposal makes greedier is judged in its new bytes.
func TestAuditReadsTheProposalsOwnTree(t *testing.T) {
	g := gittest.New(t)
	g.Write("README.md", "x\n")
	g.Commit("first")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	propose := func(input string) *flow.Proposed {
		t.Helper()
		p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(input), Format: "reply"})
		if err != nil || p.Empty() {
			t.Fatalf("propose: %v", err)
		}
		return p
	}

	// Parent and child in one proposal: the disk has neither.
	p := propose(fenced("flows/parent.nika.yaml", auditParent, "flows/child.nika.yaml", auditChild))
	if got := codes(flow.PreviewInput(p).Audits, "flows/parent.nika.yaml"); got != "clean" {
		t.Errorf("parent beside the child it adds: %s, want clean", got)
	}
	// The parent alone: the child exists only on disk, untracked.
	g.Write("flows/child.nika.yaml", auditChild)
	p = propose(fenced("flows/parent.nika.yaml", auditParent))
	if got := codes(flow.PreviewInput(p).Audits, "flows/parent.nika.yaml"); got != "NIKA-COMP-001" {
		t.Errorf("parent whose child is only on disk: %s, want NIKA-COMP-001 (the apply will not write the child)", got)
	}
	// The child committed: the proposal's tree holds it from HEAD.
	g.Commit("child")
	p = propose(fenced("flows/parent.nika.yaml", auditParent))
	if got := codes(flow.PreviewInput(p).Audits, "flows/parent.nika.yaml"); got != "clean" {
		t.Errorf("parent whose child HEAD holds: %s, want clean", got)
	}
	// The same proposal makes the child greedier: the parent is judged
	// against the child's new bytes, though the disk still has the old.
	p = propose(fenced("flows/parent.nika.yaml", auditParent, "flows/child.nika.yaml", auditGreedy))
	if got := codes(flow.PreviewInput(p).Audits, "flows/parent.nika.yaml"); got != "NIKA-COMP-002" {
		t.Errorf("parent over a child the proposal widens: %s, want NIKA-COMP-002", got)
	}
	// Loading the proposal again (nika show) audits the same way.
	q, err := flow.Load(flow.FromGit(r), p.Proposal.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(flow.Audit(r, q.Proposal), "flows/parent.nika.yaml"); got != "NIKA-COMP-002" {
		t.Errorf("the loaded proposal's audit: %s, want NIKA-COMP-002", got)
	}
}

// TestReadDiskClasses: a file that is not there is NotFound (as at every
// door), one reached through a symlink NotAllowed.
func TestReadDiskClasses(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "flows"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("flows", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "flows", "a.nika.yaml"), []byte("nika: a\n"), 0o644)
	for _, c := range []struct {
		path  string
		class refusal.Class
	}{
		{"flows/missing.nika.yaml", refusal.NotFound},
		{"nope/missing.nika.yaml", refusal.NotFound},
		{"link/a.nika.yaml", refusal.NotAllowed},
	} {
		if _, err := flow.ReadDisk(root, c.path); refusal.ClassOf(err) != c.class {
			t.Errorf("%s: %v (%s), want %s", c.path, err, refusal.ClassOf(err), c.class)
		}
	}
	if b, err := flow.ReadDisk(root, "flows/a.nika.yaml"); err != nil || string(b) != "nika: a\n" {
		t.Errorf("%q %v", b, err)
	}
}
