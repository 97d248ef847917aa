package gitstage

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/nika-dev/nika/internal/gittest"
	"github.com/nika-dev/nika/internal/synth"
)

// BenchmarkFirstLookup is the cost of a fresh process's first reads: HEAD's
// commit and root tree, then one tree on the path to a file, through odb
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
		b.Run(fmt.Sprintf("odb/files=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r, err := Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				head, _ := r.ReadHead()
				c, err := r.Commit(head.Commit)
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
				head, _ := r.ReadHead()
				st := filesystem.NewStorageWithOptions(osfs.New(r.CommonDir), cache.NewObjectLRUDefault(), filesystem.Options{})
				c, err := object.GetCommit(st, head.Commit)
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
				_ = plumbing.ZeroHash
			}
		})
	}
}
