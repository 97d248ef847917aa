package gitindex

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func h(c byte) []byte { return bytes.Repeat([]byte{c}, 20) }

func paths(ix *Index) string {
	var s []string
	for _, e := range ix.Entries {
		p := e.Path
		if e.Stage != 0 {
			p += ":" + string(rune('0'+e.Stage))
		}
		s = append(s, p)
	}
	return strings.Join(s, " ")
}

func sample() *Index {
	ix := New(20)
	for _, p := range []string{"a.txt", "a/b.txt", "a/c/d.txt", "b", "c.txt"} {
		if err := ix.Set(Entry{Path: p, Mode: ModeFile, Hash: h(1)}); err != nil {
			panic(err)
		}
	}
	// a conflict on "m"
	ix.Entries = slices.Insert(ix.Entries, 5,
		Entry{Path: "m", Mode: ModeFile, Hash: h(2), Stage: 1},
		Entry{Path: "m", Mode: ModeFile, Hash: h(3), Stage: 2},
		Entry{Path: "m", Mode: ModeFile, Hash: h(4), Stage: 3})
	ix.changed, ix.pathsChanged = false, false
	return ix
}

// TestSetRefuses: Set refuses what git's verify_path and add_index_entry
// refuse.
func TestSetRefuses(t *testing.T) {
	tests := []struct {
		name string
		e    Entry
		want error
	}{
		{"empty path", Entry{Path: "", Mode: ModeFile, Hash: h(1)}, ErrInvalidEntry},
		{"leading slash", Entry{Path: "/etc/passwd", Mode: ModeFile, Hash: h(1)}, ErrInvalidEntry},
		{"trailing slash", Entry{Path: "a/", Mode: ModeFile, Hash: h(1)}, ErrInvalidEntry},
		{"doubled slash", Entry{Path: "a//x", Mode: ModeFile, Hash: h(1)}, ErrInvalidEntry},
		{"dot component", Entry{Path: "./x", Mode: ModeFile, Hash: h(1)}, ErrInvalidEntry},
		{"dot-dot component", Entry{Path: "a/../x", Mode: ModeFile, Hash: h(1)}, ErrInvalidEntry},
		{".git component", Entry{Path: ".git/config", Mode: ModeFile, Hash: h(1)}, ErrInvalidEntry},
		{".GIT component in any case", Entry{Path: "x/.GiT/hooks/pre-commit", Mode: ModeFile, Hash: h(1)}, ErrInvalidEntry},
		{"NUL byte", Entry{Path: "x\x00y", Mode: ModeFile, Hash: h(1)}, ErrInvalidEntry},
		{"short hash", Entry{Path: "x", Mode: ModeFile, Hash: h(1)[:19]}, ErrInvalidEntry},
		{"nonzero stage", Entry{Path: "x", Mode: ModeFile, Hash: h(1), Stage: 2}, ErrInvalidEntry},
		{"unknown mode", Entry{Path: "x", Mode: 0o100664, Hash: h(1)}, ErrInvalidEntry},
		{"under a tracked file", Entry{Path: "a.txt/x", Mode: ModeFile, Hash: h(1)}, ErrDirFileConflict},
		{"under a tracked file, deeper", Entry{Path: "b/c/d", Mode: ModeFile, Hash: h(1)}, ErrDirFileConflict},
		{"over a tracked directory", Entry{Path: "a", Mode: ModeFile, Hash: h(1)}, ErrDirFileConflict},
		{"over a tracked directory, deeper", Entry{Path: "a/c", Mode: ModeFile, Hash: h(1)}, ErrDirFileConflict},
		{"under a conflicted file", Entry{Path: "m/x", Mode: ModeFile, Hash: h(1)}, ErrDirFileConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := sample()
			before := paths(ix)
			err := ix.Set(tt.e)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Set error = %v, want %v", err, tt.want)
			}
			if got := paths(ix); got != before || ix.changed {
				t.Errorf("a refused Set changed the index: %s", got)
			}
		})
	}
}

