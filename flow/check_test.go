package flow_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

const (
	checkChild  = "nika: child\npermits:\n  exec: [echo]\ntasks:\n  say:\n    exec:\n      command: [echo, hi]\n"
	checkParent = "```yaml path=flows/parent.nika.yaml\nnika: parent\npermits:\n  exec: [echo]\ntasks:\n  call:\n    invoke:\n      workflow: ./child.nika.yaml\n```\n"
	checkBoth   = checkParent + "\n```yaml path=flows/child.nika.yaml\n" + checkChild + "```\n"
)

// objectsAndRecords lists every file under .git/objects and .git/nika
// (but the index-scan sidecar, a cache) with its size: what staging writes.
func objectsAndRecords(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, sub := range []string{"objects", "nika/proposals"} {
		root := filepath.Join(dir, ".git", sub)
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				out[p] = fi.Size()
			}
			return nil
		})
	}
	return out
}

// TestCheckIsProposeWithoutStaging: over the same project and input, Check
// gives the changes and the audits that Propose's preview gives (the
// checker judging the would-be tree, neighbours included), and writes
// neither an object nor a record.
func TestCheckIsProposeWithoutStaging(t *testing.T) {
	for _, tc := range []struct {
		name, setup, input string
		comp               bool // the audit reports a missing child
	}{
		{"child in the proposal", "", checkBoth, false},
		{"child only on disk, untracked", "flows/child.nika.yaml", checkParent, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gittest.New(t)
			g.Write("README.md", "hello\n")
			g.Commit("first")
			if tc.setup != "" {
				g.Write(tc.setup, checkChild)
			}
			r := flow.FromGit(openRepo(t, g.Dir))
			before := objectsAndRecords(t, g.Dir)
			c, err := flow.Check(r, flow.ProposeInput{Input: []byte(tc.input), Goal: "g"})
			if err != nil {
				t.Fatalf("check: %v", err)
			}
			if after := objectsAndRecords(t, g.Dir); !reflect.DeepEqual(before, after) {
				t.Fatalf("check wrote objects or records: %d files before, %d after", len(before), len(after))
			}
			p, err := flow.Propose(r, flow.ProposeInput{Input: []byte(tc.input), Goal: "g"})
			if err != nil {
				t.Fatalf("propose: %v", err)
			}
			want := flow.PreviewInput(p).Audits
			if got, w := js(t, c.Audits), js(t, sorted(want)); got != w {
				t.Errorf("check's audits\n%s\nwant propose's\n%s", got, w)
			}
			comp := strings.Contains(js(t, c.Audits), "NIKA-COMP-001")
			if comp != tc.comp {
				t.Errorf("NIKA-COMP-001 reported: %v, want %v", comp, tc.comp)
			}
			if len(c.Changes) != len(p.Proposal.Set.Changes) {
				t.Fatalf("%d changes, propose staged %d", len(c.Changes), len(p.Proposal.Set.Changes))
			}
			for i, ch := range c.Changes {
				var staged = p.Proposal.Set.Changes[i]
				for _, s := range p.Proposal.Set.Changes {
					if s.Path == ch.Path {
						staged = s
					}
				}
				if ch.Kind != staged.Kind || ch.After.Blob != staged.After.Blob || ch.After.Witness != staged.After.Witness {
					t.Errorf("%s: check %s blob %s, propose %s blob %s", ch.Path, ch.Kind, ch.After.Blob, staged.Kind, staged.After.Blob)
				}
			}
			if c.Base != p.Proposal.Set.Base || c.Branch != p.Proposal.Set.Branch || c.Goal != p.Proposal.Set.Goal {
				t.Errorf("check base %q branch %q goal %q, propose %q %q %q", c.Base, c.Branch, c.Goal,
					p.Proposal.Set.Base, p.Proposal.Set.Branch, p.Proposal.Set.Goal)
			}
		})
	}
}

