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
		side := filepath.Join(t.TempDir(), "index-scan")
		sc, err := openIndexScan(r.IndexPath(), side)
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
		// The second open adopts the remembered samples: the same answers.
		if _, err := os.Stat(side); err != nil {
			t.Fatalf("v%s: no sidecar written: %v", ver, err)
		}
		again, err := openIndexScan(r.IndexPath(), side)
		if err != nil || again == nil {
			t.Fatalf("v%s: reopen: %v", ver, err)
		}
		if !reflect.DeepEqual(again.samples, sc.samples) || again.end != sc.end || again.n != sc.n {
			t.Fatalf("v%s: the sidecar's samples differ from a fresh scan", ver)
		}
		ix, err := gitindex.ReadFile(r.IndexPath(), 20)
		if err != nil {
			t.Fatal(err)
		}
		full := &IndexSnapshot{ix: ix}
		fast := &IndexSnapshot{sc: again}
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

// TestIndexScanSidecarStale: a sidecar left by another index (the index
// changed since), or a damaged one, is not adopted; the scan hops again.
func TestIndexScanSidecarStale(t *testing.T) {
	g := gittest.New(t)
	for i := 0; i < 100; i++ {
		os.WriteFile(filepath.Join(g.Dir, fmt.Sprintf("f%03d.txt", i)), []byte("x\n"), 0o644)
	}
	g.Git("add", "-A")
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	side := filepath.Join(t.TempDir(), "index-scan")
	if sc, err := openIndexScan(r.IndexPath(), side); err != nil || sc == nil {
		t.Fatalf("open: %v", err)
	}
	old, _ := os.ReadFile(side)
	os.WriteFile(filepath.Join(g.Dir, "a-new-first-file.txt"), []byte("y\n"), 0o644)
	g.Git("add", "-A")
	sc, err := openIndexScan(r.IndexPath(), side)
	if err != nil || sc == nil {
		t.Fatalf("reopen: %v", err)
	}
	if sc.n != 101 || len(sc.stages("a-new-first-file.txt")) != 1 || len(sc.stages("f050.txt")) != 1 {
		t.Fatalf("a stale sidecar was adopted: n=%d", sc.n)
	}
	// A damaged sidecar with the right key: offsets out of order.
	cur, _ := os.ReadFile(side)
	if string(cur) == string(old) {
		t.Fatal("the sidecar was not rewritten for the new index")
	}
	bad := append([]byte(nil), cur...)
	for i := len(bad) - 8; i < len(bad); i++ {
		bad[i] = 0xff
	}
	os.WriteFile(side, bad, 0o644)
	sc, err = openIndexScan(r.IndexPath(), side)
	if err != nil || sc == nil || sc.n != 101 || len(sc.stages("f099.txt")) != 1 {
		t.Fatalf("a damaged sidecar: %v", err)
	}
}

// TestRememberIndex: the sidecar recorded from the bytes of a freshly
// written index is adopted by the next ReadIndex, whether it was found by a
// hop over the bytes or taken from the offsets that gitindex recorded while
// it wrote them (RememberWritten, after a Set that inserts an entry).
func TestRememberIndex(t *testing.T) {
	for _, mode := range []string{"hop", "offsets"} {
		t.Run(mode, func(t *testing.T) {
			g := gittest.New(t)
			for i := 0; i < 70; i++ {
				os.WriteFile(filepath.Join(g.Dir, fmt.Sprintf("g%03d.txt", i)), []byte("x\n"), 0o644)
			}
			g.Git("add", "-A")
			r, err := Open(g.Dir)
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(r.NikaDir(), 0o755)
			var ix *gitindex.Index
			if mode == "offsets" {
				ix, err = gitindex.Open(r.IndexPath(), 20)
				if err != nil {
					t.Fatal(err)
				}
				e := ix.At(3)
				e.Path = "g003a.txt"
				if err := ix.Set(e); err != nil {
					t.Fatal(err)
				}
				l, err := gitindex.LockIndex(r.IndexPath(), 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ix.WriteTo(l); err != nil {
					t.Fatal(err)
				}
				if err := l.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(r.IndexPath())
			if err != nil {
				t.Fatal(err)
			}
			if ix != nil {
				r.RememberWritten(ix)
			} else {
				r.RememberIndex(data)
			}
			var trailer [scanHash]byte
			copy(trailer[:], data[len(data)-scanHash:])
			want := 70
			if ix != nil {
				want = 71
			}
			samples, n, end, ok := loadSidecar(r.indexScanSidecar(), trailer, int64(len(data)))
			if !ok || n != want || len(samples) != 3 {
				t.Fatalf("sidecar: ok=%v n=%d samples=%d", ok, n, len(samples))
			}
			fresh, _ := openIndexScan(r.IndexPath(), "")
			if fresh == nil || !reflect.DeepEqual(fresh.samples, samples) || fresh.end != end {
				t.Fatal("the remembered samples differ from a scan of the file")
			}
			snap, err := r.ReadIndex()
			if err != nil || snap.sc == nil || len(snap.Stages("g042.txt")) != 1 {
				t.Fatalf("ReadIndex over the remembered sidecar: %v", err)
			}
		})
	}
}
