package gitindex

import (
	"crypto/sha1"
	"fmt"
	"io"
	"testing"
)

// synthetic builds an index of n entries in a tree of depth 4
// (src/pkgNNN/subNN/fileNNNNN.go), sorted, with plausible stat data.
func synthetic(n int, version uint32) *Index {
	ix := New(20)
	ix.Version = version
	ix.Entries = make([]Entry, 0, n)
	hashes := make([]byte, 20*n)
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("src/pkg%03d/sub%02d/file%05d.go", i/1000, i/100%10, i)
		s := sha1.Sum([]byte(p))
		h := hashes[i*20 : i*20+20]
		copy(h, s[:])
		t := Time{Sec: 1_790_000_000 + uint32(i), Nsec: uint32(i * 7919 % 1e9)}
		ix.Entries = append(ix.Entries, Entry{
			Path: p, Mode: ModeFile, Hash: h,
			Stat: Stat{Ctime: t, Mtime: t, Dev: 65024, Ino: uint32(1_000_000 + i), UID: 1000, GID: 1000, Size: uint32(100 + i%5000)},
		})
	}
	return ix
}

// BenchmarkDecodeEncode100k: one read and one write of a 100,000-entry
// index, the cost nika pays per apply on top of the per-file work.
func BenchmarkDecodeEncode100k(b *testing.B) {
	for _, ver := range []uint32{2, 4} {
		raw, err := synthetic(100_000, ver).Encode()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("v%d", ver), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				ix, err := Decode(raw, 20)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ix.Encode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecode100k(b *testing.B) {
	for _, ver := range []uint32{2, 4} {
		raw, _ := synthetic(100_000, ver).Encode()
		b.Run(fmt.Sprintf("v%d", ver), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := Decode(raw, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncode100k(b *testing.B) {
	for _, ver := range []uint32{2, 4} {
		ix := synthetic(100_000, ver)
		b.Run(fmt.Sprintf("v%d", ver), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ix.Encode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApply10Of100k: the whole index step of an apply of 10 files:
// decode, 10 Sets (5 replacements, 5 inserts), encode.
func BenchmarkApply10Of100k(b *testing.B) {
	raw, _ := synthetic(100_000, 2).Encode()
	h := make([]byte, 20)
	b.ReportAllocs()
	for b.Loop() {
		ix, err := Decode(raw, 20)
		if err != nil {
			b.Fatal(err)
		}
		for k := 0; k < 5; k++ {
			i := k * 19_997
			e := ix.Entries[i]
			e.Hash = h
			if err := ix.Set(e); err != nil {
				b.Fatal(err)
			}
			if err := ix.Set(Entry{Path: fmt.Sprintf("src/pkg%03d/new%d.go", k*17, k), Mode: ModeFile, Hash: h}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := ix.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScan300k: what Open costs over a 300,000-entry index already
// in memory, besides the hash it starts in the background: the scan that
// finds every entry's offset and checks it (no entry is decoded).
func BenchmarkScan300k(b *testing.B) {
	for _, ver := range []uint32{2, 4} {
		raw, _ := synthetic(300_000, ver).Encode()
		b.Run(fmt.Sprintf("v%d", ver), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, _, err := scan(raw, 20, 1_800_000_000); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSplice300k: the index step of an apply of k files to a
// 300,000-entry index read by Open: k replacements, then WriteTo (which
// splices, and hashes beside the scan). The decode+encode of the same
// edits is BenchmarkFull300k.
func BenchmarkSplice300k(b *testing.B) {
	for _, ver := range []uint32{2, 4} {
		raw, _ := synthetic(300_000, ver).Encode()
		for _, k := range []int{1, 10, 1000} {
			b.Run(fmt.Sprintf("v%d/k=%d", ver, k), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(raw)))
				h := make([]byte, 20)
				for b.Loop() {
					ix, err := openBytes(raw, 20, 1_800_000_000)
					if err != nil {
						b.Fatal(err)
					}
					for j := 0; j < k; j++ {
						e := ix.At((j*300_000/k + 150_000/k) % 300_000)
						e.Hash = h
						if err := ix.Set(e); err != nil {
							b.Fatal(err)
						}
					}
					if _, err := ix.WriteTo(io.Discard); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFull300k is BenchmarkSplice300k through Decode (without the
// checksum) and a full Encode: what apply did before the splice.
func BenchmarkFull300k(b *testing.B) {
	raw, _ := synthetic(300_000, 2).Encode()
	h := make([]byte, 20)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		ix, err := decode(raw, 20)
		if err != nil {
			b.Fatal(err)
		}
		e := ix.Entries[150_000]
		e.Hash = h
		if err := ix.Set(e); err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}
