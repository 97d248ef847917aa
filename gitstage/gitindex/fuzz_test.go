package gitindex

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzDecode: Decode never panics; what it accepts, Encode writes, and the
// result decodes to the same entries and encodes to the same bytes again.
// Edits (which parse the cache-tree) never panic either.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, hs := range []int{20, 32} {
			ix, err := Decode(data, hs)
			if err != nil {
				continue
			}
			b, err := ix.Encode()
			if err != nil {
				t.Fatalf("Encode of a decoded index: %v", err)
			}
			back, err := Decode(b, hs)
			if err != nil {
				t.Fatalf("Decode of an encoded index: %v", err)
			}
			if lsFiles(back) != lsFiles(ix) {
				t.Fatalf("round trip changed the entries")
			}
			again, err := back.Encode()
			if err != nil || !bytes.Equal(again, b) {
				t.Fatalf("second encode differs (%v)", err)
			}
			if len(ix.Entries) > 0 {
				p := ix.Entries[len(ix.Entries)/2].Path
				ix.Remove(p)
				ix.invalidateTree("a/b/c")
				if _, err := ix.Encode(); err != nil {
					t.Fatalf("Encode after Remove: %v", err)
				}
			}
		}
	})
}

// TestWriteFuzzCorpus regenerates testdata/fuzz/FuzzDecode from indexes
// written by git. Run with GITINDEX_WRITE_CORPUS=1.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("GITINDEX_WRITE_CORPUS") == "" {
		t.Skip("set GITINDEX_WRITE_CORPUS=1 to regenerate the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	small := func(r *repo) {
		r.write("a.txt", "a\n")
		r.write("a/b/c.txt", "c\n")
		r.write("a/b/d.txt", "d\n")
		r.write("e.txt", "e\n")
		r.git("add", ".")
	}
	seeds := map[string]struct {
		init  []string
		setup func(r *repo)
	}{
		"v2-tree": {nil, func(r *repo) { small(r); r.git("commit", "-qm", "x") }},
		"v3-ita-skip": {nil, func(r *repo) {
			small(r)
			r.git("commit", "-qm", "x")
			r.write("n.txt", "n\n")
			r.git("add", "-N", "n.txt")
			r.git("update-index", "--skip-worktree", "e.txt")
		}},
		"v4-untr": {nil, func(r *repo) {
			r.git("config", "core.untrackedCache", "true")
			small(r)
			r.git("commit", "-qm", "x")
			r.git("update-index", "--index-version", "4")
			r.write("u/v.txt", "u\n")
			r.git("status", "--porcelain")
		}},
		"v4-ieot-eoie": {nil, func(r *repo) {
			small(r)
			r.git("-c", "index.threads=2", "-c", "index.recordEndOfIndexEntries=true",
				"-c", "index.recordOffsetTable=true", "update-index", "--index-version", "4")
		}},
		"v2-conflict-reuc": {nil, func(r *repo) {
			r.write("f", "base\n")
			r.write("g", "base\n")
			r.git("add", ".")
			r.git("commit", "-qm", "base")
			r.git("checkout", "-qb", "o")
			r.write("f", "o\n")
			r.write("g", "o\n")
			r.git("commit", "-qam", "o")
			r.git("checkout", "-q", "main")
			r.write("f", "m\n")
			r.write("g", "m\n")
			r.git("commit", "-qam", "m")
			r.gitFails("merge", "o")
			r.git("add", "g")
		}},
		"sha256-v4-tree": {[]string{"--object-format=sha256"}, func(r *repo) {
			small(r)
			r.git("commit", "-qm", "x")
			r.git("update-index", "--index-version", "4")
		}},
	}
	for name, s := range seeds {
		r := newRepo(t, s.init...)
		s.setup(r)
		b := r.indexBytes()
		if name == "sha256-v4-tree" {
			b = zeroTrailer(b, 32)
		}
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(b)))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFuzzSeedsDecode: every committed seed is an index that Decode accepts,
// so that fuzzing starts from real files.
func TestFuzzSeedsDecode(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 5 {
		t.Fatalf("only %d seeds", len(names))
	}
	for _, n := range names {
		raw, err := os.ReadFile(filepath.Join(dir, n.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s := string(bytes.TrimSuffix(bytes.TrimPrefix(raw, []byte("go test fuzz v1\n[]byte(")), []byte(")\n")))
		b, err := strconv.Unquote(s)
		if err != nil {
			t.Fatalf("%s: %v", n.Name(), err)
		}
		hs := 20
		if bytes.HasPrefix([]byte(n.Name()), []byte("sha256")) {
			hs = 32
		}
		if _, err := Decode([]byte(b), hs); err != nil {
			t.Errorf("%s: %v", n.Name(), err)
		}
	}
}
