package flow_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/gitstage/gittest/synth"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/proof"
)

// The benchmarks of issue 8. Repository sizes and change-set sizes come
// from NIKA_BENCH_SIZES and NIKA_BENCH_CHANGES (comma-separated; defaults
// below); the repositories are built once by gitstage/gittest/synth and cached
// under NIKA_BENCH_CACHE (default: $TMPDIR/nika-bench). Each benchmark
// reports, beside ns/op, B/op and allocs/op, the CPU time per op
// (cpu-ms/op: user+system of this process, and of git's processes for the
// git reference).

func envInts(name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, s := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err == nil {
			out = append(out, n)
		}
	}
	return out
}

var (
	sizes   = envInts("NIKA_BENCH_SIZES", []int{1000, 10000, 100000, 300000})
	changes = envInts("NIKA_BENCH_CHANGES", []int{1, 10, 100, 1000})
)

func benchCache() string {
	if c := os.Getenv("NIKA_BENCH_CACHE"); c != "" {
		return c
	}
	return filepath.Join(os.TempDir(), "nika-bench")
}

// benchRepo builds (or reuses) a synthetic repository of n files.
func benchRepo(b *testing.B, n int) (*gitstage.Repo, string) {
	b.Helper()
	gittest.Setenv(b, b.TempDir())
	dir, err := synth.Build(benchCache(), n)
	if err != nil {
		b.Fatal(err)
	}
	r, err := gitstage.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	return r, dir
}

// cpuMeter reports the CPU time (user + system) spent between Start and
// Stop, its own process's or its children's.
type cpuMeter struct {
	who   int
	total time.Duration
	at    time.Duration
}

func cpuNow(who int) time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(who, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (m *cpuMeter) Start() { m.at = cpuNow(m.who) }
func (m *cpuMeter) Stop()  { m.total += cpuNow(m.who) - m.at }
func (m *cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(m.total.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// proposeInput is a change set of k files (new bytes that depend on seq),
// read against the repository's current bytes.
func proposeInput(b *testing.B, dir string, n, k, seq int) (flow.ProposeInput, *synth.ChangeSet) {
	cs, err := synth.Change(dir, n, k, seq)
	if err != nil {
		b.Fatal(err)
	}
	return flow.ProposeInput{Input: cs.Reply, Format: "reply", Allow: []string{"**"}, Goal: fmt.Sprintf("bench %d", seq)}, cs
}

var seq = int(time.Now().UnixNano() % 1_000_000_000)

// each runs fn for every repository size and change-set size (k <= n/10).
func each(b *testing.B, fn func(b *testing.B, r *gitstage.Repo, dir string, n, k int)) {
	for _, n := range sizes {
		for _, k := range changes {
			if k > n/10 {
				continue
			}
			b.Run(fmt.Sprintf("files=%d/k=%d", n, k), func(b *testing.B) {
				r, dir := benchRepo(b, n)
				fn(b, r, dir, n, k)
			})
		}
	}
}

// BenchmarkPropose stages a k-file proposal: parse, resolve against HEAD
// (the trees on k paths, the index entries of k paths, k file reads),
// write k blobs, the trees on the paths and a commit, and record it.
func BenchmarkPropose(b *testing.B) {
	each(b, func(b *testing.B, r *gitstage.Repo, dir string, n, k int) {
		cpu := cpuMeter{who: syscall.RUSAGE_SELF}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			seq++
			in, _ := proposeInput(b, dir, n, k, seq)
			b.StartTimer()
			cpu.Start()
			if _, err := flow.Propose(flow.FromGit(r), in); err != nil {
				b.Fatal(err)
			}
			cpu.Stop()
		}
		cpu.report(b)
	})
}

// BenchmarkShow loads a pending proposal from its commit (re-deriving its
// id) and renders the human preview, as nika show does.
func BenchmarkShow(b *testing.B) {
	each(b, func(b *testing.B, r *gitstage.Repo, dir string, n, k int) {
		seq++
		in, _ := proposeInput(b, dir, n, k, seq)
		p, err := flow.Propose(flow.FromGit(r), in)
		if err != nil {
			b.Fatal(err)
		}
		id := p.Proposal.ID
		cpu := cpuMeter{who: syscall.RUSAGE_SELF}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			cpu.Start()
			r, err := gitstage.Open(dir) // a fresh process's view
			if err != nil {
				b.Fatal(err)
			}
			q, err := flow.Load(flow.FromGit(r), id)
			if err != nil {
				b.Fatal(err)
			}
			if err := preview.Human(io.Discard, flow.PreviewInput(q), preview.Options{}); err != nil {
				b.Fatal(err)
			}
			cpu.Stop()
		}
		cpu.report(b)
	})
}

// BenchmarkApply applies a k-file proposal, the transaction alone (the
// consent is supplied by the harness): locks, witness checks, k temp writes
// and renames, one index read and write, the ref's compare-and-swap and
// reflog, the registry record.
func BenchmarkApply(b *testing.B) {
	each(b, func(b *testing.B, r *gitstage.Repo, dir string, n, k int) {
		cpu := cpuMeter{who: syscall.RUSAGE_SELF}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			seq++
			in, _ := proposeInput(b, dir, n, k, seq)
			p, err := flow.Propose(flow.FromGit(r), in)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			cpu.Start()
			if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
				b.Fatal(err)
			}
			cpu.Stop()
		}
		cpu.report(b)
	})
}

