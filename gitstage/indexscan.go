package gitstage

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/nika-dev/nika/gitstage/gitindex"
)

// indexScan answers propose's questions about the index (the entries at a
// path, whether a directory has entries, the names in a directory) from the
// index file itself, mapped read-only, without decoding it: one pass hops
// over the entries (no allocation per entry) and keeps every
// scanSample-th entry's offset, so that each question after that is a
// binary search and a short hop. It reads versions 2 and 3 of the format;
// for version 4 (prefix-compressed paths), a split or sparse index, or an
// unknown mandatory extension it steps aside (nil), and the full decoder
// (gitindex) reads the index or refuses it. Like git's own reader, it does
// not verify the trailing checksum; apply, which rewrites the index, reads
// it with the full decoder under index.lock.
type indexScan struct {
	b       []byte
	n       int
	end     int   // the offset where the entries end
	samples []int // the offset of entries 0, scanSample, 2*scanSample, ...
}

const scanSample = 32

const (
	scanHash  = 20
	scanFixed = 40 + scanHash + 2
)

// openIndexScan maps the index at path. (nil, nil) means: use gitindex.
// sidecar, when not "", names a file under .git/nika/ that remembers the
// sampled offsets of the last index scanned, keyed by the index's trailer
// (the SHA-1 of all its bytes) and size: a propose that finds the index
// unchanged since the last one skips the hop, and its cost no longer grows
// with the index.
func openIndexScan(path, sidecar string) (*indexScan, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // gitindex reads a missing index as empty
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < 12+scanHash || fi.Size() > 1<<31 {
		return nil, nil
	}
	var trailer [scanHash]byte
	cached := false
	if sidecar != "" {
		if _, err := f.ReadAt(trailer[:], fi.Size()-scanHash); err == nil && trailer != ([scanHash]byte{}) {
			cached = true
		}
	}
	var samples []int
	var n, end int
	if cached {
		samples, n, end, cached = loadSidecar(sidecar, trailer, fi.Size())
	}
	b, err := mapFile(f, int(fi.Size()), !cached)
	if err != nil {
		return nil, nil
	}
	s := &indexScan{b: b}
	if cached && s.adopt(samples, n, end) {
		runtime.AddCleanup(s, func(b []byte) { unmapFile(b) }, b)
		return s, nil
	}
	if !s.prepare() {
		unmapFile(b)
		return nil, nil
	}
	if sidecar != "" && trailer != ([scanHash]byte{}) {
		saveSidecar(sidecar, trailer, fi.Size(), s)
	}
	runtime.AddCleanup(s, func(b []byte) { unmapFile(b) }, b)
	return s, nil
}

const sidecarMagic = "NIKAIXS1"

// loadSidecar reads the remembered samples if they belong to the index
// with this trailer and size.
func loadSidecar(path string, trailer [scanHash]byte, size int64) ([]int, int, int, bool) {
	d, err := os.ReadFile(path)
	if err != nil || len(d) < 8+scanHash+8+12 || string(d[:8]) != sidecarMagic || string(d[8:8+scanHash]) != string(trailer[:]) {
		return nil, 0, 0, false
	}
	d = d[8+scanHash:]
	if int64(binary.LittleEndian.Uint64(d)) != size {
		return nil, 0, 0, false
	}
	n := int(binary.LittleEndian.Uint32(d[8:]))
	end := int(binary.LittleEndian.Uint32(d[12:]))
	count := int(binary.LittleEndian.Uint32(d[16:]))
	d = d[20:]
	if len(d) != 4*count {
		return nil, 0, 0, false
	}
	samples := make([]int, count)
	for i := range samples {
		samples[i] = int(binary.LittleEndian.Uint32(d[4*i:]))
	}
	return samples, n, end, true
}

// adopt takes remembered samples after checking that they fit this file:
// the entry count of the header, increasing offsets inside the entries.
func (s *indexScan) adopt(samples []int, n, end int) bool {
	b := s.b
	if string(b[:4]) != "DIRC" || int(binary.BigEndian.Uint32(b[8:])) != n {
		return false
	}
	if v := binary.BigEndian.Uint32(b[4:]); v != 2 && v != 3 {
		return false
	}
	if len(samples) != (n+scanSample-1)/scanSample || end > len(b)-scanHash || end < 12 {
		return false
	}
	prev := 11
	for _, o := range samples {
		if o <= prev || o+scanFixed > end {
			return false
		}
		prev = o
	}
	if n > 0 && samples[0] != 12 {
		return false
	}
	s.n, s.end, s.samples = n, end, samples
	return true
}