// TestSetAndRemoveKeepGitsOrder: the entries stay sorted as git sorts them
// (bytes, so "a.txt" < "a/b.txt" < "a0"), Set replaces or inserts and
// collapses a conflict, Remove drops all stages.
func TestSetAndRemoveKeepGitsOrder(t *testing.T) {
	tests := []struct {
		name string
		edit func(ix *Index) error
		want string
	}{
		{"start", func(*Index) error { return nil },
			"a.txt a/b.txt a/c/d.txt b c.txt m:1 m:2 m:3"},
		{"insert between a file and its sibling directory", func(ix *Index) error {
			return ix.Set(Entry{Path: "a.u", Mode: ModeFile, Hash: h(9)})
		}, "a.txt a.u a/b.txt a/c/d.txt b c.txt m:1 m:2 m:3"},
		{"insert after a directory", func(ix *Index) error {
			return ix.Set(Entry{Path: "a0", Mode: ModeFile, Hash: h(9)})
		}, "a.txt a/b.txt a/c/d.txt a0 b c.txt m:1 m:2 m:3"},
		{"replace", func(ix *Index) error {
			return ix.Set(Entry{Path: "a/b.txt", Mode: ModeExecutable, Hash: h(9)})
		}, "a.txt a/b.txt a/c/d.txt b c.txt m:1 m:2 m:3"},
		{"resolve a conflict", func(ix *Index) error {
			return ix.Set(Entry{Path: "m", Mode: ModeFile, Hash: h(9)})
		}, "a.txt a/b.txt a/c/d.txt b c.txt m"},
		{"insert at the end", func(ix *Index) error {
			return ix.Set(Entry{Path: "zz/top", Mode: ModeFile, Hash: h(9)})
		}, "a.txt a/b.txt a/c/d.txt b c.txt m:1 m:2 m:3 zz/top"},
		{"remove", func(ix *Index) error {
			if !ix.Remove("a/c/d.txt") {
				return errors.New("not removed")
			}
			return nil
		}, "a.txt a/b.txt b c.txt m:1 m:2 m:3"},
		{"remove every stage of a conflict", func(ix *Index) error {
			if !ix.Remove("m") {
				return errors.New("not removed")
			}
			return nil
		}, "a.txt a/b.txt a/c/d.txt b c.txt"},
		{"remove a missing path", func(ix *Index) error {
			if ix.Remove("a/c") {
				return errors.New("removed a directory")
			}
			return nil
		}, "a.txt a/b.txt a/c/d.txt b c.txt m:1 m:2 m:3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := sample()
			if err := tt.edit(ix); err != nil {
				t.Fatal(err)
			}
			if got := paths(ix); got != tt.want {
				t.Errorf("entries = %s\n       want %s", got, tt.want)
			}
			b, err := ix.Encode()
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			back, err := Decode(b, 20)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got := paths(back); got != tt.want {
				t.Errorf("after a round trip: %s", got)
			}
		})
	}
}

// TestFind: binary search for the stage-0 entry, or the insertion point.
func TestFind(t *testing.T) {
	ix := sample()
	tests := []struct {
		path string
		i    int
		ok   bool
	}{
		{"a.txt", 0, true},
		{"a/c/d.txt", 2, true},
		{"c.txt", 4, true},
		{"a", 0, false},
		{"a/c", 2, false},
		{"m", 5, false}, // conflicted: Entries[5] is m stage 1
		{"zzz", 8, false},
	}
	for _, tt := range tests {
		i, ok := ix.Find(tt.path)
		if i != tt.i || ok != tt.ok {
			t.Errorf("Find(%q) = %d, %v; want %d, %v", tt.path, i, ok, tt.i, tt.ok)
		}
	}
}

// TestEncodeRefusesWhatGitCouldNotRead: entries edited directly must still
// be sorted, unique and well-formed.
func TestEncodeRefusesWhatGitCouldNotRead(t *testing.T) {
	tests := []struct {
		name string
		edit func(ix *Index)
	}{
		{"unsorted", func(ix *Index) { ix.Entries[0].Path = "zz" }},
		{"duplicate", func(ix *Index) { ix.Entries[1].Path = ix.Entries[0].Path }},
		{"merged and conflict entries for one path", func(ix *Index) { ix.Entries[4].Path, ix.Entries[4].Stage = "b", 1 }},
		{"wrong hash size", func(ix *Index) { ix.Entries[0].Hash = h(1)[:4] }},
		{"bad stage", func(ix *Index) { ix.Entries[0].Stage = 4 }},
		{"empty path", func(ix *Index) { ix.Entries[0].Path = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := sample()
			tt.edit(ix)
			if _, err := ix.Encode(); !errors.Is(err, ErrInvalidEntry) {
				t.Errorf("Encode error = %v, want ErrInvalidEntry", err)
			}
		})
	}
}

// TestLongPathsAndVersion4: paths of 0xFFF bytes and more (the name length
// field saturates) and prefix compression round-trip.
func TestLongPathsAndVersion4(t *testing.T) {
	for _, ver := range []uint32{2, 3, 4} {
		ix := New(32)
		ix.Version = ver
		long := strings.Repeat("d/", 2100) + "f"
		for _, p := range []string{long[:0xffe] + "x", long, long + "g", "short"} {
			e := Entry{Path: p, Mode: ModeFile, Hash: bytes.Repeat([]byte{7}, 32), SkipWorktree: ver == 3}
			if err := ix.Set(e); err != nil {
				t.Fatal(err)
			}
		}
		b, err := ix.Encode()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(b, 32)
		if err != nil {
			t.Fatalf("version %d: %v", ver, err)
		}
		if paths(back) != paths(ix) || back.Version != ver {
			t.Errorf("version %d: round trip changed the entries", ver)
		}
		again, _ := back.Encode()
		if !bytes.Equal(again, b) {
			t.Errorf("version %d: second encode differs", ver)
		}
	}
}

// TestVarint: git's offset varint, as in varint.c.
func TestVarint(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 255, 16383, 16511, 1 << 20, 1<<63 - 1} {
		b := appendVarint(nil, v)
		got, n := decodeVarint(b)
		if got != v || n != len(b) {
			t.Errorf("varint %d: encoded %x, decoded %d (%d bytes)", v, b, got, n)
		}
	}
	if b := appendVarint(nil, 128); !bytes.Equal(b, []byte{0x80, 0x00}) {
		t.Errorf("varint 128 = %x, want 8000 (git's encoding)", b)
	}
	if _, n := decodeVarint([]byte{0x80}); n != 0 {
		t.Errorf("a truncated varint decoded")
	}
}
