package consent_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
)

// manyFiles commits n files, one per directory of a tree three levels
// deep (d<i/100>/e<i/10%10>/f<i>/x<i>.txt), and returns the repository.
func manyFiles(tb testing.TB, n int) (*gittest.Repo, *gitstage.Repo) {
	tb.Helper()
	g := gittest.New(tb)
	for i := 0; i < n; i++ {
		p := filepath.Join(g.Dir, manyPath(i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d v0\n", i)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	g.Commit("base")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		tb.Fatal(err)
	}
	return g, r
}

func manyPath(i int) string { return fmt.Sprintf("d%d/e%d/f%d/x%d.txt", i/100, i/10%10, i, i) }

// manyReply rewrites every one of n files to version v.
func manyReply(n, v int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "```text path=%s\nfile %d v%d\n```\n", manyPath(i), i, v)
	}
	return []byte(b.String())
}

// TestAnApplyOpensEachDirectoryOnce: a 1,000-file apply opens each
// directory it touches once (the 1,110 directories of the tree), however
// many operations it makes in each.
func TestAnApplyOpensEachDirectoryOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("commits 1,000 files; skipped with -short")
	}
	const n = 1000
	g, r := manyFiles(t, n)
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: manyReply(n, 1), Allow: []string{"**"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for i := 0; i < n; i++ {
		for d := filepath.Dir(manyPath(i)); d != "."; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	if got := consent.LastDirOpens(); got != len(dirs) {
		t.Errorf("the apply opened %d directories for the %d it touches", got, len(dirs))
	}
	g.Clean()
	if out, _ := exec.Command("git", "-C", g.Dir, "ls-files", "--others").Output(); len(out) != 0 {
		t.Errorf("files left behind: %s", out)
	}
}

// BenchmarkApply1000 applies a proposal that rewrites 1,000 files, one
// per directory, three levels deep (1,110 directories): about nine file
// operations per file, each of which used to walk its three directories
// again. dir-opens/op is how many directories the apply opened, cpu-ms/op
// the CPU time (user and system) of the apply, which a shared machine's
// load disturbs less than ns/op.
func BenchmarkApply1000(b *testing.B) {
	const n = 1000
	_, r := manyFiles(b, n)
	opens := 0
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: manyReply(n, i+1), Allow: []string{"**"}})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c0 := cpuTime()
		if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		opens += consent.LastDirOpens()
	}
	b.ReportMetric(float64(opens)/float64(b.N), "dir-opens/op")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// cpuTime is this process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
