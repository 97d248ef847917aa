package udiff

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	gudiff "github.com/aymanbagabas/go-udiff"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// FuzzParse checks that Parse never panics, never touches its input, and is
// pure: the same input twice gives the same draft or the same refusal, and
// every Edit gives the same answer twice. Refusals are typed and name a
// line. The seed corpus is in testdata/fuzz/FuzzParse; the corpus-* seeds
// are the diffs of flow/testdata/diffs, the differential test's corpus.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"prose\n",
		"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
		"diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n",
		"diff --git \"a/\\303\\274\" \"b/\\303\\274\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/\\303\\274\"\n@@ -0,0 +1 @@\n+x\n",
		"diff --git a/d b/d\ndeleted file mode 100644\nindex e69de29..0000000\n",
		"--- a/f\n+++ b/f\n@@ -2,0 +3 @@\n+x\n@@ -5 +6 @@\n-y\n+z\n",
		"diff --git a/b b/b\nGIT binary patch\nliteral 0\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		orig := bytes.Clone(input)
		d1, err1 := parse(input)
		if !bytes.Equal(input, orig) {
			t.Fatal("Parse modified its input")
		}
		d2, err2 := parse(input)
		if !reflect.DeepEqual(d1, d2) || !reflect.DeepEqual(err1, err2) {
			t.Fatalf("Parse is not deterministic:\n%+v %v\n%+v %v", d1, err1, d2, err2)
		}
		lines := bytes.Count(input, []byte("\n")) + 1
		if err1 != nil {
			checkRefusal(t, err1, lines, refusal.Invalid, refusal.Unsupported)
			if d1 != nil {
				t.Fatal("a refusal came with a draft")
			}
			return
		}
		for _, in := range d1.Intents {
			if in.Line < 1 || in.Line > lines {
				t.Fatalf("intent line %d outside the input's %d lines", in.Line, lines)
			}
			switch in.Op {
			case changeset.OpAdd:
				if in.Content == nil || in.Edit != nil {
					t.Fatalf("add %+v", in)
				}
			case changeset.OpEdit:
				if in.Edit == nil {
					t.Fatalf("edit without Edit %+v", in)
				}
			case changeset.OpMove:
				if in.To == "" {
					t.Fatalf("move without To %+v", in)
				}
			case changeset.OpCopy:
				if in.To == "" || in.Content != nil {
					t.Fatalf("copy %+v", in)
				}
			case changeset.OpWrite:
				if in.Edit == nil || in.Content != nil {
					t.Fatalf("write without Edit %+v", in)
				}
			case changeset.OpDelete:
			default:
				t.Fatalf("op %q", in.Op)
			}
			if in.Edit == nil {
				continue
			}
			for _, base := range [][]byte{nil, input, oldSide(in.Edit)} {
				out1, err1 := in.Edit.Apply(base)
				out2, err2 := in.Edit.Apply(base)
				if !bytes.Equal(out1, out2) || !reflect.DeepEqual(err1, err2) {
					t.Fatalf("Apply is not deterministic")
				}
				if err1 != nil {
					checkRefusal(t, err1, lines, refusal.Invalid)
				}
			}
		}
	})
}

// oldSide is the old lines of an edit's hunks, one after the other: a base
// the hunks may well apply to.
func oldSide(e changeset.Edit) []byte {
	var b []byte
	switch e := e.(type) {
	case *edit:
		for _, h := range e.hunks {
			for _, l := range h.old {
				b = append(b, l...)
			}
		}
	case *deletion:
		b = e.old
	}
	return b
}

func checkRefusal(t *testing.T, err error, lines int, classes ...refusal.Class) {
	t.Helper()
	var e *refusal.Error
	if !errors.As(err, &e) || e.Hint == "" || !strings.HasPrefix(e.Text, "diff line ") {
		t.Fatalf("refusal %#v is not a diff error with a line and a hint", err)
	}
	var n int
	if _, serr := fmt.Sscanf(e.Text, "diff line %d:", &n); serr != nil || n < 1 || n > lines {
		t.Fatalf("refusal %q names a line outside the input's %d lines", e.Text, lines)
	}
	for _, c := range classes {
		if e.Class == c {
			return
		}
	}
	t.Fatalf("refusal %q has class %s, want one of %v", e.Text, e.Class, classes)
}

// FuzzRoundTrip diffs two texts with an independent implementation
// (go-udiff, any context size) and checks that the parsed diff turns the
// old text into the new one exactly.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), uint8(3))
	f.Add([]byte(""), []byte("new\n"), uint8(3))
	f.Add([]byte("gone\n"), []byte(""), uint8(0))
	f.Add([]byte("x\nx\nx\ny\nx\nx\n"), []byte("x\nx\ny\nx\nx\nz"), uint8(1))
	f.Add([]byte("one\r\ntwo\r\n"), []byte("one\r\n2\r\n"), uint8(2))
	f.Add([]byte("a\n\n\nb\n\n"), []byte("\n\na\n\nb"), uint8(0))
	f.Fuzz(func(t *testing.T, old, new []byte, ctx uint8) {
		if bytes.Equal(old, new) || !utf8.Valid(old) || !utf8.Valid(new) {
			return // go-udiff diffs runes, and replaces invalid UTF-8
		}
		edits := gudiff.Bytes(old, new)
		diff, err := gudiff.ToUnified("a/f", "b/f", string(old), edits, 1+int(ctx%5))
		if err != nil {
			t.Skip(err)
		}
		d, err := parse([]byte(diff))
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, diff)
		}
		if len(d.Intents) != 1 || (d.Intents[0].Op != changeset.OpEdit && d.Intents[0].Op != changeset.OpWrite) || d.Intents[0].Edit == nil {
			t.Fatalf("intents %+v\n%s", d.Intents, diff)
		}
		got, err := d.Intents[0].Edit.Apply(old)
		if err != nil {
			t.Fatalf("Apply: %v\n%s", err, diff)
		}
		if !bytes.Equal(got, new) {
			t.Fatalf("got %q, want %q\n%s", got, new, diff)
		}
	})
}
