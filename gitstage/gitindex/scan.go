package gitindex

import (
	"bytes"
	"encoding/binary"
	"unsafe"
)

// base is an index file's bytes as read, with the offset of every entry:
// what an update of a few entries needs to write the new index by copying
// the old bytes around the changed entries (see splice.go), instead of
// decoding all entries into Entry values and encoding them again.
//
// The scan that builds it is the one parser of this package: Decode is the
// scan followed by materialize, so the lazy and the decoded index refuse
// exactly the same files.
type base struct {
	raw  []byte   // the whole file; never written, and never handed out
	offs []uint32 // offs[i] is where entry i starts; offs[n] is where the entries end
	// Version 4 only (the file stores each path relative to the one
	// before): the whole path of every v4Sample-th entry, one after
	// another; sampled path k ends at ends[k]. The paths in between are
	// rebuilt from the nearest sample when asked for.
	v4    bool
	names string
	ends  []uint32

	// The entries that need more than a copy of their bytes, as entry
	// numbers in increasing order:
	redo     []uint32 // their bytes are not what Encode writes for them (a flag or padding git would not write, a prefix that is not the longest)
	racy     []uint32 // racily clean against racySec (see smudges)
	unmerged []uint32 // stage 1–3
	extended []uint32 // skip-worktree or intent-to-add
	racySec  uint32   // the ModTime second racy was computed for (0: none)
}

// scan parses an index whose header checkHeader accepted; the trailer is
// not verified. racySec, when not 0, is the modification time (seconds) of
// the file: the entries racily clean against it are listed in base.racy.
func scan(b []byte, hashSize int, racySec uint32) (*Index, *base, error) {
	ver := binary.BigEndian.Uint32(b[4:])
	body := len(b) - hashSize
	ix := &Index{Version: ver, HashSize: hashSize}
	if allZero(b[body:]) {
		ix.SkipHash = true
	}
	n := int(binary.BigEndian.Uint32(b[8:]))
	fixed := 40 + hashSize + 2
	if n > (body-headerSize)/(fixed+2) {
		return nil, nil, corrupt(8, "the header claims %d entries, more than the file can hold", n)
	}
	bs := &base{raw: b, offs: make([]uint32, n+1), racySec: racySec, v4: ver == 4}
	var arena, cur []byte // version 4: the sampled paths; the path being rebuilt
	if ver == 4 {
		arena = make([]byte, 0, (body-headerSize-n*fixed)/v4Sample*4)
		bs.ends = make([]uint32, 0, n/v4Sample+1)
	}
	flagsAt := 40 + hashSize
	p := headerSize
	var prev []byte // the previous entry's path
	prevStage := 0
	// A split index stores replaced entries with empty paths; the "link"
	// extension after the entries says so. Errors in the entries' content
	// are therefore reported only after the extensions were seen.
	var deferred error
	deferr := func(err error) {
		if deferred == nil {
			deferred = err
		}
	}
	for i := 0; i < n; i++ {
		start := p
		if body-p < fixed {
			return nil, nil, corrupt(p, "entry %d is truncated", i)
		}
		bs.offs[i] = uint32(start)
		flags := binary.BigEndian.Uint16(b[p+flagsAt:])
		mode := be32(b, p+24)
		p += fixed
		stage := int(flags>>12) & 3
		nameLen := int(flags & 0xfff)
		var xf uint16
		if flags&0x4000 != 0 {
			// Extended flags belong to version 3+, but git reads them in
			// version 2 as well; so does this scan (Encode then writes v3).
			if body-p < 2 {
				return nil, nil, corrupt(p, "entry %d is truncated", i)
			}
			xf = binary.BigEndian.Uint16(b[p:])
			p += 2
			if xf&^0x6000 != 0 {
				return nil, nil, corrupt(p-2, "entry %d has unknown extended flags %#04x", i, xf)
			}
			if xf == 0 {
				bs.redo = append(bs.redo, uint32(i)) // Encode drops an empty extended-flags word
			} else {
				bs.extended = append(bs.extended, uint32(i))
			}
		}
		var name []byte
		c := 0 // the order of the previous path and this one
		if ver == 4 {
			strip, k := decodeVarint(b[p:body])
			if k == 0 {
				return nil, nil, corrupt(p, "entry %d has a malformed path prefix length", i)
			}
			p += k
			if strip > uint64(len(prev)) {
				return nil, nil, corrupt(p-k, "entry %d strips %d bytes of a %d-byte previous path", i, strip, len(prev))
			}
			nul := bytes.IndexByte(b[p:body], 0)
			if nul < 0 {
				return nil, nil, corrupt(p, "the path of entry %d is not terminated", i)
			}
			keep := len(prev) - int(strip)
			suffix := b[p : p+nul]
			if strip > 0 && nul > 0 && suffix[0] == prev[keep] {
				bs.redo = appendOnce(bs.redo, uint32(i)) // Encode strips the longest common prefix
			}
			// Both paths begin with prev[:keep]: compare the rest, then
			// rebuild the path in place.
			c = bytes.Compare(prev[keep:], suffix)
			cur = append(cur[:keep], suffix...)
			p += nul + 1
			name = cur
			if i%v4Sample == 0 {
				arena = append(arena, cur...)
				bs.ends = append(bs.ends, uint32(len(arena)))
			}
		} else {
			nul := bytes.IndexByte(b[p:body], 0)
			if nul < 0 {
				return nil, nil, corrupt(p, "the path of entry %d is not terminated", i)
			}
			name = b[p : p+nul]
			c = bytes.Compare(prev, name)
			end := start + ((p - start + nul + 8) &^ 7)
			if end > body {
				return nil, nil, corrupt(start, "entry %d runs past the end of the entries", i)
			}
			if !allZero(b[p+nul : end]) {
				bs.redo = appendOnce(bs.redo, uint32(i)) // Encode pads with NUL bytes
			}
			p = end
		}
		if len(name) == 0 {
			deferr(corrupt(start, "entry %d has an empty path", i))
		}
		if (nameLen < 0xfff && len(name) != nameLen) || (nameLen == 0xfff && len(name) < 0xfff) {
			deferr(corrupt(start, "entry %d: the path is %d bytes but the flags say %d", i, len(name), nameLen))
		}
		if mode&modeTypeMask == modeDir {
			return nil, nil, ErrSparseIndex
		}
		if i > 0 {
			switch {
			case c > 0:
				deferr(corrupt(start, "entry %d (%q) is out of order", i, name))
			case c == 0 && (prevStage == 0 || stage == 0):
				deferr(corrupt(start, "entry %d (%q): a merged entry and a conflict entry for the same path", i, name))
			case c == 0 && stage <= prevStage:
				deferr(corrupt(start, "entry %d (%q): stages out of order", i, name))
			}
		}
		if stage != 0 {
			bs.unmerged = append(bs.unmerged, uint32(i))
		}
		if racySec != 0 && smudges(racySec, be32(b, start+36), be32(b, start+8), flags&0x8000 != 0, xf&0x4000 != 0, mode) {
			bs.racy = append(bs.racy, uint32(i))
		}
		prev, prevStage = name, stage
	}
	bs.offs[n] = uint32(p)
	if ver == 4 {
		// The sampled paths share one allocation, never written again.
		bs.names = unsafe.String(unsafe.SliceData(arena), len(arena))
	}

	// Extensions: one copy for all of their bytes (the index's bytes may
	// be a mapping that goes away).
	rest := append([]byte(nil), b[p:body]...)
	for q := 0; q < len(rest); {
		if len(rest)-q < 8 {
			return nil, nil, corrupt(p+q, "a truncated extension header")
		}
		sig := string(rest[q : q+4])
		size := binary.BigEndian.Uint32(rest[q+4:])
		if uint64(size) > uint64(len(rest)-q-8) {
			return nil, nil, corrupt(p+q, "extension %q claims %d bytes, more than the file holds", sig, size)
		}
		data := rest[q+8 : q+8+int(size) : q+8+int(size)]
		switch {
		case sig == "link":
			return nil, nil, &ExtensionError{Signature: sig, kind: ErrSplitIndex}
		case sig == "sdir":
			return nil, nil, &ExtensionError{Signature: sig, kind: ErrSparseIndex}
		case sig[0] < 'A' || sig[0] > 'Z':
			return nil, nil, &ExtensionError{Signature: sig, kind: ErrMandatoryExtension}
		}
		if sig == "IEOT" {
			ix.ieot = parseIEOT(data, n)
		}
		ix.exts = append(ix.exts, extension{sig: sig, data: data})
		q += 8 + int(size)
	}
	if deferred != nil {
		return nil, nil, deferred
	}
	return ix, bs, nil
}