// BenchmarkApplySync is BenchmarkApply with fsync on (core.fsync): each
// file and its directory, and the index, are synced before the ref moves.
func BenchmarkApplySync(b *testing.B) {
	each(b, func(b *testing.B, r *gitstage.Repo, dir string, n, k int) {
		cpu := cpuMeter{who: syscall.RUSAGE_SELF}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			seq++
			in, _ := proposeInput(b, dir, n, k, seq)
			p, err := flow.Propose(flow.FromGit(r), in)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			cpu.Start()
			if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{Sync: true}); err != nil {
				b.Fatal(err)
			}
			cpu.Stop()
		}
		cpu.report(b)
	})
}

// BenchmarkProposeApply is propose then apply of the same k files, both
// timed: the figure compared with the git reference below.
func BenchmarkProposeApply(b *testing.B) {
	each(b, func(b *testing.B, r *gitstage.Repo, dir string, n, k int) {
		cpu := cpuMeter{who: syscall.RUSAGE_SELF}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			seq++
			in, _ := proposeInput(b, dir, n, k, seq)
			b.StartTimer()
			cpu.Start()
			p, err := flow.Propose(flow.FromGit(r), in)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
				b.Fatal(err)
			}
			cpu.Stop()
		}
		cpu.report(b)
	})
}

// BenchmarkGitReference does the same change sets with the git CLI: git
// apply --index change.patch && git commit -q -m ..., in the same
// repository (git's own auto-gc is off in the synthetic repositories, as
// it would otherwise fire in the timed section). CPU is git's processes'.
func BenchmarkGitReference(b *testing.B) {
	each(b, func(b *testing.B, r *gitstage.Repo, dir string, n, k int) {
		patch := filepath.Join(b.TempDir(), "change.patch")
		git := func(args ...string) {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
		// nika's index leaves the entries of an earlier apply smudged as
		// racily clean (size 0) where git would have compared the bytes
		// and kept them; git apply --index refuses such entries ("does not
		// match index") until a refresh, so refresh once, untimed.
		git("update-index", "-q", "--refresh")
		cpu := cpuMeter{who: syscall.RUSAGE_CHILDREN}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			seq++
			_, cs := proposeInput(b, dir, n, k, seq)
			if err := os.WriteFile(patch, cs.Patch, 0o644); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			cpu.Start()
			git("apply", "--index", patch)
			git("commit", "-q", "-m", fmt.Sprintf("git reference %d", seq))
			cpu.Stop()
		}
		cpu.report(b)
	})
}

// BenchmarkGitUpdateIndex is git's cost floor for apply's index rewrite:
// git update-index of one path (the index read and rewritten whole).
func BenchmarkGitUpdateIndex(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			_, dir := benchRepo(b, n)
			p := synth.Path(n, n/2)
			cpu := cpuMeter{who: syscall.RUSAGE_CHILDREN}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				os.Chtimes(filepath.Join(dir, p), time.Now(), time.Now()) // stat data changes: the entry is rewritten
				b.StartTimer()
				cpu.Start()
				cmd := exec.Command("git", "update-index", "--", p)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
				cpu.Stop()
			}
			cpu.report(b)
		})
	}
}

// BenchmarkVerify proves every commit of a history of 1,000 applied
// one-file proposals (on the 1,000-file repository) with proof.Verify, the
// core of nika verify: each commit re-derived (its tree diffed against its
// parent's, its blobs read and hashed), its id recomputed, the checker run.
func BenchmarkVerify(b *testing.B) {
	const proposals = 1000
	gittest.Setenv(b, b.TempDir())
	base, err := synth.Build(benchCache(), 1000)
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(benchCache(), "verify-1000")
	if _, err := os.Stat(filepath.Join(dir, ".git", "verify-done")); err != nil {
		os.RemoveAll(dir)
		if out, err := exec.Command("cp", "-a", base, dir).CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		r, err := gitstage.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		head, _ := r.ReadHead()
		os.WriteFile(filepath.Join(dir, ".git", "verify-base"), []byte(head.Commit.String()), 0o644)
		for i := 0; i < proposals; i++ {
			p := synth.Path(1000, (i*37)%1000)
			in := flow.ProposeInput{Input: []byte(fmt.Sprintf("```text path=%s\nproposal %d\n```\n", p, i)), Allow: []string{"**"}, Goal: fmt.Sprintf("proposal %d", i)}
			pp, err := flow.Propose(flow.FromGit(r), in)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := flow.Apply(flow.FromGit(r), pp, consent.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		os.WriteFile(filepath.Join(dir, ".git", "verify-done"), nil, 0o644)
	}
	baseCommit, err := os.ReadFile(filepath.Join(dir, ".git", "verify-base"))
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuMeter{who: syscall.RUSAGE_SELF}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cpu.Start()
		r, err := gitstage.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		sel, err := proof.Select(r, string(baseCommit)+"..HEAD", true)
		if err != nil {
			b.Fatal(err)
		}
		commits, err := sel.Commits(r)
		if err != nil {
			b.Fatal(err)
		}
		if len(commits) != proposals {
			b.Fatalf("%d commits", len(commits))
		}
		for _, res := range proof.Verify(r, commits, proof.Options{RequireAll: true}) {
			if res.Status != proof.Proven {
				b.Fatalf("%s: %s %v", res.Commit, res.Status, res.Failures)
			}
		}
		cpu.Stop()
	}
	cpu.report(b)
}

// BenchmarkWitness hashes bytes with changeset.WitnessOf (blake3; zeebo/
// blake3 uses AVX2 when the CPU has it: compare with -tags purego), beside
// git's blob id (SHA-1) of the same bytes.
func BenchmarkWitness(b *testing.B) {
	for _, size := range []int{1 << 10, 16 << 10, 1 << 20, 16 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		b.Run(fmt.Sprintf("blake3/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				_ = changeset.WitnessOf(data)
			}
		})
		b.Run(fmt.Sprintf("sha1-blob/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				_ = gitstage.BlobHash(data)
			}
		})
	}
}