// TestCheckRefusesAsPropose: every refusal Propose gives before staging,
// Check gives too, with the same class and text, and writes nothing.
func TestCheckRefusesAsPropose(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(g *gittest.Repo)
		input string
		allow []string
		class refusal.Class
	}{
		{"not allowed", nil, "```txt path=notes.txt\nhi\n```\n", nil, refusal.NotAllowed},
		{"dirty target", func(g *gittest.Repo) { g.Write("a.nika.yaml", "nika: edited\n") }, "```yaml path=a.nika.yaml\nnika: a2\n```\n", nil, refusal.Dirty},
		{"merge in progress", func(g *gittest.Repo) {
			os.WriteFile(filepath.Join(g.Dir, ".git", "MERGE_HEAD"), []byte(g.Git("rev-parse", "HEAD")+"\n"), 0o644)
		}, "```yaml path=b.nika.yaml\nnika: b\n```\n", nil, refusal.Dirty},
		{"rebase in progress", func(g *gittest.Repo) { os.MkdirAll(filepath.Join(g.Dir, ".git", "rebase-merge"), 0o755) },
			"```yaml path=b.nika.yaml\nnika: b\n```\n", nil, refusal.Dirty},
		{"into .git", nil, "```txt path=.git/config\nx\n```\n", []string{"**"}, refusal.NotAllowed},
		{"a malformed diff", nil, "diff --git a/a.nika.yaml b/a.nika.yaml\n--- a/a.nika.yaml\n+++ b/a.nika.yaml\n@@ -9,1 +9,1 @@\n-nope\n+nika: x\n", nil, ""},
		{"too large", nil, strings.Repeat("x", 101), nil, refusal.TooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gittest.New(t)
			g.Write("a.nika.yaml", "nika: a1\n")
			g.Commit("first")
			if tc.setup != nil {
				tc.setup(g)
			}
			r := flow.FromGit(openRepo(t, g.Dir))
			in := flow.ProposeInput{Input: []byte(tc.input), Allow: tc.allow, MaxInput: 100}
			before := objectsAndRecords(t, g.Dir)
			_, cerr := flow.Check(r, in)
			_, perr := flow.Propose(r, in)
			if cerr == nil || perr == nil {
				t.Fatalf("check %v, propose %v: want both refused", cerr, perr)
			}
			if tc.class != "" && refusal.ClassOf(cerr) != tc.class {
				t.Errorf("class %s, want %s (%v)", refusal.ClassOf(cerr), tc.class, cerr)
			}
			if refusal.ClassOf(cerr) != refusal.ClassOf(perr) || cerr.Error() != perr.Error() {
				t.Errorf("check refused %s %q, propose %s %q", refusal.ClassOf(cerr), cerr, refusal.ClassOf(perr), perr)
			}
			if after := objectsAndRecords(t, g.Dir); !reflect.DeepEqual(before, after) {
				t.Errorf("a refusal wrote objects or records")
			}
		})
	}
}

// TestStatus: branch and HEAD, the project file and workflows with the
// checker's verdict on disk, the dirty paths as git reports them, a merge
// in progress, nika.allow, and the verdict note of an applied HEAD; and
// the index is not rewritten (git status runs without its lock).
func TestStatus(t *testing.T) {
	g := gittest.New(t)
	g.Write("nika.yaml", "bogus: [\n")
	g.Write("flows/good.nika.yaml", checkChild)
	g.Write("notes.txt", "n\n")
	g.Commit("first")
	g.Git("config", "--add", "nika.allow", "docs/**")
	g.Write("notes.txt", "edited\n")
	g.Write("new.txt", "untracked\n")
	// Make the index's stat data stale (same bytes, another mtime), so
	// that a git status allowed to write would refresh it.
	old := time.Unix(1500000000, 0)
	if err := os.Chtimes(filepath.Join(g.Dir, "flows", "good.nika.yaml"), old, old); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(g.Dir, ".git", "index")
	before, _ := os.ReadFile(idx)
	st, err := flow.Status(flow.FromGit(openRepo(t, g.Dir)))
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(idx); string(after) != string(before) {
		t.Error("status rewrote the index")
	}
	if st.Branch != "refs/heads/main" || st.Head != g.Git("rev-parse", "HEAD") {
		t.Errorf("branch %q head %q", st.Branch, st.Head)
	}
	if st.Project == nil || st.Project.Clean || st.Project.Errors == 0 {
		t.Errorf("project %+v, want nika.yaml with errors", st.Project)
	}
	if len(st.Workflows) != 1 || st.Workflows[0].Path != "flows/good.nika.yaml" || !st.Workflows[0].Clean || st.Total != 1 {
		t.Errorf("workflows %+v (total %d)", st.Workflows, st.Total)
	}
	want := []gitstage.DirtyPath{{Path: "notes.txt", Status: " M"}, {Path: "new.txt", Status: "??"}}
	if !reflect.DeepEqual(st.Dirty, want) || st.DirtyProblem != "" {
		t.Errorf("dirty %+v (%q), want %+v", st.Dirty, st.DirtyProblem, want)
	}
	if !reflect.DeepEqual(st.Allow, []string{"docs/**"}) {
		t.Errorf("allow %v", st.Allow)
	}
	if st.InProgress != "" || st.Verdict != "" {
		t.Errorf("in progress %q, verdict %q", st.InProgress, st.Verdict)
	}
	os.WriteFile(filepath.Join(g.Dir, ".git", "MERGE_HEAD"), []byte(st.Head+"\n"), 0o644)
	st, err = flow.Status(flow.FromGit(openRepo(t, g.Dir)))
	if err != nil || !strings.Contains(st.InProgress, "merge") {
		t.Errorf("in progress %q (%v), want the merge", st.InProgress, err)
	}
}

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sorted(rs []checker.Report) []checker.Report {
	out := append([]checker.Report(nil), rs...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j].Path < out[i].Path {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
