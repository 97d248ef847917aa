package merge3

import (
	"bytes"
	"testing"
)

// FuzzMerge: a side that did not change yields the other side, clean; a
// merge of a side with itself is that side; nothing panics.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(numbered(10)), []byte(with(numbered(10), map[int]string{2: "o\n"})), []byte(with(numbered(10), map[int]string{8: "t\n"})))
	f.Add([]byte(""), []byte("a"), []byte("b"))
	f.Add([]byte("a\nb"), []byte("a\nc"), []byte("a\nb\n"))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		if m := Merge(base, base, theirs, Labels{}); !m.Clean || !bytes.Equal(m.Bytes, theirs) {
			t.Fatalf("ours unchanged: clean %v, %q want %q", m.Clean, m.Bytes, theirs)
		}
		if m := Merge(base, ours, base, Labels{}); !m.Clean || !bytes.Equal(m.Bytes, ours) {
			t.Fatalf("theirs unchanged: clean %v, %q want %q", m.Clean, m.Bytes, ours)
		}
		if m := Merge(base, ours, ours, Labels{}); !m.Clean || !bytes.Equal(m.Bytes, ours) {
			t.Fatalf("the same change: clean %v, %q want %q", m.Clean, m.Bytes, ours)
		}
		m := Merge(base, ours, theirs, Labels{})
		if m.Clean != (len(m.Conflicts) == 0) {
			t.Fatal("clean disagrees with the conflicts")
		}
	})
}
