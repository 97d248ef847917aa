package gitstage

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/gitstage/gittest"
)

// TestODBAgreesWithGoGit reads every object of a repository whose pack
// holds offset and ref deltas through odb and through go-git, and finds
// the same bytes; then a loose object written at level 1 reads back
// through git itself.
func TestODBAgreesWithGoGit(t *testing.T) {
	g := gittest.New(t)
	for v := 0; v < 12; v++ {
		for f := 0; f < 6; f++ {
			p := filepath.Join(g.Dir, fmt.Sprintf("dir%d", f%3), fmt.Sprintf("f%d.txt", f))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("line of file %d\n", f), 40)+fmt.Sprintf("version %d\n", v)), 0o644)
		}
		g.Git("add", "-A")
		g.Git("commit", "-q", "-m", fmt.Sprintf("v%d", v))
	}
	g.Git("repack", "-adfq", "--depth=20", "--window=50")
	// A second pack with a ref delta onto the first (a thin-pack fix-up).
	os.WriteFile(filepath.Join(g.Dir, "dir0", "f0.txt"), []byte(strings.Repeat("line of file 0\n", 40)+"version 99\n"), 0o644)
	g.Git("commit", "-q", "-am", "v99")
	g.Git("repack", "-dq")
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	list := g.Git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
	n := 0
	for _, line := range strings.Split(list, "\n") {
		hexid, typ, _ := strings.Cut(line, " ")
		h := plumbing.NewHash(hexid)
		ot, _ := plumbing.ParseObjectType(typ)
		got, err := r.readObject(ot, h)
		if err != nil {
			t.Fatalf("odb %s: %v", line, err)
		}
		obj, err := r.store.EncodedObject(ot, h)
		if err != nil {
			t.Fatal(err)
		}
		rd, _ := obj.Reader()
		want, _ := io.ReadAll(rd)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: odb and go-git differ", line)
		}
		if plumbing.ComputeHash(ot, got) != h {
			t.Fatalf("%s: odb's bytes do not hash to the id", line)
		}
		if !r.HasObject(h) {
			t.Fatalf("%s: HasObject false", line)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("only %d objects", n)
	}
	if r.HasObject(plumbing.NewHash(strings.Repeat("ab", 20))) {
		t.Fatal("HasObject true for a missing object")
	}
	h, err := r.WriteBlob([]byte("fresh bytes\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Git("cat-file", "-p", h.String()); got != "fresh bytes" {
		t.Fatalf("git reads %q", got)
	}
	if b, err := r.ReadBlob(h); err != nil || string(b) != "fresh bytes\n" {
		t.Fatalf("ReadBlob: %q %v", b, err)
	}
	if _, err := r.WriteBlob([]byte("fresh bytes\n")); err != nil { // exists: no write
		t.Fatal(err)
	}
	// Level 1 (git's core.looseCompression default): zlib's FLG byte says
	// "fastest" (0x01).
	raw, err := os.ReadFile(filepath.Join(g.Dir, ".git", "objects", h.String()[:2], h.String()[2:]))
	if err != nil || len(raw) < 2 || raw[0] != 0x78 || raw[1] != 0x01 {
		t.Fatalf("loose object header % x, %v", raw[:2], err)
	}
	// A pack that appears after the first lookup is found (git gc meanwhile).
	g.Git("update-index", "--add", "--cacheinfo", "100644,"+h.String()+",fresh.txt")
	g.Git("commit", "-q", "-m", "fresh")
	g.Git("gc", "-q", "--prune=now")
	if !r.HasObject(h) {
		t.Fatal("the blob, now packed, is not found")
	}
	if b, err := r.ReadBlob(h); err != nil || string(b) != "fresh bytes\n" {
		t.Fatalf("ReadBlob after gc: %q %v", b, err)
	}
	g.Git("fsck", "--strict")
}
