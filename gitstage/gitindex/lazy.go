package gitindex

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"unsafe"
)

// lazy is the state of an index opened with Open: the file's bytes and the
// offset of every entry (base), and the edits made since, as a view over
// them. Nothing is decoded until it is asked for, and Encode copies the
// unchanged entries' bytes (splice.go).
type lazy struct {
	bs *base
	// view lists the current entries in order: a base entry's number, or
	// isNew|k for news[k]. nil means the base entries, unchanged.
	view    []uint32
	news    []Entry
	gone    map[uint32]bool // base entries (and isNew|k for news[k]) replaced or removed
	vouched map[uint32]bool // base entries that Vouch marked
	touched []string        // the paths Set and Remove invalidate in the cache-tree, in order
	pre     *prehash        // the file's bytes, hashed in the background for Encode
}

const isNew = 1 << 31

// Open reads the index file at path for an update of a few entries, the
// way git's own readers do: it maps the file, finds every entry's offset
// and checks what Decode checks, except the trailer checksum, which git
// verifies only in git fsck (git 2.39: verify_index_checksum). It decodes
// no entry: Len, At, Find, Unmerged, Racy, Vouch, Set and Remove work on the
// file's bytes, and Encode writes the new index by copying the bytes of the
// unchanged entries and extensions, rewriting only the changed entries and
// the cache-tree nodes on their paths (see Encode). The result is the same,
// byte for byte, as a full decode and encode of the same edits.
//
// Entries is nil for an index from Open (use Len and At). ModTime is set as
// by ReadFile. A missing file is an empty version 2 index, as for ReadFile.
// Open holds the file's bytes until the Index is garbage collected; a
// process must not truncate the index file in place meanwhile (git never
// does: it writes index.lock and renames it), which is why the caller takes
// the index lock before Open.
func Open(path string, hashSize int) (*Index, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		if hashSize != 20 && hashSize != 32 {
			return nil, ErrHashSize
		}
		return New(hashSize), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b, release, err := mapIndex(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("gitindex: reading %s: %w", path, err)
	}
	ix, err := openBytes(b, hashSize, fi.ModTime().Unix())
	if err != nil {
		release() // openBytes stopped its reader of b
		return nil, err
	}
	ix.ModTime = fi.ModTime()
	runtime.AddCleanup(ix.lz, func(release func()) { release() }, release)
	return ix, nil
}

// openBytes is Open over bytes already read; modSec is the file's mtime.
// For a file of 1 MB or more with a checksum, it starts hashing b in the
// background (prehash), for Encode.
func openBytes(b []byte, hashSize int, modSec int64) (*Index, error) {
	if err := checkHeader(b, hashSize); err != nil {
		return nil, err
	}
	lz := &lazy{}
	if len(b) >= 1<<20 && !allZero(b[len(b)-hashSize:]) {
		lz.pre = startPrehash(b, hashSize, lz)
	}
	ix, bs, err := scan(b, hashSize, uint32(modSec))
	if err != nil {
		if lz.pre != nil {
			lz.pre.upTo(0) // stops it: b may go away
		}
		return nil, err
	}
	lz.bs = bs
	ix.lz = lz
	return ix, nil
}

// Len is the number of entries.
func (ix *Index) Len() int {
	if ix.lz != nil {
		return ix.lz.len()
	}
	return len(ix.Entries)
}

// At returns entry i (0 <= i < Len()), a copy: change the index with Set
// and Remove.
func (ix *Index) At(i int) Entry {
	if ix.lz != nil {
		return ix.lz.entry(i, ix.HashSize)
	}
	return ix.Entries[i]
}

// PathAt returns the path of entry i (0 <= i < Len()) without decoding the
// rest of it.
func (ix *Index) PathAt(i int) string { return ix.pathAt(i) }

// Unmerged returns the path of the first entry at a conflict stage (1–3),
// and true, or false if the index has none.
func (ix *Index) Unmerged() (string, bool) {
	if lz := ix.lz; lz != nil {
		defer runtime.KeepAlive(lz)
		for _, j := range lz.bs.unmerged {
			if !lz.gone[j] {
				return lz.bs.path(int(j), ix.HashSize), true
			}
		}
		return "", false
	}
	for i := range ix.Entries {
		if ix.Entries[i].Stage != 0 {
			return ix.Entries[i].Path, true
		}
	}
	return "", false
}

func (lz *lazy) len() int {
	if lz.view == nil {
		return lz.bs.count()
	}
	return len(lz.view)
}

func (lz *lazy) ref(i int) uint32 {
	if lz.view == nil {
		return uint32(i)
	}
	return lz.view[i]
}

// name is the path of entry i, to compare (never to keep).
func (lz *lazy) name(i, hs int) []byte {
	if r := lz.ref(i); r&isNew != 0 {
		p := lz.news[r&^isNew].Path
		return unsafe.Slice(unsafe.StringData(p), len(p))
	} else {
		return lz.bs.name(int(r), hs)
	}
}

func (lz *lazy) stage(i, hs int) int {
	if r := lz.ref(i); r&isNew != 0 {
		return lz.news[r&^isNew].Stage
	} else {
		return lz.bs.stage(int(r), hs)
	}
}

func (lz *lazy) entry(i, hs int) Entry {
	defer runtime.KeepAlive(lz)
	r := lz.ref(i)
	if r&isNew != 0 {
		return lz.news[r&^isNew]
	}
	e := lz.bs.entry(int(r), hs)
	e.fresh = lz.vouched[r]
	return e
}

