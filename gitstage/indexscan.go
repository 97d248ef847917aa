package gitstage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/nika-dev/nika/gitstage/gitindex"
)

// indexScan answers propose's questions about the index (the entries at a
// path, whether a directory has entries, the names in a directory) from the
// index file itself, mapped read-only, without decoding it: one pass hops
// over the entries (no allocation per entry) and keeps every
// scanSample-th entry's offset (and, in version 4, where paths are stored
// relative to the path before, that entry's whole path), so that each
// question after that is a binary search and a short walk. It reads
// versions 2, 3 and 4; for a split or sparse index, or an unknown mandatory
// extension, it steps aside (nil), and the full decoder (gitindex) reads the
// index or refuses it. Like git's own reader, it does not verify the
// trailing checksum; apply, which rewrites the index, reads it again with
// gitindex under index.lock.
type indexScan struct {
	b       []byte
	v4      bool
	n       int
	end     int      // the offset where the entries end
	samples []int    // the offset of entries 0, scanSample, 2*scanSample, ...
	paths   []string // version 4: the whole path of each sampled entry
}

const scanSample = 32

const (
	scanHash  = 20
	scanFixed = 40 + scanHash + 2
)

// openIndexScan maps the index at path. (nil, nil) means: use gitindex.
// sidecar, when not "", names a file under .git/nika/ that remembers the
// samples of the last index scanned, keyed by the index's trailer (the
// SHA-1 of all its bytes) and size: a propose that finds the index
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
	var remembered *indexScan
	if cached {
		remembered = loadSidecar(sidecar, trailer, fi.Size())
		cached = remembered != nil
	}
	b, err := mapFile(f, int(fi.Size()), !cached)
	if err != nil {
		return nil, nil
	}
	if cached {
		remembered.b = b
		if remembered.adopt() {
			runtime.AddCleanup(remembered, func(b []byte) { unmapFile(b) }, b)
			return remembered, nil
		}
	}
	s := &indexScan{b: b}
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

const sidecarMagic = "NIKAIXS2"

// loadSidecar reads the remembered samples if they belong to the index
// with this trailer and size.
func loadSidecar(path string, trailer [scanHash]byte, size int64) *indexScan {
	d, err := os.ReadFile(path)
	if err != nil || len(d) < 8+scanHash+8+16 || string(d[:8]) != sidecarMagic || string(d[8:8+scanHash]) != string(trailer[:]) {
		return nil
	}
	d = d[8+scanHash:]
	if int64(binary.LittleEndian.Uint64(d)) != size {
		return nil
	}
	s := &indexScan{
		n:   int(binary.LittleEndian.Uint32(d[8:])),
		end: int(binary.LittleEndian.Uint32(d[12:])),
		v4:  binary.LittleEndian.Uint32(d[16:]) == 4,
	}
	count := int(binary.LittleEndian.Uint32(d[20:]))
	d = d[24:]
	if count < 0 || len(d) < 4*count {
		return nil
	}
	s.samples = make([]int, count)
	for i := range s.samples {
		s.samples[i] = int(binary.LittleEndian.Uint32(d[4*i:]))
	}
	d = d[4*count:]
	if !s.v4 {
		if len(d) != 0 {
			return nil
		}
		return s
	}
	// Version 4: each sampled path, length first; they share d's bytes.
	blob := unsafe.String(unsafe.SliceData(d), len(d))
	s.paths = make([]string, count)
	q := 0
	for i := range s.paths {
		if len(d)-q < 4 {
			return nil
		}
		l := int(binary.LittleEndian.Uint32(d[q:]))
		if l < 0 || len(d)-q-4 < l {
			return nil
		}
		s.paths[i] = blob[q+4 : q+4+l]
		q += 4 + l
	}
	if q != len(d) {
		return nil
	}
	return s
}

// adopt checks that remembered samples fit the mapped file: the version
// and entry count of the header, increasing offsets inside the entries.
func (s *indexScan) adopt() bool {
	b := s.b
	if string(b[:4]) != "DIRC" || int(binary.BigEndian.Uint32(b[8:])) != s.n {
		return false
	}
	switch v := binary.BigEndian.Uint32(b[4:]); {
	case v == 4 && s.v4 && len(s.paths) == len(s.samples):
	case (v == 2 || v == 3) && !s.v4:
	default:
		return false
	}
	if len(s.samples) != (s.n+scanSample-1)/scanSample || s.end > len(b)-scanHash || s.end < 12 {
		return false
	}
	prev := 11
	for _, o := range s.samples {
		if o <= prev || o+scanFixed > s.end {
			return false
		}
		prev = o
	}
	if s.n > 0 && s.samples[0] != 12 {
		return false
	}
	return true
}

