package gitindex

import (
	"bytes"
	"hash"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// splicePlan is the index that Encode writes for an index from Open, as
// pieces in order: views of the file's bytes (the runs of unchanged
// entries, which are never copied to build it) and bytes of its own (the
// header, new and re-encoded entries, a smudged size, the extensions). The
// trailer is not in it.
type splicePlan struct {
	segs  [][]byte
	size  int // the pieces' total length
	first int // the first byte that may differ from the file (firstChange)
}

// plan builds the splice of an index from Open: the bytes of every run of
// unchanged entries are the file's (with the size field of a racily clean
// entry set to 0), the new entries and the few old ones whose bytes a full
// encode would not reproduce are encoded, and the cache-tree is rewritten
// only along the changed paths (spliceTree). The result is what a full
// decode and encode of the same edits gives (TestSpliceEqualsFullEncode);
// ok is false where that would take more than a copy (an entry offset
// table in a version 4 index, or one beside entries that must be
// re-encoded), and the caller then decodes the entries and encodes them
// all.
func (ix *Index) plan() (*splicePlan, bool) {
	lz := ix.lz
	defer runtime.KeepAlive(lz)
	bs := lz.bs
	hs := ix.HashSize
	n := lz.len()
	if ix.ieot != nil && !ix.changed && ieotTotal(ix.ieot) == n && (ix.Version == 4 || len(bs.redo) > 0) {
		return nil, false
	}

	extended := false
	for _, j := range bs.extended {
		if !lz.gone[j] {
			extended = true
			break
		}
	}
	for i := range lz.news {
		if e := &lz.news[i]; !lz.gone[isNew|uint32(i)] && (e.SkipWorktree || e.IntentToAdd) {
			extended = true
		}
	}
	ver := writtenVersion(ix.Version, extended)
	treeData, keepTree := ix.lazyTree()
	if !keepTree {
		ix.treeState = treeBad
	}
	ix.Version = ver
	ix.dropOnChange()

	// The entries that Encode smudges: racily clean, not rewritten by Set,
	// not vouched for.
	lz.refreshRacy(ix)
	var smudge []uint32
	for _, j := range bs.racy {
		if !lz.gone[j] && !lz.vouched[j] {
			smudge = append(smudge, j)
		}
	}

	pl := &splicePlan{first: ix.firstChange(ver, smudge)}
	var own []byte // bytes of its own since the last view of the file
	pos := 0       // where own starts in the new index
	view := func(b []byte) {
		if len(own) > 0 {
			pl.segs = append(pl.segs, own)
			pos += len(own)
			own = nil
		}
		pl.segs = append(pl.segs, b)
		pos += len(b)
	}
	at := func() int { return pos + len(own) } // the offset of the next byte
	own = make([]byte, headerSize, 4096)
	putHeader(own, ver, n)

	written := make([]uint32, 0, n+1)
	var prev []byte // the path of the entry written last
	prevBase := -1  // its base entry number; -2 for a new entry (-1: none yet, like base entry -1)
	redo, sm := bs.redo, smudge
	for i := 0; i < n; {
		r := lz.ref(i)
		if r&isNew != 0 {
			e := &lz.news[r&^isNew]
			written = append(written, uint32(at()))
			own = appendEntry(own, e, e.Size, ver, hs, string(prev), false)
			prev, prevBase = []byte(e.Path), -2
			i++
			continue
		}
		j := int(r)
		for len(redo) > 0 && int(redo[0]) < j {
			redo = redo[1:]
		}
		for len(sm) > 0 && int(sm[0]) < j {
			sm = sm[1:]
		}
		// A version 4 entry is stored relative to the path before it: if
		// that is no longer the same entry, it is encoded again.
		moved := ver == 4 && prevBase != j-1
		if moved || (len(redo) > 0 && int(redo[0]) == j) {
			e := bs.entry(j, hs)
			s := e.Size
			if len(sm) > 0 && int(sm[0]) == j {
				s = 0
			}
			written = append(written, uint32(at()))
			own = appendEntry(own, &e, s, ver, hs, string(prev), false)
			prev, prevBase = bs.name(j, hs), j
			i++
			continue
		}
		// The longest run of base entries j, j+1, ... in this order, up to
		// the next entry to re-encode.
		limit := bs.count()
		if len(redo) > 0 {
			limit = int(redo[0])
		}
		k := i + 1
		if lz.view == nil {
			k = i + (limit - j)
		} else {
			for k < n && int(lz.view[k]) == j+(k-i) && j+(k-i) < limit {
				k++
			}
		}
		last := j + (k - i) // one past the run's last base entry
		from, to := int(bs.offs[j]), int(bs.offs[last])
		delta := at() - from // where the run's bytes land, minus where they were
		for s := j; s < last; s++ {
			written = append(written, uint32(int(bs.offs[s])+delta))
		}
		// The smudged entries of the run get a size of 0 of their own.
		for ; len(sm) > 0 && int(sm[0]) < last; sm = sm[1:] {
			field := int(bs.offs[sm[0]]) + 36
			view(bs.raw[from:field])
			own = append(own, 0, 0, 0, 0)
			from = field + 4
		}
		view(bs.raw[from:to])
		prev, prevBase = bs.name(last-1, hs), last-1
		i = k
	}
	ix.written = append(written, uint32(at()))
	var blockOffs []int
	if ix.ieot != nil {
		// Kept only while nothing changed: the offsets are the file's.
		k := 0
		for _, c := range ix.ieot {
			blockOffs = append(blockOffs, int(bs.offs[k]))
			k += int(c)
		}
	}
	if keepTree && treeData != nil {
		ix.treeState = treeParsed // appendExtensions writes treeData
	}
	own = ix.appendExtensions(own, treeData, blockOffs, at())
	ix.treeState = treeRaw
	if !keepTree {
		ix.treeState = treeBad
	}
	if len(own) > 0 {
		pl.segs = append(pl.segs, own)
		pos += len(own)
	}
	pl.size = pos
	return pl, true
}

// hash starts hashing the plan's pieces (on a second goroutine for a large
// index, resuming from the file's prehash at the first change) and returns
// the function that waits for the trailer: the checksum, or zeros.
func (pl *splicePlan) hash(hs int, skipHash bool, pre *prehash) func() []byte {
	if skipHash {
		return func() []byte { return make([]byte, hs) }
	}
	run := func() []byte {
		var h hash.Hash
		off := 0
		if pre != nil {
			h, off = pre.upTo(pl.first), pl.first
		} else {
			h = newHash(hs)
		}
		pos := 0
		for _, s := range pl.segs {
			if end := pos + len(s); end > off {
				h.Write(s[max(off-pos, 0):])
			}
			pos += len(s)
		}
		return h.Sum(nil)
	}
	if pl.size < 1<<20 {
		return run
	}
	sum := make(chan []byte, 1)
	go func() { sum <- run() }()
	return func() []byte { return <-sum }
}

// encodeLazy is Encode for an index from Open: the plan's pieces, copied
// one after the other while they are hashed.
func (ix *Index) encodeLazy() ([]byte, bool) {
	defer runtime.KeepAlive(ix.lz)
	pl, ok := ix.plan()
	if !ok {
		return nil, false
	}
	trailer := pl.hash(ix.HashSize, ix.SkipHash, ix.lz.pre)
	buf := make([]byte, 0, pl.size+ix.HashSize)
	for _, s := range pl.segs {
		buf = append(buf, s...)
	}
	sum := trailer()
	ix.wrote(pl.size+len(sum), sum)
	return append(buf, sum...), true
}

// WriteTo writes the bytes that Encode returns to w, and returns how many
// it wrote. For an index from Open it never builds them in memory: the runs
// of unchanged entries go from the file's bytes straight to w, while they
// are hashed, and the trailer follows. When w is a *Lock, the lock file is
// first given its final size (see Lock.Write). Offsets describes the bytes
// written, as after Encode.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	var pl *splicePlan
	if ix.lz != nil {
		if p, ok := ix.plan(); ok {
			pl = p
		} else {
			ix.materialize()
		}
	}
	if pl == nil {
		b, err := ix.Encode()
		if err != nil {
			return 0, err
		}
		n, err := w.Write(b)
		return int64(n), err
	}
	defer runtime.KeepAlive(ix.lz)
	if l, ok := w.(*Lock); ok {
		l.preallocate(int64(pl.size + ix.HashSize))
	}
	trailer := pl.hash(ix.HashSize, ix.SkipHash, ix.lz.pre)
	var total int64
	for _, s := range pl.segs {
		n, err := w.Write(s)
		total += int64(n)
		if err != nil {
			trailer()
			return total, err
		}
	}
	sum := trailer()
	n, err := w.Write(sum)
	ix.wrote(pl.size+len(sum), sum)
	return total + int64(n), err
}

