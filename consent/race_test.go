package consent_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

// raceRounds bounds the racing tests; NIKA_TORTURE=1 runs more.
func raceRounds() int {
	if os.Getenv("NIKA_TORTURE") != "" {
		return 200
	}
	return 15
}

// TestAnEditorsWriteDuringTheApplyIsNeverOverwritten: an editor rewrites a
// target after the witness check, right before nika's swap. The swap's
// swapped-out bytes betray it; nika swaps back and refuses, and the
// editor's bytes are intact.
func TestAnEditorsWriteDuringTheApplyIsNeverOverwritten(t *testing.T) {
	g, r, p, head := threeFiles(t)
	_, err := flow.Apply(flow.FromGit(r), p, consent.Options{Inject: func(op, path string) error {
		if op == "exchange" && path == "b.nika.yaml" {
			// The editor saves through its own temp file and rename.
			g.Write("b.nika.yaml.swp", "nika: the editor's bytes\n")
			if err := os.Rename(g.Dir+"/b.nika.yaml.swp", g.Dir+"/b.nika.yaml"); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	}})
	if c := refusal.ClassOf(err); c != refusal.StaleRevision {
		t.Fatalf("class = %s (%v), want StaleRevision", c, err)
	}
	if !strings.Contains(err.Error(), `"b.nika.yaml" was edited during the apply`) {
		t.Errorf("the refusal does not name the file: %v", err)
	}
	unchanged(t, g, head, map[string]string{"a.nika.yaml": "nika: a1\n", "b.nika.yaml": "nika: the editor's bytes\n", "c.nika.yaml": "nika: c1\n"})
}

// TestGitReadersNeverSeeATornIndexOrRef runs git status and git ls-files
// in a loop while nika applies proposal after proposal: every git command
// must succeed, and every apply must land.
func TestGitReadersNeverSeeATornIndexOrRef(t *testing.T) {
	g := gittest.New(t)
	for i := 0; i < 50; i++ {
		g.Write(fmt.Sprintf("d%d/f%d.txt", i%5, i), fmt.Sprintf("file %d\n", i))
	}
	g.Write("w.nika.yaml", "nika: w0\n")
	g.Commit("base")
	r, _ := gitstage.Open(g.Dir)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	reads := 0
	for _, args := range [][]string{{"status", "--porcelain"}, {"ls-files", "-s"}, {"rev-parse", "HEAD"}} {
		wg.Add(1)
		go func(args []string) {
			defer wg.Done()
			for ctx.Err() == nil {
				cmd := exec.Command("git", args...)
				cmd.Dir = g.Dir
				cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
				out, err := cmd.CombinedOutput()
				mu.Lock()
				reads++
				if err != nil {
					failures = append(failures, fmt.Sprintf("git %s: %v: %s", strings.Join(args, " "), err, out))
				}
				mu.Unlock()
			}
		}(args)
	}
	for i := 1; i <= raceRounds(); i++ {
		in := fmt.Sprintf("```yaml path=w.nika.yaml\nnika: w%d\n```\n", i)
		p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(in)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
			t.Fatalf("apply %d: %v", i, err)
		}
	}
	cancel()
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("%d git reads during %d applies", reads, raceRounds())
	g.Clean()
}