// search is a binary search for (path, stage) in git's order.
func (lz *lazy) search(path string, stage, hs int) (int, bool) {
	defer runtime.KeepAlive(lz)
	key := unsafe.Slice(unsafe.StringData(path), len(path))
	n := lz.len()
	i := sort.Search(n, func(k int) bool {
		if c := bytes.Compare(lz.name(k, hs), key); c != 0 {
			return c > 0
		}
		return lz.stage(k, hs) >= stage
	})
	return i, i < n && bytes.Equal(lz.name(i, hs), key) && lz.stage(i, hs) == stage
}

// samePath reports whether entry i has the given path.
func (lz *lazy) samePath(i int, path string, hs int) bool {
	defer runtime.KeepAlive(lz) // lz.name is a view of the mapping
	return i < lz.len() && string(lz.name(i, hs)) == path
}

// pathAt returns the path of entry i, a string of its own.
func (lz *lazy) pathAt(i, hs int) string {
	defer runtime.KeepAlive(lz)
	return string(lz.name(i, hs))
}

// splice replaces the entries lo..hi-1 of the view with e (nil: none).
func (lz *lazy) splice(lo, hi int, e *Entry) {
	if lz.view == nil {
		n := lz.bs.count()
		lz.view = make([]uint32, n, n+64)
		for i := range lz.view {
			lz.view[i] = uint32(i)
		}
	}
	for _, r := range lz.view[lo:hi] {
		if lz.gone == nil {
			lz.gone = map[uint32]bool{}
		}
		lz.gone[r] = true // a base entry's number, or isNew|k for news[k]
	}
	var add []uint32
	if e != nil {
		lz.news = append(lz.news, *e)
		add = []uint32{isNew | uint32(len(lz.news)-1)}
	}
	if len(add) == hi-lo {
		copy(lz.view[lo:], add)
		return
	}
	tail := len(lz.view) - hi
	if len(add) > hi-lo {
		lz.view = append(lz.view, 0)
	}
	copy(lz.view[lo+len(add):], lz.view[hi:hi+tail])
	copy(lz.view[lo:], add)
	lz.view = lz.view[:lo+len(add)+tail]
}

// racy lists the positions of the entries Encode would smudge.
func (lz *lazy) racy(ix *Index) []int {
	defer runtime.KeepAlive(lz)
	hs := ix.HashSize
	lz.refreshRacy(ix)
	var out []int
	for _, j := range lz.bs.racy {
		if lz.gone[j] || lz.vouched[j] {
			continue
		}
		i, ok := lz.search(lz.bs.path(int(j), hs), lz.bs.stage(int(j), hs), hs)
		if ok {
			out = append(out, i)
		}
	}
	return out // the entries that Set wrote are fresh: never smudged
}

// refreshRacy recomputes the racy entries when ModTime is no longer the
// file's mtime that Open saw.
func (lz *lazy) refreshRacy(ix *Index) {
	sec := uint32(0)
	if !ix.ModTime.IsZero() && !ix.noSmudge {
		sec = uint32(ix.ModTime.Unix())
	}
	bs := lz.bs
	if sec == bs.racySec {
		return
	}
	bs.racySec, bs.racy = sec, nil
	if sec == 0 {
		return
	}
	hs := ix.HashSize
	b := bs.raw
	for j := 0; j < bs.count(); j++ {
		p := int(bs.offs[j])
		flags := uint16(b[p+40+hs])<<8 | uint16(b[p+41+hs])
		skip := flags&0x4000 != 0 && b[p+42+hs]&0x40 != 0
		if smudges(sec, be32(b, p+36), be32(b, p+8), flags&0x8000 != 0, skip, be32(b, p+24)) {
			bs.racy = append(bs.racy, uint32(j))
		}
	}
}

// vouch marks entry i fresh.
func (lz *lazy) vouch(i int) {
	r := lz.ref(i)
	if r&isNew != 0 {
		lz.news[r&^isNew].fresh = true
		return
	}
	if lz.vouched == nil {
		lz.vouched = map[uint32]bool{}
	}
	lz.vouched[r] = true
}

// materialize turns a lazy index into a decoded one (Entries), with the
// same entries, flags and cache-tree invalidations.
func (ix *Index) materialize() {
	lz := ix.lz
	if lz == nil {
		return
	}
	hs := ix.HashSize
	var entries []Entry
	if lz.view == nil {
		entries = lz.bs.materialize(hs)
		for j := range lz.vouched {
			entries[j].fresh = true
		}
	} else {
		entries = make([]Entry, len(lz.view), len(lz.view)+64)
		for i := range lz.view {
			entries[i] = lz.entry(i, hs)
		}
	}
	runtime.KeepAlive(lz)
	ix.Entries = entries
	ix.lz = nil
	for _, p := range lz.touched {
		ix.invalidateTree(p)
	}
}

// origVersion is the version in the file's header.
func (lz *lazy) origVersion() uint32 { return be32(lz.bs.raw, 4) }

// offsetAt is where entry i stands in the file, or where the entry that
// now stands at i would have stood: the first byte that a change at i can
// alter.
func (lz *lazy) offsetAt(i int) int {
	bs := lz.bs
	for ; i < lz.len(); i++ {
		if r := lz.ref(i); r&isNew == 0 {
			return int(bs.offs[r])
		}
	}
	return int(bs.offs[bs.count()])
}