// firstChange is the offset of the first byte where the index that
// encodeLazy writes (in version ver, with the base entries smudge set to
// size 0) may differ from the file: the header, the first entry that is
// not the file's own at its place, the first smudged size; else where the
// extensions start.
func (ix *Index) firstChange(ver uint32, smudge []uint32) int {
	lz := ix.lz
	bs := lz.bs
	if ver != ix.lz.origVersion() {
		return 4
	}
	n := lz.len()
	if n != bs.count() {
		return 8
	}
	f := int(bs.offs[n])
	if len(smudge) > 0 {
		f = int(bs.offs[smudge[0]]) + 36
	}
	if len(bs.redo) > 0 {
		f = min(f, int(bs.offs[bs.redo[0]]))
	}
	if lz.view != nil {
		for i, r := range lz.view {
			if int(bs.offs[i]) >= f {
				break
			}
			if r != uint32(i) {
				f = int(bs.offs[i])
				break
			}
		}
	}
	return f
}

func ieotTotal(blocks []uint32) int {
	t := 0
	for _, c := range blocks {
		t += int(c)
	}
	return t
}

// lazyTree returns the TREE data that Encode writes for a lazy index: nil
// with keep true when nothing was invalidated (the bytes stay as read), the
// rewritten bytes otherwise, and keep false when the cache-tree cannot be
// parsed (it is dropped, as Set would drop it in a decoded index).
func (ix *Index) lazyTree() (data []byte, keep bool) {
	lz := ix.lz
	if len(lz.touched) == 0 {
		return nil, true
	}
	var raw []byte
	found := false
	for _, x := range ix.exts {
		if x.sig == "TREE" {
			raw, found = x.data, true
			break
		}
	}
	if !found {
		return nil, true
	}
	if out, ok := spliceTree(raw, ix.HashSize, lz.touched); ok {
		return out, true
	}
	t := parseTree(raw, ix.HashSize)
	if t == nil {
		return nil, false
	}
	for _, p := range lz.touched {
		t.invalidate(p)
	}
	return t.encode(nil, ix.HashSize), true
}

