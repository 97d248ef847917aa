package gitindex

import (
	"encoding"
	"hash"
	"runtime"
	"sync/atomic"
)

// prehash hashes the bytes of an index from Open in the background, from
// Open on: the new index that Encode writes begins with the same bytes up
// to its first change (where a changed entry, or a smudged size, stands),
// so the SHA-1 of that prefix (half the file, on average, for an apply of
// one file) is done while the caller scans, verifies and writes its files,
// on a second core when there is one. It keeps the hash state at every
// chunk, so Encode can resume from the last one before the first change;
// told where that is, the goroutine stops there.
type prehash struct {
	raw    []byte
	hs     int
	stopAt atomic.Int64 // -1 until Encode says where its bytes first differ
	// pause is the lowest offset a caller has looked up with Find (the
	// paths an update is about to change, as apply looks each up before
	// it writes): the new bytes may differ from there on, so the goroutine
	// goes no further, instead of hashing bytes that Encode would hash again.
	pause  atomic.Int64
	done   chan struct{}
	points []checkpoint // written by the goroutine, read after done
}

type checkpoint struct {
	off   int
	state []byte
}

// startPrehash starts hashing raw (without its trailer). keep is what must
// stay reachable while raw is read (the owner of a mapping).
func startPrehash(raw []byte, hs int, keep any) *prehash {
	p := &prehash{raw: raw, hs: hs, done: make(chan struct{})}
	p.stopAt.Store(-1)
	p.pause.Store(int64(len(raw)))
	go func() {
		defer close(p.done)
		h := newHash(hs)
		end := len(raw) - hs
		pos := 0
		p.points = append(p.points, checkpoint{0, marshal(h)})
		for pos < end {
			m := min(trailerChunk, end-pos)
			s := int(p.pause.Load())
			if stop := int(p.stopAt.Load()); stop >= 0 {
				s = stop
			}
			if pos >= s {
				break
			}
			m = min(m, s-pos)
			h.Write(raw[pos : pos+m])
			pos += m
			p.points = append(p.points, checkpoint{pos, marshal(h)})
		}
		runtime.KeepAlive(keep)
	}()
	return p
}

func marshal(h hash.Hash) []byte {
	b, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil
	}
	return b
}

// hint lowers the pause to off.
func (p *prehash) hint(off int) {
	for {
		cur := p.pause.Load()
		if int64(off) >= cur || p.pause.CompareAndSwap(cur, int64(off)) {
			return
		}
	}
}

// upTo stops the background hash at f (the first byte where the new index
// differs from the file) and returns the hash of raw[:f].
func (p *prehash) upTo(f int) hash.Hash {
	p.stopAt.Store(int64(f))
	<-p.done
	h := newHash(p.hs)
	off := 0
	for i := len(p.points) - 1; i >= 0; i-- {
		if cp := p.points[i]; cp.off <= f && cp.state != nil {
			if h.(encoding.BinaryUnmarshaler).UnmarshalBinary(cp.state) == nil {
				off = cp.off
			} else {
				h = newHash(p.hs)
			}
			break
		}
	}
	h.Write(p.raw[off:f])
	return h
}
