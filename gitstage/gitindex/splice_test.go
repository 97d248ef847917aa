package gitindex

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// indexFile is one index file of the corpus the splice is checked on.
type indexFile struct {
	name   string
	b      []byte
	hs     int
	modSec int64 // the file's mtime, for racy entries (0: none)
}

// gitCorpus builds index files with git itself: every version, extension
// and entry kind that nika may find in a repository.
func gitCorpus(t *testing.T) []indexFile {
	t.Helper()
	small := func(r *repo) {
		populate(r)
		r.write("dir/sub/x.txt", "x\n")
		r.write("dir/sub/y.txt", "y\n")
		r.write("dir/z.txt", "z\n")
		r.write("other/deep/p.txt", "p\n")
		r.git("add", ".")
	}
	wide := func(r *repo) {
		for i := 0; i < 300; i++ {
			r.write(fmt.Sprintf("d%d/s%d/t%d/f%03d.txt", i%5, i%7, i%3, i), fmt.Sprint(i, "\n"))
		}
		r.git("add", ".")
		r.git("commit", "-qm", "wide")
	}
	conflict := func(r *repo, resolve bool) {
		small(r)
		r.write("f", "base\n")
		r.write("g", "base\n")
		r.git("add", ".")
		r.git("commit", "-qm", "base")
		r.git("checkout", "-qb", "o")
		r.write("f", "o\n")
		r.write("g", "o\n")
		r.git("commit", "-qam", "o")
		r.git("checkout", "-q", "main")
		r.write("f", "m\n")
		r.write("g", "m\n")
		r.git("commit", "-qam", "m")
		r.gitFails("merge", "o")
		if resolve {
			r.git("add", "g") // resolve-undo (REUC) for g; f stays unmerged
		}
	}
	setups := []struct {
		name  string
		init  []string
		setup func(r *repo)
		post  func(b []byte, hs int) []byte
	}{
		{name: "v2", setup: small},
		{name: "v2 cache-tree", setup: func(r *repo) { small(r); r.git("commit", "-qm", "x") }},
		{name: "v2 wide cache-tree", setup: wide},
		{name: "v4 wide cache-tree", setup: func(r *repo) { wide(r); r.git("update-index", "--index-version", "4") }},
		{name: "v3 intent-to-add skip-worktree", setup: func(r *repo) {
			small(r)
			r.git("commit", "-qm", "x")
			r.write("n.txt", "n\n")
			r.git("add", "-N", "n.txt")
			r.git("update-index", "--skip-worktree", "a/b.txt")
		}},
		{name: "v4 untracked cache assume-unchanged", setup: func(r *repo) {
			r.git("config", "core.untrackedCache", "true")
			small(r)
			r.git("commit", "-qm", "x")
			r.git("update-index", "--index-version", "4")
			r.git("update-index", "--assume-unchanged", "a/b/c.txt")
			r.write("u/v.txt", "u\n")
			r.git("status", "--porcelain")
		}},
		{name: "feature.manyFiles", setup: func(r *repo) {
			r.git("config", "feature.manyFiles", "true")
			small(r)
			r.git("commit", "-qm", "x")
			r.write("u/v.txt", "u\n")
			r.git("status", "--porcelain")
		}},
		{name: "v2 conflict", setup: func(r *repo) { conflict(r, false) }},
		{name: "v2 conflict resolve-undo", setup: func(r *repo) { conflict(r, true) }},
		{name: "v4 conflict", setup: func(r *repo) { conflict(r, true); r.git("update-index", "--index-version", "4") }},
		{name: "v2 end-of-entries offset table", setup: func(r *repo) {
			small(r)
			r.git("commit", "-qm", "x")
			r.git("-c", "index.threads=2", "-c", "index.recordEndOfIndexEntries=true",
				"-c", "index.recordOffsetTable=true", "update-index", "--index-version", "2")
		}},
		{name: "v4 end-of-entries offset table", setup: func(r *repo) {
			small(r)
			r.git("-c", "index.threads=2", "-c", "index.recordEndOfIndexEntries=true",
				"-c", "index.recordOffsetTable=true", "update-index", "--index-version", "4")
		}},
		{name: "fsmonitor", setup: func(r *repo) { small(r); r.git("commit", "-qm", "x"); r.fsmonitor() }},
		{name: "v2 zero trailer", setup: func(r *repo) { small(r); r.git("commit", "-qm", "x") },
			post: zeroTrailer},
		{name: "sha256 v2 cache-tree", init: []string{"--object-format=sha256"}, setup: func(r *repo) { small(r); r.git("commit", "-qm", "x") }},
		{name: "sha256 v4 zero trailer", init: []string{"--object-format=sha256"}, setup: func(r *repo) {
			small(r)
			r.git("commit", "-qm", "x")
			r.git("update-index", "--index-version", "4")
		}, post: zeroTrailer},
		{name: "no entries", setup: func(r *repo) {
			small(r)
			r.git("commit", "-qm", "x")
			r.git("rm", "-rq", "--cached", ".")
		}},
		{name: "long path", setup: func(r *repo) {
			small(r)
			long := strings.Repeat(strings.Repeat("q", 200)+"/", 22) + "z.txt"
			r.git("update-index", "--add", "--cacheinfo", "100644,"+fmt.Sprintf("%x", r.blob("x\n"))+","+long)
			r.git("commit", "-qm", "x")
		}},
	}
	var out []indexFile
	for _, s := range setups {
		r := newRepo(t, s.init...)
		s.setup(r)
		b := r.indexBytes()
		if s.post != nil {
			b = s.post(b, r.hs)
		}
		ix, err := decode(b, r.hs)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		// The median mtime makes about half the entries racily clean.
		var secs []int64
		for _, e := range ix.Entries {
			secs = append(secs, int64(e.Mtime.Sec))
		}
		slices.Sort(secs)
		out = append(out, indexFile{name: s.name, b: b, hs: r.hs})
		if len(secs) > 0 {
			out = append(out, indexFile{name: s.name + ", racy", b: b, hs: r.hs, modSec: secs[len(secs)/2]})
		}
	}
	return out
}

