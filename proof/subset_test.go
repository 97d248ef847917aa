package proof

import (
	"testing"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
)

// A derived proposal (apply --only) of a proposal with a run request must
// prove itself like any other.
func TestVerifySubsetWithRun(t *testing.T) {
	g := gittest.New(t)
	g.Write("README", "hello\n")
	g.Commit("first")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	reply := "```yaml path=a.nika.yaml\n" + wf("a") + "```\n```yaml path=b.nika.yaml\n" + wf("b") + "```\n"
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(reply), Goal: "two", Run: &flow.RunInput{Workflow: "a.nika.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := classes(verifyRev(t, r, p.Proposal.Commit, Options{})); got != "proven" {
		t.Fatalf("the proposal: %s", got)
	}
	sub, err := flow.Derive(flow.FromGit(r), p, flow.Choice{Only: []string{"a.nika.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	rs := verifyRev(t, r, sub.Proposal.Commit, Options{})
	if got := classes(rs); got != "proven" {
		// flow.Subset stages the derived set (Run included) with an empty
		// run trailer, so its commit cannot re-derive its id.
		t.Fatalf("a derived proposal with a run request does not prove itself: %s %+v", got, rs[0].Failures)
	}
}

func wf(name string) string {
	return "nika: " + name + "\npermits:\n  exec: [\"echo\"]\ntasks:\n  hello:\n    exec:\n      command: [echo, " + name + "]\n"
}
