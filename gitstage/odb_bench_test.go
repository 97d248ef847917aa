package gitstage

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/gitstage/gittest/synth"
)

// BenchmarkFirstLookup is the cost of a fresh process's first reads of
// packed objects (the history's root commit, its root tree, one subtree:
// benchmarks leave HEAD's own objects loose), through odb
// (mapped pack index, binary search) and through go-git's storage (which
// decodes every pack index and, on the first read, maps every offset to
// its object id). NIKA_BENCH_CACHE as for the flow benchmarks.
func BenchmarkFirstLookup(b *testing.B) {
	dirCache := os.Getenv("NIKA_BENCH_CACHE")
	if dirCache == "" {
		dirCache = filepath.Join(os.TempDir(), "nika-bench")
	}
	for _, n := range []int{1000, 100000, 300000} {
		gittest.Setenv(b, b.TempDir())
		dir, err := synth.Build(dirCache, n)
		if err != nil {
			b.Fatal(err)
		}
		out, err := exec.Command("git", "-C", dir, "rev-list", "--max-parents=0", "HEAD").Output()
		if err != nil {
			b.Fatal(err)
		}
		rootCommit := plumbing.NewHash(strings.TrimSpace(string(out)))
		b.Run(fmt.Sprintf("odb/files=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r, err := Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				c, err := r.Commit(rootCommit)
				if err != nil {
					b.Fatal(err)
				}
				t, err := r.Tree(c.TreeHash)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.Tree(t.Entries[0].Hash); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("go-git/files=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r, err := Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				st := filesystem.NewStorageWithOptions(osfs.New(r.CommonDir), cache.NewObjectLRUDefault(), filesystem.Options{})
				c, err := object.GetCommit(st, rootCommit)
				if err != nil {
					b.Fatal(err)
				}
				t, err := object.GetTree(st, c.TreeHash)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := object.GetTree(st, t.Entries[0].Hash); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