// quirky writes ix the way no git writes it but Decode reads it: an empty
// extended-flags word on some entries, padding that is not NUL, a version 4
// prefix that is not the longest, and a cache-tree whose numbers have
// leading zeros. Encode rewrites those bytes, so the splice must too.
func quirky(ix *Index, tree bool) []byte {
	hs := ix.HashSize
	buf := make([]byte, headerSize)
	putHeader(buf, ix.Version, len(ix.Entries))
	prev := ""
	for i := range ix.Entries {
		e := &ix.Entries[i]
		start := len(buf)
		buf = appendEntry(buf, e, e.Size, ix.Version, hs, prev, ix.Version == 4 && i%4 == 2)
		flagsAt := start + 40 + hs
		if ix.Version != 4 && i%7 == 3 && !e.SkipWorktree && !e.IntentToAdd {
			// Insert an empty extended-flags word and pad again.
			body := slices.Clone(buf[flagsAt+2:])
			buf = buf[:flagsAt+2]
			binary.BigEndian.PutUint16(buf[flagsAt:], binary.BigEndian.Uint16(buf[flagsAt:])|0x4000)
			buf = append(buf, 0, 0)
			name := bytes.TrimRight(body, "\x00")
			buf = append(buf, name...)
			end := start + ((len(buf) - start + 8) &^ 7)
			for len(buf) < end {
				buf = append(buf, 0)
			}
		}
		if ix.Version != 4 && i%5 == 1 {
			// Non-NUL padding after the terminating NUL.
			for k := len(buf) - 1; k > start+40+hs+2 && buf[k] == 0 && buf[k-1] == 0; k-- {
				buf[k] = 'P'
			}
		}
		prev = e.Path
	}
	for _, x := range ix.exts {
		data := x.data
		if x.sig == "TREE" && tree {
			data = bytes.Replace(data, []byte("\x00"), []byte("\x000"), 1) // "\x0012 3\n" -> "\x00012 3\n"
		}
		var hdr [8]byte
		copy(hdr[:], x.sig)
		binary.BigEndian.PutUint32(hdr[4:], uint32(len(data)))
		buf = append(buf, hdr[:]...)
		buf = append(buf, data...)
	}
	return retrail(buf, hs)
}

