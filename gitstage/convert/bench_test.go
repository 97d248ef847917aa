package convert

import (
	"bytes"
	"testing"
)

type mapConfig map[string]string

func (m mapConfig) Get(k string) (string, bool) { v, ok := m[k]; return v, ok }

// BenchmarkLineEndings measures git's line-ending conversion of 1 MiB of
// text under core.autocrlf=true: into git (with the round-trip check) and
// back out.
func BenchmarkLineEndings(b *testing.B) {
	c := New(Options{Config: mapConfig{"core.autocrlf": "true"}})
	pl := c.Plan("a.txt")
	text := bytes.Repeat([]byte("a line of some forty characters of text\r\n"), 1<<20/42)
	b.SetBytes(int64(len(text)))
	b.Run("to-git", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for i := 0; i < b.N; i++ {
			if _, _, err := c.ToGit(pl, text, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	blob, _, _ := c.ToGit(pl, text, nil)
	b.Run("to-worktree", func(b *testing.B) {
		b.SetBytes(int64(len(blob)))
		for i := 0; i < b.N; i++ {
			if _, _, err := c.ToWorkTree(pl, blob); err != nil {
				b.Fatal(err)
			}
		}
	})
}
