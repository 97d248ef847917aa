package gitindex

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// TestLargeIndexFromGit: a 20,000-entry index written by git (versions 2
// and 4, with a full cache-tree) round-trips byte for byte, and a few edits
// give the same tree as git's own update-index.
func TestLargeIndexFromGit(t *testing.T) {
	if testing.Short() {
		t.Skip("large index: skipped with -short")
	}
	for _, version := range []string{"2", "4"} {
		t.Run("version "+version, func(t *testing.T) {
			r := newRepo(t)
			empty := strings.TrimSpace(r.git("hash-object", "-w", "--stdin"))
			var in strings.Builder
			for i := 0; i < 20_000; i++ {
				fmt.Fprintf(&in, "100644 %s 0\tsrc/pkg%03d/sub%02d/file%05d.go\n", empty, i/1000, i/100%10, i)
			}
			c := r.cmd("update-index", "--index-info")
			c.Stdin = strings.NewReader(in.String())
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("update-index --index-info: %v\n%s", err, out)
			}
			r.git("update-index", "--index-version", version)
			r.git("write-tree") // writes the full cache-tree into the index
			orig := r.indexBytes()
			ix, err := Decode(orig, 20)
			if err != nil {
				t.Fatal(err)
			}
			if len(ix.Entries) != 20_000 {
				t.Fatalf("%d entries", len(ix.Entries))
			}
			enc, err := ix.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, orig) {
				t.Fatalf("not byte-identical; first difference at %d", firstDiff(enc, orig))
			}

			ref := r.clone()
			blob := r.blob("new\n")
			ref.blob("new\n")
			for _, p := range []string{"src/pkg007/sub03/file07301.go", "src/pkg019/new.go", "src/new/dir/x.go"} {
				if err := ix.Set(Entry{Path: p, Mode: ModeFile, Hash: blob}); err != nil {
					t.Fatal(err)
				}
				ref.git("update-index", "--add", "--cacheinfo", "100644,"+hex.EncodeToString(blob)+","+p)
			}
			for _, p := range []string{"src/pkg000/sub00/file00000.go", "src/pkg012/sub04/file12450.go"} {
				ix.Remove(p)
				ref.git("update-index", "--force-remove", p)
			}
			r.commitIndex(ix)
			if got, want := r.git("write-tree"), ref.git("write-tree"); got != want {
				t.Errorf("git write-tree = %s, want %s", got, want)
			}
			if got, want := r.git("ls-files", "-s"), ref.git("ls-files", "-s"); got != want {
				t.Errorf("git ls-files -s differs from git's own edit")
			}
		})
	}
}
