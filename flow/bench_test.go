package flow_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/internal/gittest"
	"github.com/nika-dev/nika/internal/synth"
)

// benchRepo builds (or reuses) a synthetic repository of n files. Set
// NIKA_BENCH_CACHE to keep them between runs; 100,000 files take a while.
func benchRepo(b *testing.B, n int) *gitstage.Repo {
	b.Helper()
	cache := os.Getenv("NIKA_BENCH_CACHE")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "nika-bench")
	}
	gittest.Setenv(b, b.TempDir())
	dir, err := synth.Build(cache, n)
	if err != nil {
		b.Fatal(err)
	}
	r, err := gitstage.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// oneFile proposes new bytes for one supporting file in the middle of the
// tree.
func oneFile(n, i int) flow.ProposeInput {
	p := synth.Path(n, n/2)
	return flow.ProposeInput{
		Input: []byte(fmt.Sprintf("```text path=%s\nrun %d at %d\n```\n", p, i, time.Now().UnixNano())),
		Allow: []string{p},
		Goal:  fmt.Sprintf("bench %d", i),
	}
}

var sizes = []int{1000, 10000, 100000}

// BenchmarkPropose stages a one-file proposal: parse, resolve against HEAD
// (the trees on one path, one index read, one file read), write one blob,
// the trees on the path and a commit, and record it.
func BenchmarkPropose(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			r := benchRepo(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := flow.Propose(r, oneFile(n, i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApply applies a one-file proposal (consent supplied by the
// harness): locks, witness checks, one temp write and rename, one index
// read and write, the ref's compare-and-swap and reflog.
func BenchmarkApply(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			r := benchRepo(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				p, err := flow.Propose(r, oneFile(n, i+1_000_000))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := flow.Apply(r, p, consent.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
