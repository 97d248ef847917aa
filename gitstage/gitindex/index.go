package gitindex

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"strings"
	"time"
)

// Time is a timestamp as the index stores it: 32-bit seconds and nanoseconds.
type Time struct {
	Sec, Nsec uint32
}

// Stat is the cached stat data of an entry. git compares it with lstat(2) of
// the file to decide, without reading the file, that the file is unchanged.
type Stat struct {
	Ctime, Mtime       Time
	Dev, Ino, UID, GID uint32
	Size               uint32 // the file size, truncated to 32 bits
}

// Entry is one index entry.
type Entry struct {
	Path string // slash-separated, relative to the top of the worktree
	Mode uint32 // 0o100644, 0o100755, 0o120000 (symlink) or 0o160000 (gitlink)
	Hash []byte // the object id: 20 bytes (SHA-1) or 32 bytes (SHA-256)
	Stat
	Stage        int  // 0 for a merged entry; 1 (base), 2 (ours), 3 (theirs) in a conflict
	AssumeValid  bool // git update-index --assume-unchanged
	SkipWorktree bool // sparse checkout / git update-index --skip-worktree (version 3+)
	IntentToAdd  bool // git add -N (version 3+)

	// fresh is set by Set: the caller vouches that Stat describes a file
	// whose content is Hash, so the entry is never smudged as racy.
	fresh bool
}

// Mode values of index entries.
const (
	ModeFile       uint32 = 0o100644
	ModeExecutable uint32 = 0o100755
	ModeSymlink    uint32 = 0o120000
	ModeGitlink    uint32 = 0o160000
	modeTypeMask   uint32 = 0o170000
	modeDir        uint32 = 0o040000
)

// Index is a decoded index file.
type Index struct {
	// Version is 2, 3 or 4. Encode writes this version, except that a
	// version 2 index with skip-worktree or intent-to-add entries is written
	// as version 3, as git does.
	Version uint32
	// HashSize is the size of object ids: 20 (SHA-1) or 32 (SHA-256). The
	// trailer uses the same algorithm.
	HashSize int
	// Entries, sorted as git sorts them: by path bytes, then by stage.
	// Change them with Set and Remove, which keep the order and the
	// extensions right. Refreshing the Stat of an entry in place is fine.
	Entries []Entry
	// SkipHash is true when the trailer was all zeros (index.skipHash).
	// Encode then writes a zero trailer too.
	SkipHash bool
	// ModTime is the modification time of the index file that was read
	// (ReadFile sets it). When it is set, Encode smudges the entries that
	// were racily clean in that file, the way git does (see Encode).
	ModTime time.Time

	lz           *lazy // the file's bytes, for an index from Open (then Entries is nil)
	exts         []extension
	tree         *treeNode // parsed TREE, once an edit needed it
	treeState    int       // treeRaw, treeParsed, treeBad
	ieot         []uint32  // IEOT block sizes (entries per block), nil if none
	written      []uint32  // the entries' offsets in the last Encode's bytes
	writtenSize  int64     // and their length
	writtenSum   []byte    // and their trailer
	changed      bool      // Set or Remove changed something
	pathsChanged bool      // entries were added or removed

	// test hooks, to prove that the tests would notice a missing step
	noInvalidate, noSmudge bool
}

type extension struct {
	sig  string
	data []byte
}

const (
	treeRaw = iota
	treeParsed
	treeBad
)

const headerSize = 12

// New returns an empty version 2 index for object ids of hashSize bytes.
func New(hashSize int) *Index {
	return &Index{Version: 2, HashSize: hashSize}
}

func newHash(hashSize int) hash.Hash {
	if hashSize == 32 {
		return sha256.New()
	}
	return sha1.New()
}