// spliceTree rewrites cache-tree data with the nodes on paths invalidated
// and the subtrees named by a whole path removed, as invalidate does, but
// copies the bytes of every other node. ok is false when data is not
// exactly what encode writes for what parseTree reads (it is malformed, or
// a number is not written the way strconv writes it): the caller then parses
// it.
func spliceTree(data []byte, hs int, paths []string) ([]byte, bool) {
	ps := slices.Clone(paths)
	slices.Sort(ps)
	ps = slices.Compact(ps)
	out := make([]byte, 0, len(data))
	out, rest, ok := spliceNode(out, data, hs, ps, 0)
	if !ok || len(rest) != 0 {
		return nil, false
	}
	return out, true
}

// treeHeader reads a node's header: its name, entry count and subtree
// count, and the bytes after it (after its hash when count >= 0).
func treeHeader(b []byte, hs int) (name []byte, count, subs int, rest []byte, ok bool) {
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, 0, 0, nil, false
	}
	name, b = b[:nul], b[nul+1:]
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		return nil, 0, 0, nil, false
	}
	count, ok = canonicalInt(b[:sp])
	if !ok || count < -1 {
		return nil, 0, 0, nil, false
	}
	b = b[sp+1:]
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return nil, 0, 0, nil, false
	}
	subs, ok = canonicalInt(b[:nl])
	if !ok || subs < 0 || subs > len(b) {
		return nil, 0, 0, nil, false
	}
	b = b[nl+1:]
	if count >= 0 {
		if len(b) < hs {
			return nil, 0, 0, nil, false
		}
		b = b[hs:]
	}
	return name, count, subs, b, true
}

// canonicalInt parses a decimal number written as strconv.Itoa writes it
// (no sign but '-', no leading zero), of at most 9 digits.
func canonicalInt(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	d := b
	if neg {
		d = b[1:]
	}
	if len(d) == 0 || len(d) > 9 || (d[0] == '0' && (len(d) > 1 || neg)) {
		return 0, false
	}
	v := 0
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// skipNode returns the bytes after the node at b and its subtrees.
func skipNode(b []byte, hs, depth int) ([]byte, bool) {
	if depth > maxTreeDepth {
		return nil, false
	}
	_, _, subs, rest, ok := treeHeader(b, hs)
	if !ok {
		return nil, false
	}
	for i := 0; i < subs; i++ {
		if rest, ok = skipNode(rest, hs, depth+1); !ok {
			return nil, false
		}
	}
	return rest, true
}

// spliceNode appends the node at b, which lies on the invalidated paths
// (given relative to it), invalid, and its subtrees: those on the paths
// rewritten the same way, those a whole path names removed, the others
// copied. It returns the bytes after the node.
func spliceNode(out, b []byte, hs int, paths []string, depth int) ([]byte, []byte, bool) {
	if depth > maxTreeDepth {
		return nil, nil, false
	}
	name, _, subs, rest, ok := treeHeader(b, hs)
	if !ok {
		return nil, nil, false
	}
	at := len(out)
	kept := 0
	for i := 0; i < subs; i++ {
		nul := bytes.IndexByte(rest, 0)
		if nul < 0 {
			return nil, nil, false
		}
		child := string(rest[:nul])
		removed := false
		var under []string
		for _, p := range paths {
			if p == child {
				removed = true
			} else if strings.HasPrefix(p, child) && len(p) > len(child) && p[len(child)] == '/' {
				under = append(under, p[len(child)+1:])
			}
		}
		switch {
		case removed:
			if rest, ok = skipNode(rest, hs, depth+1); !ok {
				return nil, nil, false
			}
		case len(under) > 0:
			if out, rest, ok = spliceNode(out, rest, hs, under, depth+1); !ok {
				return nil, nil, false
			}
			kept++
		default:
			after, ok := skipNode(rest, hs, depth+1)
			if !ok {
				return nil, nil, false
			}
			out = append(out, rest[:len(rest)-len(after)]...)
			rest = after
			kept++
		}
	}
	// The header goes before the subtrees just written.
	var hdr []byte
	hdr = append(hdr, name...)
	hdr = append(hdr, 0)
	hdr = append(hdr, "-1 "...)
	hdr = strconv.AppendInt(hdr, int64(kept), 10)
	hdr = append(hdr, '\n')
	out = slices.Insert(out, at, hdr...)
	return out, rest, true
}