// checkSplice applies the same random edits to an index from Open and to a
// decoded one, and requires the same answers from both and the same bytes
// from Encode.
func checkSplice(t *testing.T, f indexFile, seed uint64, steps int) {
	t.Helper()
	lazyIx, err := openBytes(f.b, f.hs, f.modSec)
	full, ferr := decode(f.b, f.hs)
	if (err == nil) != (ferr == nil) || (err != nil && err.Error() != ferr.Error()) {
		t.Fatalf("%s: Open says %v, Decode says %v", f.name, err, ferr)
	}
	if err != nil {
		return
	}
	if f.modSec != 0 {
		lazyIx.ModTime, full.ModTime = time.Unix(f.modSec, 0), time.Unix(f.modSec, 0)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(len(f.b))))
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s, seed %d, after %v: %s", f.name, seed, log, fmt.Sprintf(format, args...))
	}
	hash := func() []byte {
		h := make([]byte, f.hs)
		for i := range h {
			h[i] = byte(rng.Uint32())
		}
		return h
	}
	newPath := func() string {
		n := full.Len()
		if n == 0 || rng.IntN(6) == 0 {
			return []string{"!first", "zz/new.txt", "a", "dir", "dir/sub/x.txt/under", "~last"}[rng.IntN(6)]
		}
		p := full.Entries[rng.IntN(n)].Path
		switch rng.IntN(4) {
		case 0:
			return p // replace
		case 1:
			if i := strings.LastIndexByte(p, '/'); i >= 0 {
				return p[:i] + "/new" + strconv.Itoa(rng.IntN(100)) + ".txt" // beside it
			}
			return "new" + strconv.Itoa(rng.IntN(100))
		case 2:
			if i := strings.IndexByte(p, '/'); i >= 0 {
				return p[:i] // a directory as a file: refused
			}
			return p + "/x" // under a file: refused
		}
		return p + "-" + strconv.Itoa(rng.IntN(10))
	}
	for s := 0; s < steps; s++ {
		switch op := rng.IntN(11); {
		case op == 10 && full.Len() > 0:
			// A directory becomes a file: its entries go, then the file
			// comes (its cache-tree node must go as well).
			p := full.Entries[rng.IntN(full.Len())].Path
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				continue
			}
			dir := p[:i]
			log = append(log, "Replace the directory "+dir)
			var under []string
			for _, e := range full.Entries {
				if strings.HasPrefix(e.Path, dir+"/") {
					under = append(under, e.Path)
				}
			}
			for _, u := range under {
				lazyIx.Remove(u)
				full.Remove(u)
			}
			e := Entry{Path: dir, Mode: ModeFile, Hash: hash()}
			if err1, err2 := lazyIx.Set(e), full.Set(e); fmt.Sprint(err1) != fmt.Sprint(err2) {
				fail("Set(%q): Open's index says %v, the decoded one %v", e.Path, err1, err2)
			}
		case op < 6:
			mode := []uint32{ModeFile, ModeExecutable, ModeSymlink, ModeGitlink, 0o100600}[rng.IntN(5)]
			tm := Time{Sec: uint32(f.modSec) + uint32(rng.IntN(3)) - 1, Nsec: rng.Uint32() % 1e9}
			e := Entry{Path: newPath(), Mode: mode, Hash: hash(),
				Stat: Stat{Ctime: tm, Mtime: tm, Ino: rng.Uint32(), Size: uint32(rng.IntN(3))}}
			log = append(log, "Set "+e.Path)
			err1, err2 := lazyIx.Set(e), full.Set(e)
			if fmt.Sprint(err1) != fmt.Sprint(err2) {
				fail("Set(%q): Open's index says %v, the decoded one %v", e.Path, err1, err2)
			}
		case op < 8:
			p := newPath()
			log = append(log, "Remove "+p)
			if a, b := lazyIx.Remove(p), full.Remove(p); a != b {
				fail("Remove(%q) = %v, decoded %v", p, a, b)
			}
		default:
			r := full.Racy()
			if !slices.Equal(lazyIx.Racy(), r) {
				fail("Racy = %v, decoded %v", lazyIx.Racy(), r)
			}
			if len(r) > 0 {
				i := r[rng.IntN(len(r))]
				log = append(log, "Vouch "+full.Entries[i].Path)
				lazyIx.Vouch(i)
				full.Vouch(i)
			}
		}
	}
	if lazyIx.Len() != full.Len() {
		fail("Len = %d, decoded %d", lazyIx.Len(), full.Len())
	}
	step := 1
	if full.Len() > 2000 {
		step = 37 // a large index: a sample of its entries (the bytes are compared whole below)
	}
	for i := 0; i < full.Len(); i += step {
		if a, b := lazyIx.At(i), full.Entries[i]; fmt.Sprint(a) != fmt.Sprint(b) {
			fail("At(%d) = %+v, decoded %+v", i, a, b)
		}
		if k, ok := lazyIx.Find(full.Entries[i].Path); full.Entries[i].Stage == 0 && (!ok || k != i) {
			fail("Find(%q) = %d %v, want %d", full.Entries[i].Path, k, ok, i)
		}
	}
	if a, b := fmt.Sprint(lazyIx.Unmerged()), fmt.Sprint(full.Unmerged()); a != b {
		fail("Unmerged = %s, decoded %s", a, b)
	}
	if !slices.Equal(lazyIx.Racy(), full.Racy()) {
		fail("Racy = %v, decoded %v", lazyIx.Racy(), full.Racy())
	}
	if a, b := lazyIx.Extensions(), full.Extensions(); !slices.Equal(a, b) {
		fail("Extensions = %v, decoded %v", a, b)
	}
	got, err1 := lazyIx.Encode()
	want, err2 := full.Encode()
	if fmt.Sprint(err1) != fmt.Sprint(err2) {
		fail("Encode: %v, decoded %v", err1, err2)
	}
	if !bytes.Equal(got, want) {
		fail("the spliced index differs from the full encode at byte %d of %d (%d)", firstDiff(got, want), len(want), len(got))
	}
	// WriteTo writes the same bytes, streamed from the file's.
	var w bytes.Buffer
	if n, err := lazyIx.WriteTo(&w); err != nil || n != int64(len(want)) || !bytes.Equal(w.Bytes(), want) {
		fail("WriteTo wrote %d bytes (%v), differing from Encode's at byte %d", n, err, firstDiff(w.Bytes(), want))
	}
	if a, b := lazyIx.Offsets(), full.Offsets(); !slices.Equal(a, b) {
		fail("Offsets = %v, decoded %v", a, b)
	}
	if wr, ok := lazyIx.Written(); !ok || wr.Size != int64(len(want)) || !bytes.Equal(wr.Trailer, want[len(want)-f.hs:]) ||
		wr.Version != binary.BigEndian.Uint32(want[4:]) {
		fail("Written = %+v, for %d bytes", wr, len(want))
	}
	if offs := full.Offsets(); len(offs) != full.Len()+1 || (full.Len() > 0 && offs[0] != headerSize) {
		fail("Offsets: %d values for %d entries", len(offs), full.Len())
	}
	if lazyIx.lz != nil && len(got) > 0 {
		// It stays an index that Decode accepts, with the same entries.
		back, err := Decode(got, f.hs)
		if err != nil || lsFiles(back) != lsFiles(full) {
			fail("the spliced index does not decode to the same entries: %v", err)
		}
	}
}

