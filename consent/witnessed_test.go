package consent_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/safefs"
)

// The proposal of an update, a create, an empty create, a delete and a
// move, loaded back from its commit without its bytes (LoadWitnessed), as
// the transaction can take it: it reads each side back from the object
// database when it writes.
const replyMixed = "diff --git a/a.nika.yaml b/a.nika.yaml\n--- a/a.nika.yaml\n+++ b/a.nika.yaml\n@@ -1 +1 @@\n-nika: a1\n+nika: a2\n" +
	"diff --git a/new/d.nika.yaml b/new/d.nika.yaml\nnew file mode 100644\n--- /dev/null\n+++ b/new/d.nika.yaml\n@@ -0,0 +1 @@\n+nika: d1\n" +
	"diff --git a/empty.txt b/empty.txt\nnew file mode 100644\n" +
	"diff --git a/b.nika.yaml b/b.nika.yaml\ndeleted file mode 100644\n--- a/b.nika.yaml\n+++ /dev/null\n@@ -1 +0,0 @@\n-nika: b1\n" +
	"diff --git a/c.nika.yaml b/moved/c.nika.yaml\nsimilarity index 100%\nrename from c.nika.yaml\nrename to moved/c.nika.yaml\n"

func witnessed(t *testing.T) (*gittest.Repo, *gitstage.Repo, *flow.Proposed, string) {
	t.Helper()
	g := gittest.New(t)
	for _, n := range []string{"a", "b", "c"} {
		g.Write(n+".nika.yaml", "nika: "+n+"1\n")
	}
	head := g.Commit("v1")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(replyMixed), Goal: "mixed", Allow: []string{"**"}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := r.LoadWitnessed(plumbing.NewHash(p.Proposal.Commit), preview.ID)
	if err != nil {
		t.Fatal(err)
	}
	if l.Proposal.ID != p.Proposal.ID {
		t.Fatalf("the witnessed load re-derived id %s, want %s", l.Proposal.ID, p.Proposal.ID)
	}
	elided := 0
	for _, c := range l.Proposal.Set.Changes {
		for _, s := range []*changeset.Side{c.Before, c.After} {
			if s == nil {
				continue
			}
			if gitstage.Elided(s) {
				elided++
			} else if s.Blob != gitstage.BlobHash(nil).String() {
				t.Errorf("%s: a side of a non-empty blob kept its bytes", c.Path)
			}
		}
	}
	// a's before and after, d's after, b's before, c's before and after;
	// the empty file's after is the empty blob, whose bytes are none
	if elided != 6 {
		t.Fatalf("%d sides elided, want 6", elided)
	}
	l.Proposal.Set.Branch, l.Proposal.Set.Root = p.Record.Branch, r.Root
	return g, r, &flow.Proposed{Proposal: l.Proposal, Record: p.Record}, head
}

func TestWitnessedApplyWritesTheProposalTreesBlobs(t *testing.T) {
	g, r, p, _ := witnessed(t)
	res, err := flow.Apply(flow.FromGit(r), p, consent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := g.Git("rev-parse", "HEAD"); h != res.Commit || h != p.Proposal.Commit {
		t.Fatalf("HEAD = %s, want the proposal commit %s", h, p.Proposal.Commit)
	}
	// law 1: each file on disk is its blob in the applied commit's tree
	for _, f := range []string{"a.nika.yaml", "new/d.nika.yaml", "empty.txt", "moved/c.nika.yaml"} {
		want := g.Git("rev-parse", "HEAD:"+f)
		if got := g.Git("hash-object", f); got != want {
			t.Errorf("%s on disk hashes to %s, its blob in HEAD is %s", f, got, want)
		}
	}
	if got := g.Read("a.nika.yaml"); got != "nika: a2\n" {
		t.Errorf("a.nika.yaml = %q", got)
	}
	if s := g.Git("status", "--porcelain"); s != "" {
		t.Errorf("git status after the apply:\n%s", s)
	}
	g.Git("fsck", "--strict")
}

// Where the filesystem cannot exchange two names, a rollback puts the
// before bytes back by writing them: for a witnessed proposal, from the
// object database.
func TestWitnessedRollbackWritesTheBeforeBytesBack(t *testing.T) {
	g, r, p, head := witnessed(t)
	_, err := flow.Apply(flow.FromGit(r), p, consent.Options{
		Wrap: func(w consent.WorkTree) consent.WorkTree { return noExchange{w} },
		Fault: func(step string, i int) error {
			if step == "index" {
				return errors.New("injected failure")
			}
			return nil
		}})
	if err == nil {
		t.Fatal("apply succeeded despite the injected failure")
	}
	if c := refusal.ClassOf(err); c != refusal.Io {
		t.Fatalf("class = %s, want Io: %v", c, err)
	}
	unchanged(t, g, head, map[string]string{"a.nika.yaml": "nika: a1\n", "b.nika.yaml": "nika: b1\n", "c.nika.yaml": "nika: c1\n"})
	if s := g.Git("status", "--porcelain", "--untracked-files=all"); s != "" {
		t.Errorf("git status after the rollback:\n%s", s)
	}
}

// noExchange is a working tree where a write's temp file cannot be
// exchanged with its target or land without replacing, as on a
// filesystem without renameat2: the apply renames over the target, and a
// rollback writes the old bytes back.
type noExchange struct{ consent.WorkTree }

func (noExchange) Exchange(a, b string) error { return safefs.ErrNoExchange }
func (n noExchange) RenameNoReplace(from, to string) error {
	if strings.Contains(from, ".nika-") && !strings.Contains(from, ".removed") {
		return safefs.ErrNoExchange // a write's temp lands by a plain rename
	}
	return n.WorkTree.RenameNoReplace(from, to) // removals move aside and back
}

// A side whose blob does not hold the bytes its witness names is never
// written.
func TestSideBytesRefusesABlobThatIsNotTheWitnessed(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.txt", "one\n")
	g.Commit("v1")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.WriteBlob([]byte("two\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &changeset.Side{Blob: h.String(), Witness: changeset.WitnessOf([]byte("one\n")), Mode: changeset.ModeFile}
	if !gitstage.Elided(s) {
		t.Fatal("a side without bytes over a non-empty blob is not elided")
	}
	if _, err := r.SideBytes(s); refusal.ClassOf(err) != refusal.Internal {
		t.Fatalf("SideBytes of a mismatched blob = %v, want an Internal refusal", err)
	}
	s.Witness = changeset.WitnessOf([]byte("two\n"))
	if b, err := r.SideBytes(s); err != nil || string(b) != "two\n" {
		t.Fatalf("SideBytes = %q, %v", b, err)
	}
}