// TestConcurrentGitCommitsAndAppliesNeverLoseWork races git commit against
// nika apply on the same branch. nika holds the branch's lock from its
// compare to its rename, so each side either lands or refuses cleanly:
// git fails on the lock, nika refuses StaleRevision. No commit is lost.
func TestConcurrentGitCommitsAndAppliesNeverLoseWork(t *testing.T) {
	g := gittest.New(t)
	g.Write("w.nika.yaml", "nika: w0\n")
	g.Write("log.txt", "0\n")
	g.Commit("base")
	r, _ := gitstage.Open(g.Dir)
	var landed []string
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= raceRounds(); i++ {
			g.Write("log.txt", fmt.Sprintf("%d\n", i))
			if _, err := g.TryGit("commit", "-q", "-m", fmt.Sprintf("by hand %d", i), "--", "log.txt"); err == nil {
				h, _ := g.TryGit("rev-parse", "HEAD")
				mu.Lock()
				landed = append(landed, "git "+h)
				mu.Unlock()
			}
		}
	}()
	stale, applied := 0, 0
	for i := 1; i <= raceRounds(); i++ {
		in := fmt.Sprintf("```yaml path=w.nika.yaml\nnika: w%d\n```\n", i)
		p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(in)})
		if err != nil {
			// A git commit holds the index lock, or log.txt is being
			// written: both are fine refusals before anything is staged.
			continue
		}
		_, err = flow.Apply(flow.FromGit(r), p, consent.Options{})
		switch c := refusal.ClassOf(err); {
		case err == nil:
			applied++
			mu.Lock()
			landed = append(landed, "nika "+p.Proposal.Commit)
			mu.Unlock()
		case c == refusal.StaleRevision || c == refusal.Locked || c == refusal.Dirty:
			stale++
		default:
			t.Fatalf("apply %d: %s %v", i, c, err)
		}
	}
	<-done
	t.Logf("%d applied, %d refused as stale or locked, %d commits landed in all", applied, stale, len(landed))
	for _, l := range landed {
		h := l[strings.IndexByte(l, ' ')+1:]
		if _, err := g.TryGit("merge-base", "--is-ancestor", h, "HEAD"); err != nil {
			t.Errorf("%s is lost: not an ancestor of HEAD", l)
		}
	}
	g.Git("fsck", "--strict")
	if s := g.Git("status", "--porcelain", "--", "w.nika.yaml"); s != "" {
		idx := strings.Fields(g.Git("ls-files", "-s", "w.nika.yaml"))[1]
		t.Errorf("git status disagrees with HEAD: %s\nindex holds %q, HEAD holds %q, disk holds %q", s,
			g.Git("cat-file", "-p", idx), g.Git("show", "HEAD:w.nika.yaml"), g.Read("w.nika.yaml"))
	}

}

// TestTwoAppliesFromOneBaseLandExactlyOne: two proposals built on the
// same base are applied at the same time; exactly one lands, the other is
// refused as StaleRevision with nothing written.
func TestTwoAppliesFromOneBaseLandExactlyOne(t *testing.T) {
	for round := 0; round < raceRounds()/3+1; round++ {
		g := gittest.New(t)
		g.Write("a.nika.yaml", "nika: a0\n")
		g.Write("b.nika.yaml", "nika: b0\n")
		base := g.Commit("base")
		r1, _ := gitstage.Open(g.Dir)
		r2, _ := gitstage.Open(g.Dir)
		p1, err := flow.Propose(flow.FromGit(r1), flow.ProposeInput{Input: []byte("```yaml path=a.nika.yaml\nnika: a1\n```\n")})
		if err != nil {
			t.Fatal(err)
		}
		p2, err := flow.Propose(flow.FromGit(r2), flow.ProposeInput{Input: []byte("```yaml path=b.nika.yaml\nnika: b1\n```\n")})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, x := range []struct {
			r *gitstage.Repo
			p *flow.Proposed
		}{{r1, p1}, {r2, p2}} {
			wg.Add(1)
			go func(i int, r *gitstage.Repo, p *flow.Proposed) {
				defer wg.Done()
				<-start
				_, errs[i] = flow.Apply(flow.FromGit(r), p, consent.Options{})
			}(i, x.r, x.p)
		}
		close(start)
		wg.Wait()
		landed := 0
		for _, err := range errs {
			if err == nil {
				landed++
			} else if c := refusal.ClassOf(err); c != refusal.StaleRevision {
				t.Fatalf("the losing apply is %s (%v), want StaleRevision", c, err)
			}
		}
		if landed != 1 {
			t.Fatalf("%d applies landed, want exactly 1", landed)
		}
		head := g.Git("rev-parse", "HEAD")
		if head != p1.Proposal.Commit && head != p2.Proposal.Commit {
			t.Fatalf("HEAD %s is neither proposal", head)
		}
		if g.Git("rev-parse", "HEAD~1") != base {
			t.Fatalf("HEAD's parent is not the base")
		}
		g.Clean()
	}
}