// Decode parses an index file. hashSize is 20 for SHA-1 repositories and 32
// for SHA-256 ones. It verifies the trailer (a zero trailer is accepted, as
// written with index.skipHash), the entry order, and refuses split and sparse
// indexes and unknown mandatory extensions. Decode does not retain b.
func Decode(b []byte, hashSize int) (*Index, error) {
	if err := checkHeader(b, hashSize); err != nil {
		return nil, err
	}
	// The trailer is verified while the entries are parsed (on a second
	// core when there is one): SHA-1 over a large index costs as much as
	// parsing it. A bad checksum wins over any parse error, as when the
	// check ran first.
	body := len(b) - hashSize
	if allZero(b[body:]) {
		return decode(b, hashSize)
	}
	verify := func() error {
		h := newHash(hashSize)
		h.Write(b[:body])
		if !bytes.Equal(h.Sum(nil), b[body:]) {
			return ErrChecksum
		}
		return nil
	}
	if len(b) < 1<<20 {
		if err := verify(); err != nil {
			return nil, err
		}
		return decode(b, hashSize)
	}
	sum := make(chan error, 1)
	go func() { sum <- verify() }()
	ix, err := decode(b, hashSize)
	if serr := <-sum; serr != nil {
		return nil, serr
	}
	return ix, err
}

func checkHeader(b []byte, hashSize int) error {
	if hashSize != 20 && hashSize != 32 {
		return ErrHashSize
	}
	if len(b) < headerSize+hashSize {
		return corrupt(0, "the file is %d bytes long, too short for an index", len(b))
	}
	if string(b[:4]) != "DIRC" {
		return corrupt(0, "the signature is %q, not \"DIRC\"", b[:4])
	}
	ver := binary.BigEndian.Uint32(b[4:])
	if ver < 2 || ver > 4 {
		return fmt.Errorf("%w: the file has version %d", ErrUnsupportedVersion, ver)
	}
	return nil
}

// decode parses an index whose header checkHeader accepted into Entries;
// the trailer is not verified here.
func decode(b []byte, hashSize int) (*Index, error) {
	ix, bs, err := scan(b, hashSize, 0)
	if err != nil {
		return nil, err
	}
	ix.Entries = bs.materialize(hashSize)
	return ix, nil
}

// parseIEOT returns the block sizes of an index entry offset table, or nil
// if it is malformed or does not cover exactly n entries.
func parseIEOT(data []byte, n int) []uint32 {
	if len(data) < 4 || binary.BigEndian.Uint32(data) != 1 || (len(data)-4)%8 != 0 {
		return nil
	}
	var blocks []uint32
	total := 0
	for q := 4; q < len(data); q += 8 {
		c := binary.BigEndian.Uint32(data[q+4:])
		total += int(c)
		if c == 0 || total > n {
			return nil
		}
		blocks = append(blocks, c)
	}
	if total != n {
		return nil
	}
	return blocks
}

func be32(b []byte, p int) uint32 { return binary.BigEndian.Uint32(b[p:]) }

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// decodeVarint decodes git's offset varint (as in varint.c). It returns the
// value and the number of bytes read, or 0 bytes on overflow or truncation.
func decodeVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		val++
		if val == 0 || val&(uint64(127)<<57) != 0 {
			return 0, 0
		}
		if i >= len(b) {
			return 0, 0
		}
		c = b[i]
		i++
		val = val<<7 + uint64(c&127)
	}
	return val, i
}

// appendVarint appends git's offset varint encoding of v.
func appendVarint(dst []byte, v uint64) []byte {
	var buf [16]byte
	pos := len(buf) - 1
	buf[pos] = byte(v & 127)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		buf[pos] = 128 | byte(v&127)
	}
	return append(dst, buf[pos:]...)
}