// TestSpliceEqualsFullEncode: for indexes written by git (versions 2, 3 and
// 4, SHA-1 and SHA-256, cache-tree, untracked cache, resolve-undo,
// fsmonitor, end-of-entries and offset table, conflicts, zero trailers,
// racily clean entries) and for indexes with bytes that git would not
// write, random sequences of Set, Remove and Vouch give the same entries,
// the same answers and the same bytes through Open (spliced) as through
// Decode (decoded and encoded whole).
func TestSpliceEqualsFullEncode(t *testing.T) {
	corpus := gitCorpus(t)
	var quirks []indexFile
	for _, f := range corpus {
		ix, err := decode(f.b, f.hs)
		if err != nil {
			t.Fatal(err)
		}
		for _, tree := range []bool{false, true} {
			quirks = append(quirks, indexFile{name: fmt.Sprintf("%s, quirky (tree %v)", f.name, tree), b: quirky(ix, tree), hs: f.hs, modSec: f.modSec})
		}
	}
	corpus = append(corpus, quirks...)
	// Large enough (1 MB and more) for Open to hash the file in the
	// background and Encode to resume from it.
	for _, ver := range []uint32{2, 4} {
		syn := synthetic(16_000, ver)
		b, _ := syn.Encode()
		corpus = append(corpus, indexFile{name: fmt.Sprintf("synthetic v%d", ver), b: b, hs: 20, modSec: 1_790_008_000},
			indexFile{name: fmt.Sprintf("synthetic v%d, no racy entry", ver), b: b, hs: 20})
	}
	for _, f := range corpus {
		t.Run(f.name, func(t *testing.T) {
			checkSplice(t, f, 0, 0) // no edit: the file, with racy entries smudged
			seeds := uint64(40)
			if len(f.b) > 1<<20 {
				seeds = 12
			}
			for seed := uint64(1); seed <= seeds; seed++ {
				checkSplice(t, f, seed, 1+int(seed%12))
			}
		})
	}
}

