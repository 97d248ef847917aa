package proof

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

const workflow = "nika: daily\npermits:\n  exec: [\"echo\"]\ntasks:\n  hello:\n    exec:\n      command: [echo, %s]\n"

// applied stages a proposal writing daily.nika.yaml and fast-forwards main
// to it with git itself (verify judges objects, not how they got there).
func applied(t *testing.T, g *gittest.Repo, word string) (*gitstage.Repo, *flow.Proposed) {
	t.Helper()
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	reply := fmt.Sprintf("```yaml path=daily.nika.yaml\n"+workflow+"```\n", word)
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(reply), Goal: "say " + word})
	if err != nil {
		t.Fatal(err)
	}
	g.Git("merge", "-q", "--ff-only", p.Proposal.Commit)
	return r, p
}

func verifyRev(t *testing.T, r *gitstage.Repo, rev string, opt Options) []*Result {
	t.Helper()
	sel, err := Select(r, rev, !strings.Contains(rev, ".."))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sel.Commits(r)
	if err != nil {
		t.Fatal(err)
	}
	return Verify(r, cs, opt)
}

func classes(rs []*Result) string {
	var out []string
	for _, res := range rs {
		s := string(res.Status)
		for _, f := range res.Failures {
			s += ":" + string(f.Class)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestVerifyProvenAndNotProposals(t *testing.T) {
	g := gittest.New(t)
	g.Write("README", "hello\n")
	g.Commit("first")
	r, p := applied(t, g, "hi")
	rs := verifyRev(t, r, "", Options{})
	if got := classes(rs); got != "proven not-a-proposal" {
		t.Fatalf("classes = %q", got)
	}
	if rs[0].ID != p.Proposal.ID || rs[0].Derived != p.Proposal.ID || rs[0].Paths[0] != "daily.nika.yaml" {
		t.Fatalf("result = %+v", rs[0])
	}
	rs = verifyRev(t, r, "", Options{RequireAll: true})
	if got := classes(rs); got != "proven failed:NotAProposal" {
		t.Fatalf("require-all classes = %q", got)
	}
	if c, bad := Worst(rs); !bad || c != refusal.NotAProposal {
		t.Fatalf("worst = %v %v", c, bad)
	}
}

// A merge commit that carries a trailer is never a proposal.
func TestVerifyMerge(t *testing.T) {
	g := gittest.New(t)
	g.Write("README", "hello\n")
	g.Commit("first")
	g.Git("checkout", "-q", "-b", "side")
	g.Write("SIDE", "side\n")
	g.Commit("side")
	g.Git("checkout", "-q", "main")
	r, p := applied(t, g, "hi")
	msg := g.Git("log", "-1", "--format=%B")
	g.Git("merge", "-q", "--no-ff", "-m", msg, "side")
	rs := verifyRev(t, r, "HEAD", Options{})
	if got := classes(rs); got != "failed:WrongParent" || !strings.Contains(rs[0].Failures[0].Text, "merge of 2") {
		t.Fatalf("classes = %q %+v", got, rs[0].Failures)
	}
	_ = p
}

// A blob whose stored bytes do not hash to its id is a corrupt object.
func TestVerifyCorruptBlob(t *testing.T) {
	g := gittest.New(t)
	g.Write("README", "hello\n")
	g.Commit("first")
	r, p := applied(t, g, "hi")
	blob := p.Proposal.Set.Changes[0].After.Blob
	path := filepath.Join(g.Dir, ".git", "objects", blob[:2], blob[2:])
	body := []byte(fmt.Sprintf(workflow, "curl"))
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	fmt.Fprintf(w, "blob %d\x00", len(body))
	w.Write(body)
	w.Close()
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := verifyRev(t, r, "HEAD", Options{})
	// CorruptObject when the reader hands back the bytes; a reader that
	// checks hashes itself refuses the read (Io) instead. Never proven.
	if got := classes(rs); got != "failed:CorruptObject" && got != "failed:Io" {
		t.Fatalf("classes = %q %+v", got, rs[0].Failures)
	}
}

// Without the registry (a CI clone) every mismatch is a TamperedTrailer
// whose text lists the likely causes; a copy whose original is in the same
// range is named as a copy.
func TestVerifyWithoutRegistry(t *testing.T) {
	g := gittest.New(t)
	g.Write("README", "hello\n")
	g.Commit("first")
	r, _ := applied(t, g, "hi")
	msg := g.Git("log", "-1", "--format=%B")
	g.Write("NOTES", "copied\n")
	g.Git("add", "NOTES")
	g.Git("commit", "-q", "-m", msg)
	g.Git("branch", "copied")
	g.Git("reset", "-q", "--hard", "HEAD~1")
	g.Write("daily.nika.yaml", fmt.Sprintf(workflow, "ho"))
	g.Git("commit", "-q", "-a", "--amend", "--no-edit")
	if err := os.RemoveAll(filepath.Join(g.Dir, ".git", "nika")); err != nil {
		t.Fatal(err)
	}
	rs := verifyRev(t, r, "HEAD", Options{})
	if got := classes(rs); got != "failed:TamperedTrailer" || !strings.Contains(rs[0].Failures[0].Text, "likely causes") {
		t.Fatalf("amended without registry: %q %+v", got, rs[0].Failures)
	}
	rs = verifyRev(t, r, "main~1..copied", Options{})
	if got := classes(rs); got != "failed:TamperedTrailer proven" || !strings.Contains(rs[0].Failures[0].Text, "copied from commit") {
		t.Fatalf("copied in range: %q %+v", got, rs[0].Failures)
	}
}

func TestSelect(t *testing.T) {
	g := gittest.New(t)
	g.Write("README", "hello\n")
	first := g.Commit("first")
	r, p := applied(t, g, "hi")
	g.Git("tag", "v1")
	head := g.Git("rev-parse", "HEAD")
	for _, tc := range []struct {
		arg     string
		include string
		exclude string
		single  bool
	}{
		{"", head, "", false},
		{"HEAD", head, "", true},
		{"@", head, "", true},
		{"HEAD~1", first, "", true},
		{"HEAD^", first, "", true},
		{"v1", head, "", true},
		{"main", head, "", true},
		{"refs/heads/main", head, "", true},
		{first[:10], first, "", true},
		{p.Proposal.ID, head, "", true},
		{p.Proposal.ID[:10], head, "", true},
		{"HEAD~1..HEAD", head, first, false},
		{"HEAD~1..", head, first, false},
		{"..v1", head, head, false},
	} {
		sel, err := Select(r, tc.arg, true)
		if err != nil {
			t.Errorf("Select(%q): %v", tc.arg, err)
			continue
		}
		ex := ""
		if len(sel.Exclude) > 0 {
			ex = sel.Exclude[0]
		}
		if sel.Include[0] != tc.include || ex != tc.exclude || sel.Single != tc.single {
			t.Errorf("Select(%q) = %+v", tc.arg, sel)
		}
	}
	for arg, class := range map[string]refusal.Class{"nope": refusal.NotFound, "a...b": refusal.Invalid, "HEAD~9": refusal.NotFound} {
		if _, err := Select(r, arg, true); refusal.ClassOf(err) != class {
			t.Errorf("Select(%q) err = %v, want %s", arg, err, class)
		}
	}
}

// Commits made within one second (equal dates) still list children first;
// ordinary commits appear only with all; a note is the verdict.
func TestLogOrder(t *testing.T) {
	g := gittest.New(t)
	t.Setenv("GIT_AUTHOR_DATE", "1767225600 +0000")
	t.Setenv("GIT_COMMITTER_DATE", "1767225600 +0000")
	g.Write("README", "hello\n")
	g.Commit("first")
	r, p1 := applied(t, g, "hi")
	g.Write("HAND", "x\n")
	g.Commit("by hand")
	_, p2 := applied(t, g, "ho")
	g.Git("notes", "--ref=nika", "add", "-m", "verdict: clean", p1.Proposal.Commit)
	sel, _ := Select(r, "", false)
	cs, err := sel.Commits(r)
	if err != nil {
		t.Fatal(err)
	}
	es, err := Log(r, cs, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].ID != p2.Proposal.ID || es[1].ID != p1.Proposal.ID {
		t.Fatalf("entries = %+v", es)
	}
	if es[0].Verdict != nil || es[1].Verdict == nil || *es[1].Verdict != "verdict: clean" || !es[0].Proven || es[1].Changes[0].Before != nil {
		t.Fatalf("entries = %+v %+v", es[0], es[1])
	}
	es, _ = Log(r, cs, true)
	var subjects []string
	for _, e := range es {
		subjects = append(subjects, e.Goal)
	}
	if got := strings.Join(subjects, "|"); got != "say ho|by hand|say hi|first" {
		t.Fatalf("order = %s", got)
	}
}