// Encode returns the bytes of the index file: the same version that was
// read, with git's rule for versions 2 and 3 (a version 2 index with
// skip-worktree or intent-to-add entries is written as version 3, and a
// version 3 index without them as version 2, as git's do_write_index
// does), the entries, the extensions, and the trailer (the checksum, or
// zeros when SkipHash is set).
//
// Extensions: optional extensions are kept byte for byte, except that
//   - TREE (cache-tree) is rewritten with the nodes on the paths changed by
//     Set and Remove invalidated; it is dropped if it cannot be parsed;
//   - UNTR (untracked cache) is dropped when entries were added or removed,
//     and FSMN (fsmonitor, a bitmap by entry position) when anything changed;
//     git rebuilds both on its next refresh;
//   - IEOT (entry offset table) is kept with recomputed offsets while its
//     blocks still cover the entries, else dropped; EOIE (end of entries) is
//     recomputed. Both are only hints for git's threaded reader.
//
// Racy git: if ModTime is set, every entry that Set did not write, whose
// mtime is not older than ModTime (in whole seconds), and which git would
// trust from its stat data, is written with size 0, so that git re-reads
// the file instead of trusting stat data that the new index's later mtime
// would make look clean. git does the same ("smudging") when it writes.
//
// An index from Open is written by splicing (see encodeLazy): the bytes
// are the same as those of a full encode.
func (ix *Index) Encode() ([]byte, error) {
	hs := ix.HashSize
	if hs != 20 && hs != 32 {
		return nil, ErrHashSize
	}
	ver := ix.Version
	if ver < 2 || ver > 4 {
		return nil, fmt.Errorf("%w: version %d", ErrUnsupportedVersion, ver)
	}
	if ix.lz != nil {
		if b, ok := ix.encodeLazy(); ok {
			return b, nil
		}
		ix.materialize()
	}
	fixed := 40 + hs + 2
	size := headerSize + hs
	extended := false
	for i := range ix.Entries {
		e := &ix.Entries[i]
		if e.Path == "" || strings.IndexByte(e.Path, 0) >= 0 {
			return nil, invalid("entry %d has the path %q", i, e.Path)
		}
		if len(e.Hash) != hs {
			return nil, invalid("entry %q has a %d-byte object id; the index uses %d bytes", e.Path, len(e.Hash), hs)
		}
		if e.Stage < 0 || e.Stage > 3 {
			return nil, invalid("entry %q has stage %d", e.Path, e.Stage)
		}
		if i > 0 {
			p := &ix.Entries[i-1]
			if p.Path > e.Path || (p.Path == e.Path && (p.Stage >= e.Stage || p.Stage == 0)) {
				return nil, invalid("entries %q (stage %d) and %q (stage %d) are out of order or duplicate", p.Path, p.Stage, e.Path, e.Stage)
			}
		}
		if e.SkipWorktree || e.IntentToAdd {
			extended = true
			size += 2
		}
		size += fixed + len(e.Path) + 8 // v4 varint for up to 2^63 fits in 10; path+NUL+pad ≤ len+8
		if ver == 4 {
			size += 3
		}
	}
	ver = writtenVersion(ver, extended)
	ix.Version = ver
	ix.dropOnChange()
	for _, x := range ix.exts {
		size += 8 + len(x.data)
	}
	var treeData []byte
	if ix.treeState == treeParsed {
		treeData = ix.tree.encode(nil, hs)
		size += len(treeData)
	}

	buf := make([]byte, headerSize, size+64)
	th := startTrailer(hs, ix.SkipHash, size)
	putHeader(buf, ver, len(ix.Entries))

	var racySec uint32
	smudge := !ix.ModTime.IsZero() && !ix.noSmudge
	if smudge {
		racySec = uint32(ix.ModTime.Unix())
	}
	var blockStarts []int // entry indices that start an IEOT block
	var blockOffs []int
	if ix.ieot != nil {
		k := 0
		for _, c := range ix.ieot {
			blockStarts = append(blockStarts, k)
			k += int(c)
		}
	}
	nextBlock := 0
	prev := ""
	written := make([]uint32, 0, len(ix.Entries)+1)
	for i := range ix.Entries {
		e := &ix.Entries[i]
		written = append(written, uint32(len(buf)))
		reset := false
		if nextBlock < len(blockStarts) && blockStarts[nextBlock] == i {
			blockOffs = append(blockOffs, len(buf))
			reset = i > 0
			nextBlock++
		}
		s := e.Size
		if smudge && !e.fresh && smudges(racySec, s, e.Mtime.Sec, e.AssumeValid, e.SkipWorktree, e.Mode) {
			s = 0
		}
		buf = appendEntry(buf, e, s, ver, hs, prev, reset)
		prev = e.Path
		buf = th.feed(buf)
	}
	ix.written = append(written, uint32(len(buf)))
	buf = ix.appendExtensions(buf, treeData, blockOffs, len(buf))
	buf = th.finish(buf)
	ix.wrote(len(buf), buf[len(buf)-hs:])
	return buf, nil
}

