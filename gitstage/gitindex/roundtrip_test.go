package gitindex

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// populate writes a small project with nested directories and shared path
// prefixes (which exercise version 4 compression) and adds it.
func populate(r *repo) {
	r.write("README.md", "readme\n")
	r.write("a.txt", "a\n")
	r.write("a/b.txt", "ab\n")
	r.write("a/b/c.txt", "abc\n")
	r.write("a/b/c/d.txt", "abcd\n")
	r.write("a/bb/long-name-with-shared-prefix-1.txt", "1\n")
	r.write("a/bb/long-name-with-shared-prefix-2.txt", "2\n")
	r.write("z/last.txt", "z\n")
	r.git("add", ".")
}

// TestRoundTripIsByteIdentical: for indexes written by git, Decode sees what
// `git ls-files -s` sees, and Encode of the unchanged index reproduces the
// file byte for byte, extensions and trailer included.
func TestRoundTripIsByteIdentical(t *testing.T) {
	tests := []struct {
		name     string
		init     []string
		setup    func(r *repo)
		mutate   func(b []byte, hs int) []byte // applied to the file git wrote
		version  uint32
		exts     []string
		skipHash bool
		check    func(t *testing.T, ix *Index)
	}{
		{
			name:    "version 2, no extensions",
			setup:   populate,
			version: 2,
		},
		{
			name: "version 2 with a cache-tree after commit",
			setup: func(r *repo) {
				populate(r)
				r.git("commit", "-qm", "one")
			},
			version: 2,
			exts:    []string{"TREE"},
		},
		{
			name: "version 3: intent-to-add and skip-worktree entries",
			setup: func(r *repo) {
				populate(r)
				r.git("commit", "-qm", "one")
				r.write("new.txt", "new\n")
				r.git("add", "-N", "new.txt")
				r.git("update-index", "--skip-worktree", "a/b.txt")
			},
			version: 3,
			exts:    []string{"TREE"},
			check: func(t *testing.T, ix *Index) {
				i, ok := ix.Find("new.txt")
				if !ok || !ix.Entries[i].IntentToAdd || ix.Entries[i].SkipWorktree {
					t.Errorf("new.txt: want intent-to-add only, got %+v", ix.Entries[i])
				}
				i, ok = ix.Find("a/b.txt")
				if !ok || !ix.Entries[i].SkipWorktree || ix.Entries[i].IntentToAdd {
					t.Errorf("a/b.txt: want skip-worktree only, got %+v", ix.Entries[i])
				}
			},
		},
		{
			name: "version 4 (path prefix compression)",
			setup: func(r *repo) {
				populate(r)
				r.git("update-index", "--index-version", "4")
			},
			version: 4,
		},
		{
			name: "version 4 with cache-tree, untracked cache and assume-unchanged",
			setup: func(r *repo) {
				populate(r)
				r.git("commit", "-qm", "one")
				r.git("update-index", "--index-version", "4")
				r.git("config", "core.untrackedCache", "true")
				r.git("update-index", "--untracked-cache")
				r.git("update-index", "--assume-unchanged", "z/last.txt")
				r.write("untracked/u.txt", "u\n")
				r.git("status", "--porcelain")
			},
			version: 4,
			exts:    []string{"TREE", "UNTR"},
			check: func(t *testing.T, ix *Index) {
				i, _ := ix.Find("z/last.txt")
				if !ix.Entries[i].AssumeValid {
					t.Errorf("z/last.txt: want assume-unchanged")
				}
			},
		},
		{
			name: "feature.manyFiles (version 4, untracked cache)",
			setup: func(r *repo) {
				r.git("config", "feature.manyFiles", "true")
				populate(r)
				r.git("commit", "-qm", "one")
				r.git("status", "--porcelain")
			},
			version: 4,
			exts:    []string{"TREE", "UNTR"},
		},
		{
			name: "fsmonitor bitmap (FSMN)",
			setup: func(r *repo) {
				populate(r)
				r.fsmonitor()
			},
			version: 2,
			exts:    []string{"FSMN"},
		},
		{
			name: "conflict stages and resolve-undo",
			setup: func(r *repo) {
				r.write("f.txt", "base\n")
				r.write("g.txt", "base\n")
				r.git("add", ".")
				r.git("commit", "-qm", "base")
				r.git("checkout", "-qb", "other")
				r.write("f.txt", "other\n")
				r.write("g.txt", "other\n")
				r.git("commit", "-qam", "other")
				r.git("checkout", "-q", "main")
				r.write("f.txt", "main\n")
				r.write("g.txt", "main\n")
				r.git("commit", "-qam", "main")
				r.gitFails("merge", "other")
				r.write("g.txt", "resolved\n")
				r.git("add", "g.txt") // records resolve-undo (REUC)
			},
			version: 2,
			exts:    []string{"TREE", "REUC"},
			check: func(t *testing.T, ix *Index) {
				var stages []int
				for _, e := range ix.Entries {
					if e.Path == "f.txt" {
						stages = append(stages, e.Stage)
					}
				}
				if !slices.Equal(stages, []int{1, 2, 3}) {
					t.Errorf("f.txt stages = %v, want [1 2 3]", stages)
				}
				if _, ok := ix.Find("f.txt"); ok {
					t.Errorf("Find(f.txt) found a stage-0 entry in a conflict")
				}
			},
		},
		{
			name: "end-of-entries and offset table, version 4",
			setup: func(r *repo) {
				populate(r)
				r.git("-c", "index.threads=2", "-c", "index.recordEndOfIndexEntries=true",
					"-c", "index.recordOffsetTable=true", "update-index", "--index-version", "4")
			},
			version: 4,
			exts:    []string{"IEOT", "EOIE"},
			check: func(t *testing.T, ix *Index) {
				if len(ix.ieot) < 2 {
					t.Errorf("IEOT blocks = %v, want at least 2 (prefix compression restarts)", ix.ieot)
				}
			},
		},
		{
			name: "end-of-entries and offset table, version 2 with cache-tree",
			setup: func(r *repo) {
				populate(r)
				r.git("commit", "-qm", "one")
				r.write("new.txt", "new\n")
				r.git("-c", "index.threads=2", "-c", "index.recordEndOfIndexEntries=true",
					"-c", "index.recordOffsetTable=true", "add", "new.txt")
			},
			version: 2,
			exts:    []string{"IEOT", "TREE", "EOIE"},
		},
		{
			name: "zero trailer (index.skipHash)",
			setup: func(r *repo) {
				populate(r)
				r.git("commit", "-qm", "one")
				r.git("update-index", "--index-version", "4")
			},
			mutate:   zeroTrailer,
			version:  4,
			exts:     []string{"TREE"},
			skipHash: true,
		},
		{
			name: "unknown optional extension kept byte for byte",
			setup: func(r *repo) {
				populate(r)
				r.git("commit", "-qm", "one")
			},
			mutate: func(b []byte, hs int) []byte {
				return withExtension(b, hs, "ZNIK", []byte("opaque \x00\x01\x02 bytes"))
			},
			version: 2,
			exts:    []string{"TREE", "ZNIK"},
		},
		{
			name: "SHA-256 repository, version 2 with cache-tree",
			init: []string{"--object-format=sha256"},
			setup: func(r *repo) {
				populate(r)
				r.git("commit", "-qm", "one")
			},
			version: 2,
			exts:    []string{"TREE"},
		},
		{
			name: "SHA-256 repository, version 4, zero trailer",
			init: []string{"--object-format=sha256"},
			setup: func(r *repo) {
				populate(r)
				r.git("commit", "-qm", "one")
				r.git("update-index", "--index-version", "4")
			},
			mutate:   zeroTrailer,
			version:  4,
			exts:     []string{"TREE"},
			skipHash: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t, tt.init...)
			tt.setup(r)
			if tt.mutate != nil {
				r.setIndexBytes(tt.mutate(r.indexBytes(), r.hs))
			}
			orig := r.indexBytes()
			ix, err := Decode(orig, r.hs)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if ix.Version != tt.version {
				t.Errorf("Version = %d, want %d", ix.Version, tt.version)
			}
			if ix.SkipHash != tt.skipHash {
				t.Errorf("SkipHash = %v, want %v", ix.SkipHash, tt.skipHash)
			}
			if got := ix.Extensions(); !slices.Equal(got, tt.exts) {
				t.Errorf("extensions = %q, want %q", got, tt.exts)
			}
			// git reads the (possibly mutated) file and agrees with Decode.
			if want, got := r.git("ls-files", "-s"), lsFiles(ix); got != want {
				t.Errorf("entries differ from git ls-files -s:\n got:\n%s\nwant:\n%s", got, want)
			}
			if tt.check != nil {
				tt.check(t, ix)
			}
			enc, err := ix.Encode()
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if !bytes.Equal(enc, orig) {
				t.Errorf("Encode is not byte-identical: %d bytes, want %d; first difference at %d",
					len(enc), len(orig), firstDiff(enc, orig))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

var _ = fmt.Sprint
