package gitstage

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nika-dev/nika/gitstage/gitindex"
	"github.com/nika-dev/nika/gitstage/gittest/synth"
)

// BenchmarkIndexScanHop: the hop over every entry that a propose pays
// once after git rewrote the index (no sidecar applies), over a
// 300,000-entry index of versions 2 and 4 mapped from a file.
func BenchmarkIndexScanHop(b *testing.B) {
	for _, ver := range []uint32{2, 4} {
		ix := gitindex.New(20)
		ix.Version = ver
		for i := 0; i < 300_000; i++ {
			e := gitindex.Entry{Path: synth.Path(300_000, i),
				Mode: gitindex.ModeFile, Hash: make([]byte, 20)}
			e.Size = uint32(100 + i%900)
			ix.Entries = append(ix.Entries, e)
		}
		data, err := ix.Encode()
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "index")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("v%d", ver), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				sc, err := openIndexScan(path, "")
				if err != nil || sc == nil {
					b.Fatal("the scan stepped aside")
				}
			}
		})
	}
}
