package gitstage

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nika-dev/nika/gitstage/gitindex"
	"github.com/nika-dev/nika/gitstage/gittest"
)

// TestIndexScanAgrees answers every question propose asks of the index
// (Stages, HasDir, children) through the mapped scan and through the full
// decoder, on indexes of versions 2, 3 and 4 with conflicts, skip-worktree
// entries and a path longer than 4 KiB, from a fresh hop and from the
// remembered samples.
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
		if !reflect.DeepEqual(again.samples, sc.samples) || again.end != sc.end || again.n != sc.n || !reflect.DeepEqual(again.paths, sc.paths) || again.v4 != (ver == "4") {
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
	for _, mode := range []string{"hop", "offsets", "offsets, version 4"} {
		t.Run(mode, func(t *testing.T) {
			g := gittest.New(t)
			for i := 0; i < 70; i++ {
				os.WriteFile(filepath.Join(g.Dir, fmt.Sprintf("g%03d.txt", i)), []byte("x\n"), 0o644)
			}
			g.Git("add", "-A")
			if strings.HasSuffix(mode, "4") {
				g.Git("update-index", "--index-version", "4")
			}
			r, err := Open(g.Dir)
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(r.NikaDir(), 0o755)
			var ix *gitindex.Index
			if mode != "hop" {
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
			side := loadSidecar(r.indexScanSidecar(), trailer, int64(len(data)))
			if side == nil || side.n != want || len(side.samples) != 3 {
				t.Fatalf("sidecar: %+v", side)
			}
			fresh, _ := openIndexScan(r.IndexPath(), "")
			if fresh == nil || !reflect.DeepEqual(fresh.samples, side.samples) || fresh.end != side.end || !reflect.DeepEqual(fresh.paths, side.paths) {
				t.Fatal("the remembered samples differ from a scan of the file")
			}
			snap, err := r.ReadIndex()
			if err != nil || snap.sc == nil || snap.sc.v4 != strings.HasSuffix(mode, "4") {
				t.Fatalf("ReadIndex over the remembered sidecar: %v", err)
			}
			for i := 0; i < 70; i++ {
				if p := fmt.Sprintf("g%03d.txt", i); len(snap.Stages(p)) != 1 {
					t.Fatalf("%s not found through the remembered samples", p)
				}
			}
			if len(snap.Stages("g003a.txt")) != want-70 {
				t.Fatal("the inserted entry")
			}
		})
	}
}

// FuzzIndexScan: the scan never panics on any bytes, and on an index that
// the full decoder accepts it answers as the decoder does.
func FuzzIndexScan(f *testing.F) {
	for _, v := range []uint32{2, 3, 4} {
		ix := gitindex.New(20)
		ix.Version = v
		for i := 0; i < 40; i++ {
			e := gitindex.Entry{Path: fmt.Sprintf("d%d/f%02d.txt", i%3, i), Mode: gitindex.ModeFile, Hash: make([]byte, 20)}
			e.SkipWorktree = v == 3 && i == 7
			if err := ix.Set(e); err != nil {
				f.Fatal(err)
			}
		}
		b, err := ix.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// A new file each time (truncating a file that earlier scans still map
	// costs the kernel a walk of the mappings), in memory where there is a
	// tmpfs (ext4 slows down creating files after many were deleted).
	dir := f.TempDir()
	if shm, err := os.MkdirTemp("/dev/shm", "nika-fuzz-"); err == nil {
		dir = shm
		f.Cleanup(func() { os.RemoveAll(shm) })
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tf, err := os.CreateTemp(dir, "index")
		if err != nil {
			t.Fatal(err)
		}
		path := tf.Name()
		defer os.Remove(path)
		tf.Write(data)
		tf.Close()
		sc, _ := openIndexScan(path, "")
		if sc == nil {
			return
		}
		fast := &IndexSnapshot{sc: sc}
		asks := []string{"", "d0", "d1/f01.txt", "d2", "zz", "d0/f00.txt"}
		ix, err := gitindex.Decode(data, 20)
		for i := 0; err == nil && i < len(ix.Entries); i++ {
			asks = append(asks, ix.Entries[i].Path)
		}
		for _, p := range asks {
			st, hd := fast.Stages(p), fast.HasDir(p)
			var names []string
			fast.children(p, func(n string) bool { names = append(names, n); return len(names) < 1000 })
			if err != nil {
				continue
			}
			full := &IndexSnapshot{ix: ix}
			if !reflect.DeepEqual(st, full.Stages(p)) || hd != full.HasDir(p) {
				t.Fatalf("%q: the scan and the decoder disagree", p)
			}
		}
	})
}