// Written describes the index bytes that the last Encode returned or
// WriteTo wrote, so that a reader of them can find an entry by binary
// search without hopping over the ones before it.
type Written struct {
	Size    int64    // the length of the file
	Version uint32   // the version in its header
	Trailer []byte   // its last HashSize bytes: the checksum, or zeros
	Offsets []uint32 // where each entry starts, then where the entries end (Len()+1 values)
}

// Written returns what the last Encode or WriteTo produced, or false before
// the first one.
func (ix *Index) Written() (Written, bool) {
	if ix.written == nil {
		return Written{}, false
	}
	return Written{Size: ix.writtenSize, Version: ix.Version, Trailer: ix.writtenSum, Offsets: ix.written}, true
}

// Offsets returns Written().Offsets.
func (ix *Index) Offsets() []uint32 { return ix.written }

// wrote records the size and the trailer of the bytes just produced.
func (ix *Index) wrote(size int, trailer []byte) {
	ix.writtenSize, ix.writtenSum = int64(size), append([]byte(nil), trailer...)
}

// writtenVersion is the version git writes for an index read as version
// ver: versions 2 and 3 become 3 with extended entries and 2 without
// (do_write_index: "demote version 3 to version 2 when the latter
// suffices"); version 4 stays.
func writtenVersion(ver uint32, extended bool) uint32 {
	if ver == 2 || ver == 3 {
		if extended {
			return 3
		}
		return 2
	}
	return ver
}

func putHeader(buf []byte, ver uint32, n int) {
	copy(buf, "DIRC")
	binary.BigEndian.PutUint32(buf[4:], ver)
	binary.BigEndian.PutUint32(buf[8:], uint32(n))
}

// appendEntry appends the encoding of e, with size as its size field;
// prev is the previous entry's path (version 4: the prefix compression),
// and reset says that e starts a block of the entry offset table, which
// shares no prefix with prev (git strips all of prev then).
func appendEntry(buf []byte, e *Entry, size uint32, ver uint32, hs int, prev string, reset bool) []byte {
	fixed := 40 + hs + 2
	start := len(buf)
	buf = append(buf, make([]byte, fixed)...)
	put32(buf, start, e.Ctime.Sec)
	put32(buf, start+4, e.Ctime.Nsec)
	put32(buf, start+8, e.Mtime.Sec)
	put32(buf, start+12, e.Mtime.Nsec)
	put32(buf, start+16, e.Dev)
	put32(buf, start+20, e.Ino)
	put32(buf, start+24, e.Mode)
	put32(buf, start+28, e.UID)
	put32(buf, start+32, e.GID)
	put32(buf, start+36, size)
	copy(buf[start+40:], e.Hash)
	nl := len(e.Path)
	if nl > 0xfff {
		nl = 0xfff
	}
	flags := uint16(nl) | uint16(e.Stage)<<12
	if e.AssumeValid {
		flags |= 0x8000
	}
	xf := uint16(0)
	if e.SkipWorktree {
		xf |= 0x4000
	}
	if e.IntentToAdd {
		xf |= 0x2000
	}
	if xf != 0 {
		flags |= 0x4000
	}
	binary.BigEndian.PutUint16(buf[start+40+hs:], flags)
	if xf != 0 {
		buf = binary.BigEndian.AppendUint16(buf, xf)
	}
	if ver == 4 {
		common := 0
		for !reset && common < len(prev) && common < len(e.Path) && prev[common] == e.Path[common] {
			common++
		}
		buf = appendVarint(buf, uint64(len(prev)-common))
		buf = append(buf, e.Path[common:]...)
		return append(buf, 0)
	}
	buf = append(buf, e.Path...)
	end := start + ((len(buf) - start + 8) &^ 7)
	for len(buf) < end {
		buf = append(buf, 0)
	}
	return buf
}

