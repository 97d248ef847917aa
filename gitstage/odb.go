package gitstage

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// odb reads objects the way git does, at a cost that does not grow with
// the repository: a pack index is mapped (mmap) and binary-searched in
// place, never decoded whole, and a pack is mapped and read at the offsets
// asked. go-git's storage, by contrast, decodes every pack index on the
// first packed lookup and builds a map of all objects on the first read
// (see BENCHMARKS.md). odb handles what a clone holds: loose objects and
// version 2 pack indexes, with offset and ref deltas. Anything else
// (alternates, a version 1 index) makes it step aside (ok false), and the
// caller falls back to go-git.
type odb struct {
	dir      string // the objects directory
	mu       sync.Mutex
	scanned  bool
	packSet  string      // the sorted .idx names of the last scan
	packDir  fs.FileInfo // objects/pack as stat'ed at the last scan
	packs    []*packMap
	fallback bool                // alternates or an unreadable pack: use go-git
	deltas   map[deltaKey][]byte // delta bases already inflated, by pack and offset
	deltaLen int
}

type deltaKey struct {
	p   *packMap
	off int64
}

// packMap is one mapped pack and its index.
type packMap struct {
	name string
	idx  []byte // the whole .idx, mapped
	pack []byte // the whole .pack, mapped
	n    int
}

var errNoObject = errors.New("object not found")

func newODB(dir string) *odb {
	o := &odb{dir: dir, deltas: map[deltaKey][]byte{}}
	return o
}

// release unmaps the packs; it runs when the Repo is collected.
func (o *odb) release() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range o.packs {
		p.unmap()
	}
	o.packs = nil
}

func (p *packMap) unmap() {
	if p.idx != nil {
		unmapFile(p.idx)
	}
	if p.pack != nil {
		unmapFile(p.pack)
	}
	p.idx, p.pack = nil, nil
}

// scan lists objects/pack and maps new packs. It returns whether the set
// of packs changed.
func (o *odb) scan() (bool, error) {
	if !haveMmap {
		o.fallback = true
		return false, nil
	}
	if _, err := os.Stat(filepath.Join(o.dir, "info", "alternates")); err == nil {
		o.fallback = true
		return false, nil
	}
	// A pack directory whose mtime did not change holds the same packs
	// (git writes a pack by temp file and rename): one stat, no listing.
	pdir := filepath.Join(o.dir, "pack")
	fi, serr := os.Stat(pdir)
	if serr == nil && o.packDir != nil && o.scanned && fi.ModTime().Equal(o.packDir.ModTime()) && os.SameFile(fi, o.packDir) {
		return false, nil
	}
	o.packDir = fi
	ents, err := os.ReadDir(pdir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "pack-") && strings.HasSuffix(n, ".idx") {
			names = append(names, strings.TrimSuffix(n, ".idx"))
		}
	}
	sort.Strings(names)
	set := strings.Join(names, ",")
	o.scanned = true
	if set == o.packSet {
		return false, nil
	}
	o.packSet = set
	have := map[string]*packMap{}
	for _, p := range o.packs {
		have[p.name] = p
	}
	var packs []*packMap
	for _, n := range names {
		if p := have[n]; p != nil {
			packs = append(packs, p)
			delete(have, n)
			continue
		}
		p, err := mapPack(filepath.Join(o.dir, "pack", n))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // a pack being written or removed
			}
			o.fallback = true
			return false, nil
		}
		packs = append(packs, p)
	}
	for _, p := range have {
		for k := range o.deltas {
			if k.p == p {
				delete(o.deltas, k)
			}
		}
		p.unmap()
	}
	o.packs = packs
	return true, nil
}

func mapPath(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 {
		return nil, fmt.Errorf("%s is empty", path)
	}
	return mapFile(f, int(fi.Size()), false)
}

func mapPack(base string) (*packMap, error) {
	idx, err := mapPath(base + ".idx")
	if err != nil {
		return nil, err
	}
	p := &packMap{name: filepath.Base(base), idx: idx}
	if len(idx) < 8+256*4+40 || string(idx[:4]) != "\xfftOc" || binary.BigEndian.Uint32(idx[4:]) != 2 {
		p.unmap()
		return nil, fmt.Errorf("%s.idx: not a version 2 pack index", base)
	}
	p.n = int(binary.BigEndian.Uint32(idx[8+255*4:]))
	if len(idx) < 8+256*4+p.n*28+40 {
		p.unmap()
		return nil, fmt.Errorf("%s.idx: truncated", base)
	}
	if p.pack, err = mapPath(base + ".pack"); err != nil {
		p.unmap()
		return nil, err
	}
	if len(p.pack) < 32 || string(p.pack[:4]) != "PACK" {
		p.unmap()
		return nil, fmt.Errorf("%s.pack: not a pack", base)
	}
	return p, nil
}