func appendOnce(s []uint32, i uint32) []uint32 {
	if len(s) > 0 && s[len(s)-1] == i {
		return s
	}
	return append(s, i)
}

// smudges is the racy-git rule of Encode: an entry that git trusts from its
// stat data (a file or a symlink, not assume-unchanged, not skip-worktree,
// size not already 0) whose mtime is not older than the index file's (in
// whole seconds) is written with size 0, so that git looks at the file
// again instead of trusting stat data that the new index's later mtime would
// make look clean.
func smudges(racySec, size, mtimeSec uint32, assumeValid, skipWorktree bool, mode uint32) bool {
	return size != 0 && racySec <= mtimeSec && !assumeValid && !skipWorktree &&
		(mode&modeTypeMask == 0o100000 || mode&modeTypeMask == ModeSymlink)
}

// count is the number of entries in the file.
func (bs *base) count() int { return len(bs.offs) - 1 }

// v4Sample is how often a version 4 scan keeps a whole path.
const v4Sample = 16

// name returns the path of entry i. For versions 2 and 3 it is a view of
// the file's bytes: compare it, never keep it. For version 4 it is rebuilt
// from the nearest sampled path (at most v4Sample-1 entries before), in
// bytes of its own.
func (bs *base) name(i int, hs int) []byte {
	if bs.v4 {
		k := i / v4Sample
		from := uint32(0)
		if k > 0 {
			from = bs.ends[k-1]
		}
		path := []byte(bs.names[from:bs.ends[k]])
		for j := k*v4Sample + 1; j <= i; j++ {
			path = bs.rebuild(j, hs, path)
		}
		return path
	}
	off := int(bs.offs[i])
	flags := binary.BigEndian.Uint16(bs.raw[off+40+hs:])
	start := off + 40 + hs + 2
	if flags&0x4000 != 0 {
		start += 2
	}
	if l := int(flags & 0xfff); l < 0xfff {
		return bs.raw[start : start+l]
	}
	return bs.raw[start : start+bytes.IndexByte(bs.raw[start:], 0)]
}

