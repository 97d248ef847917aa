package project

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/session"
)

// recorder is a reasoner that records every bundle it receives.
type recorder struct{ got []session.Bundle }

func (r *recorder) Where() string { return "a recorder in the test" }
func (r *recorder) Reason(_ context.Context, b session.Bundle) (string, error) {
	r.got = append(r.got, b)
	return "noted", nil
}

// TestFeedbackReachesTheNextBundle: a proposal taken in part in a review,
// with the human's comments, reaches the model in the session's next
// bundle (the decision, what was left out, each comment, a secret in a
// comment redacted), and only once.
func TestFeedbackReachesTheNextBundle(t *testing.T) {
	dir := repo(t)
	var base, after strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&base, "line %d\n", i)
		if i == 2 || i == 25 {
			fmt.Fprintf(&after, "line %d edited\n", i)
		} else {
			fmt.Fprintf(&after, "line %d\n", i)
		}
	}
	os.WriteFile(filepath.Join(dir, "doc.txt"), []byte(base.String()), 0o644)
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "doc")

	e, err := openEngine(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := flow.FromGit(e.Repo)
	p, err := flow.Propose(r, flow.ProposeInput{Input: []byte("```text path=doc.txt\n" + after.String() + "```\n"), Goal: "edit the doc", Allow: []string{"doc.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flow.SaveComments(r, p, []flow.Comment{{Text: "good idea"}, {On: "doc.txt:2", Text: "not this one, and my token = abcdefghijklmnop1234"}}); err != nil {
		t.Fatal(err)
	}
	part, err := flow.Derive(r, p, flow.Choice{Drop: []flow.HunkRef{{Path: "doc.txt", N: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Accept(context.Background(), r, part, flow.HookOptions{}); err != nil {
		t.Fatal(err)
	}

	rsn := &recorder{}
	m, err := session.New(e, rsn, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.Turn("what should I do next?")
	if len(rsn.got) != 1 {
		t.Fatalf("the reasoner was asked %d times", len(rsn.got))
	}
	u := rsn.got[0].User()
	for _, want := range []string{
		"## The human's feedback on earlier proposals",
		"proposal " + p.ID()[:12] + ` "edit the doc": applied in part (as proposal ` + part.ID()[:12] + ")",
		"left out: doc.txt:2",
		"the human on the proposal: good idea",
		"the human on doc.txt:2: not this one, and my token = [redacted generic-api-key]",
	} {
		if !strings.Contains(u, want) {
			t.Errorf("the bundle lacks %q:\n%s", want, u)
		}
	}
	if strings.Contains(u, "abcdefghijklmnop1234") {
		t.Error("a secret in a comment reached the model")
	}
	m.Turn("and then?")
	if u := rsn.got[1].User(); strings.Contains(u, "feedback") {
		t.Errorf("the same feedback was sent twice:\n%s", u)
	}
	// The git note of the applied part carries it too.
	note := gitOut(t, dir, "notes", "--ref=nika", "show", "HEAD")
	if !strings.Contains(note, "left out: doc.txt:2") || !strings.Contains(note, "the human on the proposal: good idea") {
		t.Errorf("the note lacks the feedback:\n%s", note)
	}
	lp, err := flow.Load(r, p.ID()[:10])
	if err != nil {
		t.Fatal(err)
	}
	if f := flow.FeedbackOf(lp); f.Decision != flow.DecisionInPart || f.Part != part.ID() || len(f.Comments) != 2 {
		t.Fatalf("flow.FeedbackOf: %+v", f)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
