package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/gitstage/gittest/synth"
)

// BenchmarkMCPPropose compares an MCP propose round trip with the CLI's
// propose, at the repository sizes of NIKA_BENCH_SIZES (default 1,000 and
// 100,000 files; gitstage/gittest/synth builds them once under NIKA_BENCH_CACHE)
// and the change-set sizes of NIKA_BENCH_CHANGES (default 1 and 10):
//
//   - cli: nika propose --json --format reply --allow '**' FILE, a fresh
//     process each time, as scripts/bench.sh runs it;
//   - mcp: one tools/call propose on a session that stays open (how an
//     agent host uses the server), timed from the request to the result;
//   - mcp-cold: a fresh nika mcp each time: start, initialize, the call,
//     and the end of the session.
//
// Each iteration proposes a new change set (its bytes depend on a counter),
// written outside the timer, so that no propose is the idempotent repeat.
func BenchmarkMCPPropose(b *testing.B) {
	sizes := benchInts("NIKA_BENCH_SIZES", []int{1000, 100000})
	changes := benchInts("NIKA_BENCH_CHANGES", []int{1, 10})
	cache := os.Getenv("NIKA_BENCH_CACHE")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "nika-bench")
	}
	seq := int(time.Now().UnixNano() % 1_000_000_000)
	for _, n := range sizes {
		for _, k := range changes {
			if k > n/10 {
				continue
			}
			b.Run(fmt.Sprintf("files=%d/k=%d/cli", n, k), func(b *testing.B) {
				dir := benchSynth(b, cache, n)
				reply := filepath.Join(b.TempDir(), "change.reply")
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					seq++
					benchChange(b, dir, n, k, seq, reply)
					cmd := exec.Command("nika", "propose", "--json", "--format", "reply", "--allow", "**", "-m", "bench "+strconv.Itoa(seq), reply)
					cmd.Dir = dir
					b.StartTimer()
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("nika propose: %v\n%s", err, out)
					}
				}
			})
			b.Run(fmt.Sprintf("files=%d/k=%d/mcp", n, k), func(b *testing.B) {
				dir := benchSynth(b, cache, n)
				cs := benchSession(b, dir)
				defer cs.Close()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					seq++
					args := benchArgs(b, dir, n, k, seq)
					b.StartTimer()
					benchCall(b, cs, args)
				}
			})
			b.Run(fmt.Sprintf("files=%d/k=%d/mcp-cold", n, k), func(b *testing.B) {
				dir := benchSynth(b, cache, n)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					seq++
					args := benchArgs(b, dir, n, k, seq)
					b.StartTimer()
					cs := benchSession(b, dir)
					benchCall(b, cs, args)
					cs.Close()
				}
			})
		}
	}
}

func benchInts(name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, s := range strings.Split(v, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func benchSynth(b *testing.B, cache string, n int) string {
	b.Helper()
	gittest.Setenv(b, b.TempDir())
	b.Setenv("NO_COLOR", "1")
	dir, err := synth.Build(cache, n)
	if err != nil {
		b.Fatal(err)
	}
	return dir
}

func benchChange(b *testing.B, dir string, n, k, seq int, file string) {
	b.Helper()
	cs, err := synth.Change(dir, n, k, seq)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(file, cs.Reply, 0o644); err != nil {
		b.Fatal(err)
	}
}

func benchArgs(b *testing.B, dir string, n, k, seq int) map[string]any {
	b.Helper()
	cs, err := synth.Change(dir, n, k, seq)
	if err != nil {
		b.Fatal(err)
	}
	return map[string]any{"text": string(cs.Reply), "format": "reply", "goal": "bench " + strconv.Itoa(seq)}
}

func benchSession(b *testing.B, dir string) *mcp.ClientSession {
	b.Helper()
	cmd := exec.Command("nika", "mcp", "--allow", "**")
	cmd.Dir = dir
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

func benchCall(b *testing.B, cs *mcp.ClientSession, args map[string]any) {
	b.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "propose", Arguments: args})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatalf("propose refused: %s", text(res))
	}
}