// rebuild turns path, the path of version 4 entry j-1, into the path of
// entry j (the scan checked its prefix length and its end).
func (bs *base) rebuild(j, hs int, path []byte) []byte {
	b := bs.raw
	p := int(bs.offs[j]) + 40 + hs + 2
	if b[p-2]&0x40 != 0 {
		p += 2
	}
	strip, k := decodeVarint(b[p:])
	return append(path[:len(path)-int(strip)], b[p+k:int(bs.offs[j+1])-1]...)
}

// path returns the path of entry i as a string of its own.
func (bs *base) path(i int, hs int) string {
	if bs.v4 {
		p := bs.name(i, hs)
		return unsafe.String(unsafe.SliceData(p), len(p))
	}
	return string(bs.name(i, hs))
}

func (bs *base) stage(i int, hs int) int {
	return int(bs.raw[int(bs.offs[i])+40+hs]>>4) & 3
}

// entry decodes entry i. Its Hash is a copy.
func (bs *base) entry(i int, hs int) Entry {
	b := bs.raw
	p := int(bs.offs[i])
	flags := binary.BigEndian.Uint16(b[p+40+hs:])
	e := Entry{
		Path: bs.path(i, hs),
		Stat: Stat{
			Ctime: Time{be32(b, p), be32(b, p+4)},
			Mtime: Time{be32(b, p+8), be32(b, p+12)},
			Dev:   be32(b, p+16),
			Ino:   be32(b, p+20),
			UID:   be32(b, p+28),
			GID:   be32(b, p+32),
			Size:  be32(b, p+36),
		},
		Mode:        be32(b, p+24),
		Hash:        append([]byte(nil), b[p+40:p+40+hs]...),
		Stage:       int(flags>>12) & 3,
		AssumeValid: flags&0x8000 != 0,
	}
	if flags&0x4000 != 0 {
		xf := binary.BigEndian.Uint16(b[p+40+hs+2:])
		e.SkipWorktree = xf&0x4000 != 0
		e.IntentToAdd = xf&0x2000 != 0
	}
	return e
}

// materialize decodes every entry into Entry values that share one
// allocation for their hashes and one for their paths, with room for a
// change set's new paths.
func (bs *base) materialize(hs int) []Entry {
	n := bs.count()
	entries := make([]Entry, n, n+64)
	hashes := make([]byte, n*hs)
	var paths string
	var ends []uint32 // version 4: where each path ends in paths
	if bs.v4 {
		// Every path, rebuilt one after the other.
		arena := make([]byte, 0, 4*max(int(bs.offs[n])-headerSize-n*(40+hs+2), 0))
		ends = make([]uint32, n)
		var path []byte
		for i := 0; i < n; i++ {
			path = bs.rebuild(i, hs, path)
			arena = append(arena, path...)
			ends[i] = uint32(len(arena))
		}
		paths = unsafe.String(unsafe.SliceData(arena), len(arena))
	} else {
		size := 0
		for i := 0; i < n; i++ {
			size += len(bs.name(i, hs))
		}
		arena := make([]byte, 0, size)
		for i := 0; i < n; i++ {
			arena = append(arena, bs.name(i, hs)...)
		}
		paths = unsafe.String(unsafe.SliceData(arena), len(arena))
	}
	b := bs.raw
	from := 0
	for i := range entries {
		p := int(bs.offs[i])
		e := &entries[i]
		e.Ctime = Time{be32(b, p), be32(b, p+4)}
		e.Mtime = Time{be32(b, p+8), be32(b, p+12)}
		e.Dev = be32(b, p+16)
		e.Ino = be32(b, p+20)
		e.Mode = be32(b, p+24)
		e.UID = be32(b, p+28)
		e.GID = be32(b, p+32)
		e.Size = be32(b, p+36)
		e.Hash = hashes[i*hs : (i+1)*hs : (i+1)*hs]
		copy(e.Hash, b[p+40:])
		flags := binary.BigEndian.Uint16(b[p+40+hs:])
		e.AssumeValid = flags&0x8000 != 0
		e.Stage = int(flags>>12) & 3
		if flags&0x4000 != 0 {
			xf := binary.BigEndian.Uint16(b[p+40+hs+2:])
			e.SkipWorktree = xf&0x4000 != 0
			e.IntentToAdd = xf&0x2000 != 0
		}
		var l int
		if bs.v4 {
			l = int(ends[i]) - from
		} else {
			l = len(bs.name(i, hs))
		}
		e.Path = paths[from : from+l]
		from += l
	}
	return entries
}