// find binary-searches the index for h: the object's offset in the pack,
// or -1.
func (p *packMap) find(h plumbing.Hash) int64 {
	fan := p.idx[8:]
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(fan[(int(h[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(fan[int(h[0])*4:]))
	names := p.idx[8+256*4:]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		c := bytes.Compare(names[m*20:m*20+20], h[:])
		switch {
		case c == 0:
			return p.offset(m)
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

func (p *packMap) offset(i int) int64 {
	offs := p.idx[8+256*4+p.n*24:]
	v := binary.BigEndian.Uint32(offs[i*4:])
	if v&0x80000000 == 0 {
		return int64(v)
	}
	big := p.idx[8+256*4+p.n*28:]
	j := int(v & 0x7fffffff)
	if len(big) < (j+1)*8 {
		return -1
	}
	return int64(binary.BigEndian.Uint64(big[j*8:]))
}

// prepare scans the packs once.
func (o *odb) prepare() bool {
	if !o.scanned {
		if _, err := o.scan(); err != nil {
			o.fallback = true
		}
	}
	return !o.fallback
}

func (o *odb) lookup(h plumbing.Hash) (*packMap, int64) {
	for _, p := range o.packs {
		if off := p.find(h); off >= 0 {
			return p, off
		}
	}
	return nil, -1
}

// has reports whether h is in a pack or loose. ok is false when odb stepped
// aside.
func (o *odb) has(h plumbing.Hash) (found, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.prepare() {
		return false, false
	}
	if p, _ := o.lookup(h); p != nil {
		return true, true
	}
	if _, err := os.Lstat(o.loosePath(h)); err == nil {
		return true, true
	}
	// A pack may have appeared (git gc, a fetch) since the scan.
	if changed, err := o.scan(); err == nil && changed && !o.fallback {
		if p, _ := o.lookup(h); p != nil {
			return true, true
		}
	}
	return false, !o.fallback
}

func (o *odb) loosePath(h plumbing.Hash) string {
	s := h.String()
	return filepath.Join(o.dir, s[:2], s[2:])
}

// read returns an object's type and bytes. ok is false when odb stepped
// aside; err is errNoObject when the object is in neither a pack nor a
// loose file.
func (o *odb) read(h plumbing.Hash) (t plumbing.ObjectType, data []byte, ok bool, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.prepare() {
		return 0, nil, false, nil
	}
	for attempt := 0; attempt < 2; attempt++ {
		if p, off := o.lookup(h); p != nil {
			t, data, err := o.unpack(p, off, 0)
			return t, data, true, err
		}
		t, data, err := readLoose(o.loosePath(h))
		if err == nil {
			return t, data, true, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return 0, nil, true, err
		}
		if changed, err := o.scan(); err != nil || !changed || o.fallback {
			break
		}
	}
	if o.fallback {
		return 0, nil, false, nil
	}
	return 0, nil, true, errNoObject
}

var zpool sync.Pool // io.ReadCloser implementing zlib.Resetter

// zreader returns a pooled zlib reader over src; put it back with
// zpool.Put. A fresh zlib reader allocates about 40 KB of window and
// tables, more than most objects it inflates.
func zreader(src []byte) (io.ReadCloser, error) {
	br := bytes.NewReader(src)
	if v := zpool.Get(); v != nil {
		zr := v.(io.ReadCloser)
		if err := zr.(zlib.Resetter).Reset(br, nil); err != nil {
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(br)
}

func inflate(src []byte, size int) ([]byte, error) {
	zr, err := zreader(src)
	if err != nil {
		return nil, err
	}
	defer zpool.Put(zr)
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	return out, nil
}

func readLoose(path string) (plumbing.ObjectType, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	zr, err := zreader(raw)
	if err != nil {
		return 0, nil, fmt.Errorf("loose object %s: %w", path, err)
	}
	defer zpool.Put(zr)
	// The header is "<type> <size>\x00": read it a byte at a time through
	// a small buffer (bufio would read past it into the body).
	var hdr [32]byte
	n := 0
	for ; n < len(hdr); n++ {
		if _, err := io.ReadFull(zr, hdr[n:n+1]); err != nil {
			return 0, nil, fmt.Errorf("loose object %s: %w", path, err)
		}
		if hdr[n] == 0 {
			break
		}
	}
	if n == len(hdr) {
		return 0, nil, fmt.Errorf("loose object %s: header too long", path)
	}
	typ, sz, found := strings.Cut(string(hdr[:n]), " ")
	size, perr := strconv.Atoi(sz)
	t, terr := plumbing.ParseObjectType(typ)
	if !found || perr != nil || terr != nil || size < 0 {
		return 0, nil, fmt.Errorf("loose object %s: bad header %q", path, hdr[:n])
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return 0, nil, fmt.Errorf("loose object %s: %w", path, err)
	}
	return t, data, nil
}

// maxDeltaCache bounds the inflated delta bases kept between reads.
const maxDeltaCache = 16 << 20

// unpack reads the object at off, resolving deltas.
func (o *odb) unpack(p *packMap, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	if depth > 10000 {
		return 0, nil, fmt.Errorf("pack %s: delta chain too deep at %d", p.name, off)
	}
	b := p.pack
	if off < 12 || off >= int64(len(b))-20 {
		return 0, nil, fmt.Errorf("pack %s: offset %d out of range", p.name, off)
	}
	i := off
	c := b[i]
	i++
	typ := plumbing.ObjectType((c >> 4) & 7)
	size := int(c & 15)
	shift := 4
	for c&0x80 != 0 {
		if i >= int64(len(b)) || shift > 56 {
			return 0, nil, fmt.Errorf("pack %s: bad header at %d", p.name, off)
		}
		c = b[i]
		i++
		size |= int(c&0x7f) << shift
		shift += 7
	}
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		data, err := inflate(b[i:], size)
		return typ, data, err
	case plumbing.OFSDeltaObject, plumbing.REFDeltaObject:
	default:
		return 0, nil, fmt.Errorf("pack %s: unknown type %d at %d", p.name, typ, off)
	}
	var baseT plumbing.ObjectType
	var base []byte
	var err error
	if typ == plumbing.OFSDeltaObject {
		c = b[i]
		i++
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			c = b[i]
			i++
			rel = ((rel + 1) << 7) | int64(c&0x7f)
		}
		boff := off - rel
		baseT, base, err = o.base(p, boff, depth)
	} else {
		var bh plumbing.Hash
		copy(bh[:], b[i:i+20])
		i += 20
		if bp, boff := o.lookup(bh); bp != nil {
			baseT, base, err = o.base(bp, boff, depth)
		} else {
			baseT, base, err = readLoose(o.loosePath(bh))
		}
	}
	if err != nil {
		return 0, nil, err
	}
	delta, err := inflate(b[i:], size)
	if err != nil {
		return 0, nil, err
	}
	out, err := applyDelta(base, delta)
	if err != nil {
		return 0, nil, fmt.Errorf("pack %s: object at %d: %w", p.name, off, err)
	}
	return baseT, out, nil
}

// base reads a delta base through the cache.
func (o *odb) base(p *packMap, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	k := deltaKey{p, off}
	if d, ok := o.deltas[k]; ok {
		return plumbing.ObjectType(d[0]), d[1:], nil
	}
	t, data, err := o.unpack(p, off, depth+1)
	if err != nil {
		return 0, nil, err
	}
	if o.deltaLen+len(data) > maxDeltaCache {
		o.deltas, o.deltaLen = map[deltaKey][]byte{}, 0
	}
	d := make([]byte, 1+len(data))
	d[0] = byte(t)
	copy(d[1:], data)
	o.deltas[k] = d
	o.deltaLen += len(d)
	return t, d[1:], nil
}

func deltaVarint(d []byte) (int, []byte, error) {
	v, shift := 0, 0
	for i, c := range d {
		v |= int(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			return v, d[i+1:], nil
		}
		if shift > 56 {
			break
		}
	}
	return 0, nil, errors.New("bad delta header")
}

func applyDelta(base, d []byte) ([]byte, error) {
	srcSize, d, err := deltaVarint(d)
	if err != nil {
		return nil, err
	}
	dstSize, d, err := deltaVarint(d)
	if err != nil {
		return nil, err
	}
	if srcSize != len(base) {
		return nil, fmt.Errorf("delta base is %d bytes, the delta wants %d", len(base), srcSize)
	}
	out := make([]byte, 0, dstSize)
	for len(d) > 0 {
		op := d[0]
		d = d[1:]
		if op&0x80 != 0 {
			var off, n int
			for k := 0; k < 4; k++ {
				if op&(1<<k) != 0 {
					if len(d) == 0 {
						return nil, errors.New("truncated delta")
					}
					off |= int(d[0]) << (8 * k)
					d = d[1:]
				}
			}
			for k := 0; k < 3; k++ {
				if op&(0x10<<k) != 0 {
					if len(d) == 0 {
						return nil, errors.New("truncated delta")
					}
					n |= int(d[0]) << (8 * k)
					d = d[1:]
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > len(base) || off+n < off {
				return nil, errors.New("delta copies past its base")
			}
			out = append(out, base[off:off+n]...)
		} else if op != 0 {
			n := int(op)
			if n > len(d) {
				return nil, errors.New("truncated delta")
			}
			out = append(out, d[:n]...)
			d = d[n:]
		} else {
			return nil, errors.New("delta opcode 0")
		}
	}
	if len(out) != dstSize {
		return nil, fmt.Errorf("delta made %d bytes, wanted %d", len(out), dstSize)
	}
	return out, nil
}

// objects returns the repository's own object reader, made on first use.
func (r *Repo) objects() *odb {
	r.odbOnce.Do(func() {
		r.odb = newODB(filepath.Join(r.CommonDir, "objects"))
		runtime.AddCleanup(r, func(o *odb) { o.release() }, r.odb)
	})
	return r.odb
}