// appendExtensions appends the extensions in their original order. TREE
// is treeData when the cache-tree was rewritten; IEOT gets the offsets
// blockOffs; EOIE is recomputed: the offset of the first extension (which
// is extStart in the index written) and the hash of the headers before it.
func (ix *Index) appendExtensions(buf, treeData []byte, blockOffs []int, extStart int) []byte {
	hs := ix.HashSize
	eoie := newHash(hs)
	for _, x := range ix.exts {
		data := x.data
		switch x.sig {
		case "TREE":
			switch ix.treeState {
			case treeBad:
				continue
			case treeParsed:
				data = treeData
			}
		case "IEOT":
			if ix.ieot == nil {
				continue
			}
			data = make([]byte, 0, 4+8*len(ix.ieot))
			data = binary.BigEndian.AppendUint32(data, 1)
			for j, c := range ix.ieot {
				data = binary.BigEndian.AppendUint32(data, uint32(blockOffs[j]))
				data = binary.BigEndian.AppendUint32(data, c)
			}
		case "EOIE":
			data = make([]byte, 4, 4+hs)
			binary.BigEndian.PutUint32(data, uint32(extStart))
			data = eoie.Sum(data)
		}
		var hdr [8]byte
		copy(hdr[:], x.sig)
		binary.BigEndian.PutUint32(hdr[4:], uint32(len(data)))
		eoie.Write(hdr[:])
		buf = append(buf, hdr[:]...)
		buf = append(buf, data...)
	}
	return buf
}

// trailer hashes a large index while it is encoded (on a second core when
// there is one): chunks of the finished prefix go to a hashing goroutine. A
// chunk's bytes are never written again, and a chunk keeps its backing
// array even if buf grows past it.
type trailer struct {
	hs     int
	skip   bool
	chunks chan []byte
	sum    chan []byte
	fed    int
}

const trailerChunk = 256 << 10

func startTrailer(hs int, skipHash bool, size int) *trailer {
	t := &trailer{hs: hs, skip: skipHash}
	if !skipHash && size >= 1<<20 {
		t.chunks, t.sum = make(chan []byte, 256), make(chan []byte, 1)
		go func() {
			h := newHash(hs)
			for c := range t.chunks {
				h.Write(c)
			}
			t.sum <- h.Sum(nil)
		}()
	}
	return t
}

// feed hands the bytes of buf that are final and not yet hashed to the
// hashing goroutine, in chunks of at least trailerChunk bytes.
func (t *trailer) feed(buf []byte) []byte {
	if t.chunks != nil && len(buf)-t.fed >= trailerChunk {
		t.chunks <- buf[t.fed:len(buf):len(buf)]
		t.fed = len(buf)
	}
	return buf
}

// finish appends the trailer.
func (t *trailer) finish(buf []byte) []byte {
	switch {
	case t.chunks != nil:
		t.chunks <- buf[t.fed:len(buf):len(buf)]
		close(t.chunks)
		return append(buf, <-t.sum...)
	case t.skip:
		return append(buf, make([]byte, t.hs)...)
	}
	h := newHash(t.hs)
	h.Write(buf)
	return h.Sum(buf)
}

// dropOnChange removes the extensions that an edit makes stale.
func (ix *Index) dropOnChange() {
	if ix.ieot != nil {
		total := 0
		for _, c := range ix.ieot {
			total += int(c)
		}
		if total != ix.Len() || ix.changed {
			ix.ieot = nil
		}
	}
	if !ix.changed {
		return
	}
	kept := ix.exts[:0]
	for _, x := range ix.exts {
		switch {
		case x.sig == "FSMN":
			continue
		case x.sig == "UNTR" && ix.pathsChanged:
			continue
		case x.sig == "IEOT" && ix.ieot == nil:
			continue
		}
		kept = append(kept, x)
	}
	ix.exts = kept
}

func put32(b []byte, p int, v uint32) { binary.BigEndian.PutUint32(b[p:], v) }

// Extensions returns the signatures of the extensions that Encode would
// write now, in order.
func (ix *Index) Extensions() []string {
	treeBad := ix.treeState == treeBad
	if ix.lz != nil {
		_, keep := ix.lazyTree()
		treeBad = treeBad || !keep
	}
	var sigs []string
	for _, x := range ix.exts {
		if x.sig == "TREE" && treeBad {
			continue
		}
		if x.sig == "IEOT" && ix.ieot == nil {
			continue
		}
		if ix.changed && (x.sig == "FSMN" || (x.sig == "UNTR" && ix.pathsChanged)) {
			continue
		}
		sigs = append(sigs, x.sig)
	}
	return sigs
}
