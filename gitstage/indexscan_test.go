package gitstage

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nika-dev/nika/gitstage/gitindex"
	"github.com/nika-dev/nika/internal/gittest"
)

// TestIndexScanAgrees answers every question propose asks of the index
// (Stages, HasDir, children) through the mapped scan and through the full
// decoder, on indexes of version 2 and 3 with conflicts, skip-worktree
// entries and a path longer than 4 KiB; version 4 steps aside.
func TestIndexScanAgrees(t *testing.T) {
	g := gittest.New(t)
	var paths []string
	for i := 0; i < 300; i++ {
		p := fmt.Sprintf("d%d/s%d/f%03d.txt", i%7, i%5, i)
		paths = append(paths, p)
	}
	paths = append(paths, "top.txt", "d1-x.txt", "d1.txt")
	for _, p := range paths {
		full := filepath.Join(g.Dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(p+"\n"), 0o644); err != nil {
			t.Skipf("the filesystem refuses a long path: %v", err)
		}
	}
	g.Git("add", "-A")
	// A path over 4 KiB (its flags say 0xfff), in the index only: no
	// filesystem takes it.
	long := strings.Repeat(strings.Repeat("x", 240)+"/", 17) + "z.txt"
	blob := g.Git("hash-object", "-w", "top.txt")
	g.Git("update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
	paths = append(paths, long)
	g.Git("commit", "-q", "-m", "base")
	// A conflict at d2/s2/f002.txt (stages 1, 2, 3).
	g.Git("checkout", "-q", "-b", "other")
	os.WriteFile(filepath.Join(g.Dir, "d2/s2/f002.txt"), []byte("other\n"), 0o644)
	g.Git("commit", "-q", "-am", "other")
	g.Git("checkout", "-q", "main")
	os.WriteFile(filepath.Join(g.Dir, "d2/s2/f002.txt"), []byte("main\n"), 0o644)
	g.Git("commit", "-q", "-am", "main")
	g.TryGit("merge", "-q", "other")
	g.Git("update-index", "--skip-worktree", "d3/s3/f003.txt")
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ver := range []string{"3", "2", "4"} {
		if ver == "2" {
			g.Git("update-index", "--no-skip-worktree", "d3/s3/f003.txt")
		}
		g.Git("update-index", "--index-version", ver)
		sc, err := openIndexScan(r.IndexPath())
		if err != nil {
			t.Fatal(err)
		}
		if ver == "4" {
			if sc != nil {
				t.Fatal("version 4 is read by the scan; it should step aside")
			}
			continue
		}
		if sc == nil {
			t.Fatalf("version %s: the scan stepped aside", ver)
		}
		ix, err := gitindex.ReadFile(r.IndexPath(), 20)
		if err != nil {
			t.Fatal(err)
		}
		full := &IndexSnapshot{ix: ix}
		fast := &IndexSnapshot{sc: sc}
		asks := append([]string{"", "d", "d1", "d2/s2", "d2/s2/f002.txt", "d3/s3/f003.txt", "zzz", "d0/s0/f000.txt/x", "a"}, paths...)
		for _, p := range paths {
			asks = append(asks, filepath.ToSlash(filepath.Dir(p)), p+"x", p[:len(p)-1])
		}
		for _, p := range asks {
			if a, b := full.Stages(p), fast.Stages(p); !reflect.DeepEqual(a, b) {
				t.Fatalf("v%s Stages(%q): full %v, scan %v", ver, p, a, b)
			}
			if a, b := full.HasDir(p), fast.HasDir(p); a != b {
				t.Fatalf("v%s HasDir(%q): full %v, scan %v", ver, p, a, b)
			}
			var a, b []string
			full.children(p, func(n string) bool { a = append(a, n); return true })
			fast.children(p, func(n string) bool { b = append(b, n); return true })
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("v%s children(%q): full %v, scan %v", ver, p, a, b)
			}
		}
		if s := fast.Stages("d2/s2/f002.txt"); len(s) != 3 {
			t.Fatalf("v%s: the conflict has %d stages", ver, len(s))
		}
		if ver == "3" && !fast.Stages("d3/s3/f003.txt")[0].SkipWorktree {
			t.Fatal("skip-worktree lost")
		}
	}
}
