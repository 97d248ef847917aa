package gitstage

import (
	"sync"
	"testing"

	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

// TestGatesAreAnsweredOnce: a gate is asked, answered once, stays
// answered when it is observed again, and of many processes (here
// goroutines with their own handles) answering at once exactly one wins.
func TestGatesAreAnsweredOnce(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.txt", "a\n")
	g.Commit("first")
	open := func() *Repo {
		r, err := Open(g.Dir)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := open()
	if _, err := r.AnswerGate("tr-1", "approve"); refusal.ClassOf(err) != refusal.NotFound {
		t.Fatalf("answering an unknown gate: %v", err)
	}
	rec, err := r.AskGate("tr-1", "approve", "Deploy?")
	if err != nil || rec.State != GateWaiting || rec.Question != "Deploy?" {
		t.Fatalf("%+v %v", rec, err)
	}
	var wg sync.WaitGroup
	wins := make(chan bool, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := open().AnswerGate("tr-1", "approve")
			if err != nil && refusal.ClassOf(err) != refusal.AlreadyConsumed {
				t.Errorf("answer: %v", err)
			}
			wins <- err == nil
		}()
	}
	wg.Wait()
	close(wins)
	n := 0
	for w := range wins {
		if w {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d answers won, want exactly 1", n)
	}
	// observed again (a runner that repeats its paused frame): still answered
	rec, err = open().AskGate("tr-1", "approve", "Deploy again?")
	if err != nil || rec.State != GateAnswered || rec.Question != "Deploy?" {
		t.Fatalf("re-observed: %+v %v", rec, err)
	}
	if _, err := open().AnswerGate("tr-1", "approve"); refusal.ClassOf(err) != refusal.AlreadyConsumed {
		t.Fatalf("a second answer: %v", err)
	}
	if _, err := r.AskGate("tr-1", "other", ""); err != nil {
		t.Fatal(err)
	}
	all, err := open().Gates()
	if err != nil || len(all) != 2 || all[0].Task != "approve" && all[1].Task != "approve" {
		t.Fatalf("%v %v", all, err)
	}
	for _, bad := range [][2]string{{"", "t"}, {"t", ""}, {"a\x00b", "t"}} {
		if _, err := r.AskGate(bad[0], bad[1], ""); refusal.ClassOf(err) != refusal.Invalid {
			t.Errorf("AskGate(%q, %q): %v", bad[0], bad[1], err)
		}
	}
	if out := g.Git("fsck", "--strict"); out != "" {
		t.Logf("fsck: %s", out)
	}
}
