package checker

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// largeWorkflow builds a chain of n tasks alternating fetches, execs and
// model calls, every one reading the previous one.
func largeWorkflow(n int) []byte {
	var b strings.Builder
	b.WriteString("nika: large\npermits: { exec: [\"wc\"], net: { http: [\"example.com\"] }, tools: [\"nika:fetch\"] }\ntasks:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  t%d:\n", i)
		if i > 0 {
			fmt.Fprintf(&b, "    with: { prev: \"${{ tasks.t%d.output }}\" }\n", i-1)
		}
		switch i % 3 {
		case 0:
			b.WriteString("    invoke: { tool: nika:fetch, args: { url: \"https://example.com/x\" } }\n")
		case 1:
			b.WriteString("    exec: { command: [\"wc\"] }\n")
		default:
			b.WriteString("    infer: { prompt: \"sum\", max_tokens: 10 }\n")
		}
	}
	return []byte(b.String())
}

func BenchmarkCheckLarge(b *testing.B) {
	data := largeWorkflow(3000)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		Check("large.nika.yaml", data)
	}
}

func TestLargeWorkflowIsJudged(t *testing.T) {
	rep := Check("large.nika.yaml", largeWorkflow(600))
	n := 0
	for _, f := range rep.Findings {
		if f.Code == "NIKA-SEC-015" {
			n++
		}
	}
	// Every one of the 200 exec tasks sits downstream of the fetch t0, and
	// each is reported once.
	if n != 200 {
		t.Fatalf("SEC-015 findings: %d, want 200", n)
	}
}

// BenchmarkCheckSpec audits every example and template of the spec (what
// nika check examples templates judges), with the disk beside each file,
// one pass per iteration: the checker's share of that whole process.
func BenchmarkCheckSpec(b *testing.B) {
	root := specDir(b)
	type file struct {
		dir, name string
		data      []byte
	}
	var files []file
	n := 0
	for _, sub := range []string{"examples", "templates"} {
		filepath.WalkDir(filepath.Join(root, sub), func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() || kindFromPath(p) == "" {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, file{filepath.Dir(p), filepath.Base(p), data})
			n += len(data)
			return nil
		})
	}
	if len(files) == 0 {
		b.Skip("no example or template in the spec")
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, f := range files {
			CheckFS(os.DirFS(f.dir), f.name, f.data)
		}
	}
}