// saveSidecar remembers the samples, best effort (temp file and rename).
func saveSidecar(path string, trailer [scanHash]byte, size int64, s *indexScan) {
	d := make([]byte, 0, 8+scanHash+24+4*len(s.samples))
	d = append(d, sidecarMagic...)
	d = append(d, trailer[:]...)
	d = binary.LittleEndian.AppendUint64(d, uint64(size))
	d = binary.LittleEndian.AppendUint32(d, uint32(s.n))
	d = binary.LittleEndian.AppendUint32(d, uint32(s.end))
	ver := uint32(2)
	if s.v4 {
		ver = 4
	}
	d = binary.LittleEndian.AppendUint32(d, ver)
	d = binary.LittleEndian.AppendUint32(d, uint32(len(s.samples)))
	for _, o := range s.samples {
		d = binary.LittleEndian.AppendUint32(d, uint32(o))
	}
	for _, p := range s.paths {
		d = binary.LittleEndian.AppendUint32(d, uint32(len(p)))
		d = append(d, p...)
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
	switch binary.BigEndian.Uint32(b[4:]) {
	case 2, 3:
	case 4:
		s.v4 = true
	default:
		return false
	}
	s.n = int(binary.BigEndian.Uint32(b[8:]))
	body := len(b) - scanHash
	if s.n > (body-12)/scanFixed {
		return false
	}
	s.samples = make([]int, 0, s.n/scanSample+1)
	off := 12
	var path []byte // version 4: the path of the entry before
	for i := 0; i < s.n; i++ {
		sample := i%scanSample == 0
		if sample {
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
		if s.v4 {
			next, ok := s.parse4(off, &path, body)
			if !ok || (n < 0xfff && len(path) != n) || len(path) == 0 {
				return false
			}
			if sample {
				s.paths = append(s.paths, string(path))
			}
			off = next
			continue
		}
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

// parse4 reads the version 4 entry at off, whose previous path is *path:
// *path becomes its own path (rebuilt in place), and it returns the offset
// of the next entry.
func (s *indexScan) parse4(off int, path *[]byte, body int) (int, bool) {
	b := s.b
	if body-off < scanFixed {
		return 0, false
	}
	p := off + scanFixed
	if b[off+60]&0x40 != 0 {
		p += 2
	}
	if p >= body {
		return 0, false
	}
	strip, k := varint(b[p:body])
	if k == 0 || strip > uint64(len(*path)) {
		return 0, false
	}
	p += k
	nul := bytes.IndexByte(b[p:body], 0)
	if nul < 0 {
		return 0, false
	}
	*path = append((*path)[:len(*path)-int(strip)], b[p:p+nul]...)
	return p + nul + 1, true
}

// varint decodes git's offset varint (varint.c); 0 bytes on overflow or
// truncation.
func varint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		val++
		if val == 0 || val&(uint64(127)<<57) != 0 || i >= len(b) {
			return 0, 0
		}
		c = b[i]
		i++
		val = val<<7 + uint64(c&127)
	}
	return val, i
}

// nameAt returns a version 2/3 entry's path bytes (in the mapping).
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

// next returns the offset of the version 2/3 entry after the one at off.
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

// cursor is an entry of the scan: its offset, its whole path and the
// offset of the entry after it. off == end means past the last entry.
type cursor struct {
	off, next int
	path      []byte // versions 2/3: in the mapping; version 4: the cursor's own
}

// samplePath is the path of sampled entry i.
func (s *indexScan) samplePath(i int) []byte {
	if s.v4 {
		return unsafe.Slice(unsafe.StringData(s.paths[i]), len(s.paths[i]))
	}
	return s.nameAt(s.samples[i])
}

// at is the cursor at sampled entry i.
func (s *indexScan) at(i int) cursor {
	c := cursor{off: s.samples[i]}
	body := len(s.b) - scanHash
	if !s.v4 {
		c.path = s.nameAt(c.off)
		c.next, _ = s.next(c.off, body)
		return c
	}
	// The sample's path is known; parsing the entry against it (a strip
	// of 0 is then the whole suffix) only finds where the next one starts.
	prev := []byte(s.paths[i])
	var ok bool
	if c.next, ok = s.parse4Next(c.off, body); !ok {
		c.next = s.end
	}
	c.path = prev
	return c
}

// parse4Next returns where the version 4 entry after the one at off starts.
func (s *indexScan) parse4Next(off, body int) (int, bool) {
	b := s.b
	p := off + scanFixed
	if b[off+60]&0x40 != 0 {
		p += 2
	}
	if p >= body {
		return 0, false
	}
	_, k := varint(b[p:body])
	if k == 0 {
		return 0, false
	}
	p += k
	nul := bytes.IndexByte(b[p:body], 0)
	if nul < 0 {
		return 0, false
	}
	return p + nul + 1, true
}

// advance moves c to the next entry; false past the last.
func (s *indexScan) advance(c *cursor) bool {
	if c.next <= c.off || c.next >= s.end {
		c.off = s.end
		return false
	}
	c.off = c.next
	body := len(s.b) - scanHash
	if !s.v4 {
		c.path = s.nameAt(c.off)
		var ok bool
		if c.next, ok = s.next(c.off, body); !ok {
			c.next = s.end
		}
		return true
	}
	next, ok := s.parse4(c.off, &c.path, body)
	if !ok {
		c.off = s.end
		return false
	}
	c.next = next
	return true
}

// seek returns the cursor at the first entry whose path is >= key (off ==
// end if none).
func (s *indexScan) seek(key string) cursor {
	lo, hi := 0, len(s.samples) // find the first sample with path >= key
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if string(s.samplePath(m)) < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		if len(s.samples) == 0 {
			return cursor{off: s.end}
		}
		return s.at(0)
	}
	c := s.at(lo - 1)
	for string(c.path) < key {
		if !s.advance(&c) {
			break
		}
	}
	return c
}

func (s *indexScan) stages(p string) []IndexEntry {
	var out []IndexEntry
	for c := s.seek(p); c.off < s.end && string(c.path) == p; s.advance(&c) {
		b := s.b
		flags := binary.BigEndian.Uint16(b[c.off+60:])
		var h plumbing.Hash
		copy(h[:], b[c.off+40:c.off+60])
		e := IndexEntry{Path: p, Hash: h, Mode: filemode.FileMode(binary.BigEndian.Uint32(b[c.off+24:])), Stage: int(flags>>12) & 3}
		if flags&0x4000 != 0 {
			e.SkipWorktree = binary.BigEndian.Uint16(b[c.off+62:])&0x4000 != 0
		}
		out = append(out, e)
	}
	return out
}

func (s *indexScan) hasDir(dir string) bool {
	pre := dir + "/"
	c := s.seek(pre)
	return c.off < s.end && strings.HasPrefix(string(c.path), pre)
}

func (s *indexScan) children(dir string, fn func(name string) bool) {
	pre := ""
	if dir != "" {
		pre = dir + "/"
	}
	c := s.seek(pre)
	for c.off < s.end {
		path := c.path
		if !strings.HasPrefix(string(path), pre) {
			return
		}
		rest := path[len(pre):]
		isDir := false
		nameLen := len(rest)
		for i, ch := range rest {
			if ch == '/' {
				nameLen, isDir = i, true
				break
			}
		}
		name := string(rest[:nameLen])
		if !fn(name) {
			return
		}
		if !isDir {
			s.advance(&c)
			for c.off < s.end && string(c.path) == pre+name { // conflict stages
				s.advance(&c)
			}
			continue
		}
		// Every entry under pre+name+"/" sorts before pre+name+"0".
		c = s.seek(pre + name + "0")
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
// that gitindex recorded while it wrote (and, for version 4, the sampled
// entries' paths from ix), so nothing is read again.
func (r *Repo) RememberWritten(ix *gitindex.Index) {
	w, ok := ix.Written()
	if !ok || ix.HashSize != scanHash || len(w.Trailer) != scanHash || w.Version < 2 || w.Version > 4 {
		return
	}
	var trailer [scanHash]byte
	copy(trailer[:], w.Trailer)
	n := len(w.Offsets) - 1
	if trailer == ([scanHash]byte{}) || w.Size > 1<<31 || n < 0 || n != ix.Len() {
		return
	}
	s := &indexScan{n: n, end: int(w.Offsets[n]), v4: w.Version == 4, samples: make([]int, 0, n/scanSample+1)}
	for i := 0; i < n; i += scanSample {
		s.samples = append(s.samples, int(w.Offsets[i]))
		if s.v4 {
			s.paths = append(s.paths, ix.PathAt(i))
		}
	}
	saveSidecar(r.indexScanSidecar(), trailer, w.Size, s)
}