// saveSidecar remembers the samples, best effort (temp file and rename).
func saveSidecar(path string, trailer [scanHash]byte, size int64, s *indexScan) {
	d := make([]byte, 0, 8+scanHash+20+4*len(s.samples))
	d = append(d, sidecarMagic...)
	d = append(d, trailer[:]...)
	d = binary.LittleEndian.AppendUint64(d, uint64(size))
	d = binary.LittleEndian.AppendUint32(d, uint32(s.n))
	d = binary.LittleEndian.AppendUint32(d, uint32(s.end))
	d = binary.LittleEndian.AppendUint32(d, uint32(len(s.samples)))
	for _, o := range s.samples {
		d = binary.LittleEndian.AppendUint32(d, uint32(o))
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); err != nil {
		return // no .git/nika yet: the registry makes it
	}
	f, err := os.CreateTemp(dir, ".tmp-index-scan-*")
	if err != nil {
		return
	}
	_, werr := f.Write(d)
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}

// prepare hops over the entries once and checks the extensions; false
// means the full decoder must read this index.
func (s *indexScan) prepare() bool {
	b := s.b
	if string(b[:4]) != "DIRC" {
		return false
	}
	if v := binary.BigEndian.Uint32(b[4:]); v != 2 && v != 3 {
		return false
	}
	s.n = int(binary.BigEndian.Uint32(b[8:]))
	body := len(b) - scanHash
	if s.n > (body-12)/scanFixed {
		return false
	}
	s.samples = make([]int, 0, s.n/scanSample+1)
	off := 12
	for i := 0; i < s.n; i++ {
		if i%scanSample == 0 {
			s.samples = append(s.samples, off)
		}
		// The hop reads two bytes of flags and the path's terminating NUL
		// per entry: a sparse index's directory entries are caught by its
		// "sdir" extension below.
		if body-off < scanFixed {
			return false
		}
		flags := uint(b[off+60])<<8 | uint(b[off+61])
		fixed := scanFixed + int(flags>>13&2) // +2 with the extended flag (0x4000)
		n := int(flags & 0xfff)
		if n == 0xfff {
			next, ok := s.next(off, body)
			if !ok {
				return false
			}
			off = next
			continue
		}
		if n == 0 || off+fixed+n >= body || b[off+fixed+n] != 0 {
			return false
		}
		off += (fixed + n + 8) &^ 7
	}
	s.end = off
	for off < body {
		if body-off < 8 {
			return false
		}
		sig := b[off : off+4]
		size := int(binary.BigEndian.Uint32(b[off+4:]))
		if string(sig) == "link" || string(sig) == "sdir" || sig[0] < 'A' || sig[0] > 'Z' {
			return false // split, sparse, or an unknown mandatory extension
		}
		if size > body-off-8 {
			return false
		}
		off += 8 + size
	}
	return true
}

// nameAt returns the entry's path bytes (in the mapping) and where they
// start.
func (s *indexScan) nameAt(off int) []byte {
	b := s.b
	if off+scanFixed > len(b) {
		return nil
	}
	flags := binary.BigEndian.Uint16(b[off+60:])
	start := off + scanFixed
	if flags&0x4000 != 0 {
		start += 2
	}
	n := int(flags & 0xfff)
	if n == 0xfff {
		for n = 0; start+n < len(b) && b[start+n] != 0; n++ {
		}
	}
	if start+n > len(b) {
		return nil
	}
	return b[start : start+n]
}