// TestQuirkyCorpusIsQuirky is the control for the test above: the quirky
// files do hold bytes that Encode rewrites, so the splice's re-encoding was
// exercised.
func TestQuirkyCorpusIsQuirky(t *testing.T) {
	ix := synthetic(50, 2)
	for v, want := range map[uint32]bool{2: true, 4: true} {
		ix.Version = v
		b := quirky(ix, false)
		_, bs, err := scan(b, 20, 0)
		if err != nil {
			t.Fatal(err)
		}
		if (len(bs.redo) > 0) != want {
			t.Errorf("version %d: %d entries to re-encode", v, len(bs.redo))
		}
		if enc, _ := mustDecode(t, b).Encode(); bytes.Equal(enc, b) {
			t.Errorf("version %d: Encode reproduces the quirky bytes", v)
		}
	}
}

func mustDecode(t *testing.T, b []byte) *Index {
	t.Helper()
	ix, err := Decode(b, 20)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// FuzzSplice: for any bytes, Open and Decode (without the checksum) accept
// and refuse the same files with the same error, and after random edits
// the spliced index equals the full encode.
func FuzzSplice(f *testing.F) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		raw, err := os.ReadFile(filepath.Join(dir, n.Name()))
		if err != nil {
			continue
		}
		s := string(bytes.TrimSuffix(bytes.TrimPrefix(raw, []byte("go test fuzz v1\n[]byte(")), []byte(")\n")))
		if b, err := strconv.Unquote(s); err == nil {
			f.Add([]byte(b), uint64(len(b)), int64(0))
		}
	}
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"), uint64(1), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, modSec int64) {
		for _, hs := range []int{20, 32} {
			if checkHeader(data, hs) != nil {
				continue
			}
			checkSplice(t, indexFile{name: "fuzz", b: data, hs: hs, modSec: modSec & 0xffffffff}, seed, int(seed%9))
		}
	})
}

// TestPrehashResumes: the hash that Encode resumes from the background
// hash is the hash of the file's first f bytes, whether the background
// goroutine was stopped before f or had gone past it, or paused (by a Find)
// before f or after it.
func TestPrehashResumes(t *testing.T) {
	raw := make([]byte, 3<<20+17)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	for _, f := range []int{4, 8, 100, trailerChunk, trailerChunk + 1, 2<<20 + 5, len(raw) - 20} {
		for _, finished := range []bool{false, true} {
			// A pause (a Find) before f, after it, or none.
			for _, pause := range []int{-1, f / 2, f + 1000} {
				p := startPrehash(raw, 20, nil)
				if pause >= 0 {
					p.hint(pause)
				}
				if finished {
					<-p.done
				}
				got := p.upTo(f).Sum(nil)
				want := sha1.Sum(raw[:f])
				if !bytes.Equal(got, want[:]) {
					t.Errorf("f=%d, finished=%v, pause %d: the resumed hash is not the hash of the prefix", f, finished, pause)
				}
			}
		}
	}
}
