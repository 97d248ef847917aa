package flow_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/redact"
	"github.com/nika-dev/nika/refusal"
)

// TestFeedback: what flow.FeedbackOf (show --json) returns for each
// decision, with the comments redacted as a bundle is.
func TestFeedback(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.txt", lines(30, nil))
	g.Commit("base")
	r := flow.FromGit(openRepo(t, g.Dir))
	propose := func(goal string) *flow.Proposed {
		t.Helper()
		p, err := flow.Propose(r, flow.ProposeInput{Input: []byte("```text path=a.txt\n" + lines(30, map[int]string{2: goal + " two\n", 25: goal + "\n"}) + "```\n"), Goal: goal, Allow: []string{"a.txt"}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	feedback := func(id string) (*flow.FeedbackInfo, error) {
		p, err := flow.Load(r, id)
		if err != nil {
			return nil, err
		}
		return flow.FeedbackOf(p), nil
	}

	// pending, no word yet
	p := propose("first")
	f, err := feedback(p.ID()[:8])
	if err != nil || f.Decision != flow.DecisionPending || len(f.Comments) != 0 || len(f.Dropped) != 0 {
		t.Fatalf("%+v %v", f, err)
	}

	// discarded, with comments; a secret in one is kept redacted
	kinds, err := flow.SaveComments(r, p, []flow.Comment{{Text: "  no  "}, {On: "a.txt:1", Text: "password: hunter22hunter"}, {On: "a.txt", Text: "   "}})
	if err != nil || !reflect.DeepEqual(kinds, []string{redact.KindSecretField}) {
		t.Fatalf("kinds %v err %v", kinds, err)
	}
	if err := flow.Discard(r, p); err != nil {
		t.Fatal(err)
	}
	f, _ = feedback(p.ID())
	want := []flow.Comment{{Text: "no"}, {On: "a.txt:1", Text: "password: [redacted secret-field]"}}
	if f.Decision != flow.DecisionDiscarded || !reflect.DeepEqual(f.Comments, want) {
		t.Fatalf("%+v", f)
	}
	if txt := flow.FeedbackText(f); !strings.Contains(txt, "discarded by the human") || !strings.Contains(txt, "the human on a.txt:1: password: [redacted secret-field]") {
		t.Fatalf("%s", txt)
	}

	// applied whole, with a comment: the git note carries it
	p = propose("second")
	if _, err := flow.SaveComments(r, p, []flow.Comment{{Text: "fine"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Accept(context.Background(), r, p, flow.HookOptions{}); err != nil {
		t.Fatal(err)
	}
	if f, _ := feedback(p.ID()); f.Decision != flow.DecisionApplied || f.Part != "" {
		t.Fatalf("%+v", f)
	}
	if note := g.Git("notes", "--ref=nika", "show", "HEAD"); !strings.Contains(note, "applied whole") || !strings.Contains(note, "the human on the proposal: fine") {
		t.Fatalf("note:\n%s", note)
	}

	// applied in part: the derived proposal names its origin, the origin
	// names the part and what it left out
	p = propose("third")
	part, err := flow.Derive(r, p, flow.Choice{Drop: []flow.HunkRef{{Path: "a.txt", N: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Accept(context.Background(), r, part, flow.HookOptions{}); err != nil {
		t.Fatal(err)
	}
	f, _ = feedback(p.ID())
	if f.Decision != flow.DecisionInPart || f.Part != part.ID() || !reflect.DeepEqual(f.Dropped, []string{"a.txt:1"}) {
		t.Fatalf("%+v", f)
	}
	f, _ = feedback(part.ID())
	if f.Decision != flow.DecisionApplied || f.From != p.ID() || !reflect.DeepEqual(f.Dropped, []string{"a.txt:1"}) {
		t.Fatalf("%+v", f)
	}

	// the latest reviewed first; derived proposals are told through their
	// origin
	recent, err := flow.RecentFeedback(r, 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range recent {
		ids = append(ids, f.Decision)
	}
	if strings.Join(ids, " ") != "applied-in-part applied discarded" {
		t.Fatalf("recent: %v", ids)
	}

	if _, err := feedback("0123456789ab"); refusal.ClassOf(err) != refusal.NotFound {
		t.Fatalf("an unknown id: %v", err)
	}
}