// next returns the offset of the entry after the one at off.
func (s *indexScan) next(off, body int) (int, bool) {
	b := s.b
	flags := binary.BigEndian.Uint16(b[off+60:])
	fixed := scanFixed
	if flags&0x4000 != 0 {
		fixed += 2
	}
	n := int(flags & 0xfff)
	if n == 0xfff {
		n = 0
		for off+fixed+n < body && b[off+fixed+n] != 0 {
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	next := off + ((fixed + n + 8) &^ 7)
	if next > body || b[off+fixed+n] != 0 {
		return 0, false
	}
	return next, true
}

// seek returns the offset of the first entry whose path is >= key (s.end
// if none).
func (s *indexScan) seek(key string) int {
	lo, hi := 0, len(s.samples) // find the first sample with path >= key
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if string(s.nameAt(s.samples[m])) < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return s.samplesOrEnd(0)
	}
	off := s.samples[lo-1]
	body := len(s.b) - scanHash
	for off < s.end && string(s.nameAt(off)) < key {
		off, _ = s.next(off, body)
	}
	return off
}

func (s *indexScan) samplesOrEnd(i int) int {
	if i < len(s.samples) {
		return s.samples[i]
	}
	return s.end
}

func (s *indexScan) stages(p string) []IndexEntry {
	var out []IndexEntry
	body := len(s.b) - scanHash
	for off := s.seek(p); off < s.end && string(s.nameAt(off)) == p; off, _ = s.next(off, body) {
		b := s.b
		flags := binary.BigEndian.Uint16(b[off+60:])
		var h plumbing.Hash
		copy(h[:], b[off+40:off+60])
		e := IndexEntry{Path: p, Hash: h, Mode: filemode.FileMode(binary.BigEndian.Uint32(b[off+24:])), Stage: int(flags>>12) & 3}
		if flags&0x4000 != 0 {
			e.SkipWorktree = binary.BigEndian.Uint16(b[off+62:])&0x4000 != 0
		}
		out = append(out, e)
	}
	return out
}

func (s *indexScan) hasDir(dir string) bool {
	pre := dir + "/"
	off := s.seek(pre)
	return off < s.end && strings.HasPrefix(string(s.nameAt(off)), pre)
}

func (s *indexScan) children(dir string, fn func(name string) bool) {
	pre := ""
	if dir != "" {
		pre = dir + "/"
	}
	body := len(s.b) - scanHash
	off := s.seek(pre)
	for off < s.end {
		path := s.nameAt(off)
		if !strings.HasPrefix(string(path), pre) {
			return
		}
		rest := path[len(pre):]
		isDir := false
		nameLen := len(rest)
		for i, c := range rest {
			if c == '/' {
				nameLen, isDir = i, true
				break
			}
		}
		name := string(rest[:nameLen])
		if !fn(name) {
			return
		}
		if !isDir {
			off, _ = s.next(off, body)
			for off < s.end && string(s.nameAt(off)) == pre+name { // conflict stages
				off, _ = s.next(off, body)
			}
			continue
		}
		// Every entry under pre+name+"/" sorts before pre+name+"0".
		off = s.seek(pre + name + "0")
	}
}

// indexScanSidecar is where ReadIndex remembers this worktree's index
// samples: .git/nika/index-scan-<hash of the index path>, so that linked
// worktrees (one index each) keep one each.
func (r *Repo) indexScanSidecar() string {
	h := BlobHash([]byte(r.IndexPath()))
	return filepath.Join(r.NikaDir(), "index-scan-"+h.String()[:12])
}

// RememberIndex records the index-scan sidecar for index bytes that the
// caller has just written, so that the next propose over that index skips
// its hop. It hops over data once (a few ms at 300,000 entries) and writes
// nothing when data is not an index the scan reads. Best effort: errors are
// ignored.
func (r *Repo) RememberIndex(data []byte) {
	if len(data) < 12+scanHash || len(data) > 1<<31 {
		return
	}
	var trailer [scanHash]byte
	copy(trailer[:], data[len(data)-scanHash:])
	if trailer == ([scanHash]byte{}) {
		return
	}
	s := &indexScan{b: data}
	if !s.prepare() {
		return
	}
	saveSidecar(r.indexScanSidecar(), trailer, int64(len(data)), s)
}

// RememberWritten is RememberIndex for the index that ix has just written
// (apply, after renaming index.lock): the samples come from the offsets
// that gitindex recorded while it wrote, so nothing is read again.
func (r *Repo) RememberWritten(ix *gitindex.Index) {
	w, ok := ix.Written()
	if !ok || ix.HashSize != scanHash || len(w.Trailer) != scanHash || (w.Version != 2 && w.Version != 3) {
		return
	}
	var trailer [scanHash]byte
	copy(trailer[:], w.Trailer)
	if trailer == ([scanHash]byte{}) || w.Size > 1<<31 {
		return
	}
	n := len(w.Offsets) - 1
	if n < 0 {
		return
	}
	s := &indexScan{n: n, end: int(w.Offsets[n]), samples: make([]int, 0, n/scanSample+1)}
	for i := 0; i < n; i += scanSample {
		s.samples = append(s.samples, int(w.Offsets[i]))
	}
	saveSidecar(r.indexScanSidecar(), trailer, w.Size, s)
}
