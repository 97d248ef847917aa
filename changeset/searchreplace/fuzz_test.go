package searchreplace

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/nika-dev/nika/refusal"
)

// FuzzParse checks, for any input, that Parse and the edits it returns never
// panic, are deterministic, leave their inputs untouched, refuse only with
// a located Invalid *refusal.Error, and write nothing: the test runs in
// an empty folder that must stay empty. The seed corpus is in
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(cat(fenced("a.go", l("x"), l("y")))))
	f.Add([]byte(cat(fenced("n.txt", nil, l("a", "b")), fenced("n.txt", l("b"), l("c")))))
	dir := f.TempDir()
	f.Chdir(dir)
	f.Cleanup(func() {
		if es, err := os.ReadDir(dir); err != nil || len(es) > 0 {
			f.Errorf("the folder is no longer empty: %v %v", es, err)
		}
	})
	f.Fuzz(func(t *testing.T, input []byte) {
		keep := bytes.Clone(input)
		d1, err1 := parse(input)
		d2, err2 := parse(input)
		if !bytes.Equal(input, keep) {
			t.Fatal("Parse modified its input")
		}
		if !reflect.DeepEqual(d1, d2) || !reflect.DeepEqual(err1, err2) {
			t.Fatalf("two parses differ: %v %v", err1, err2)
		}
		if err1 != nil {
			checkRefusal(t, err1)
			return
		}
		if len(d1.Intents) == 0 || d1.Format != Format {
			t.Fatalf("a draft of format %q with %d intents", d1.Format, len(d1.Intents))
		}
		for _, in := range d1.Intents {
			if (in.Edit == nil) == (in.Content == nil) {
				t.Fatalf("intent %+v has both or neither of Edit and Content", in)
			}
			if in.Edit == nil {
				continue
			}
			for _, base := range bases(in.Edit.(*edit)) {
				keep := bytes.Clone(base)
				out1, err1 := in.Edit.Apply(base)
				out2, err2 := in.Edit.Apply(base)
				if !bytes.Equal(base, keep) {
					t.Fatal("Apply modified its input")
				}
				if !bytes.Equal(out1, out2) || !reflect.DeepEqual(err1, err2) {
					t.Fatalf("two applies differ: %v %v", err1, err2)
				}
				if err1 != nil {
					checkRefusal(t, err1)
				}
			}
		}
	})
}

func checkRefusal(t *testing.T, err error) {
	t.Helper()
	var e *refusal.Error
	if !errors.As(err, &e) || e.Class != refusal.Invalid || !strings.HasPrefix(e.Text, "search-replace line ") || e.Hint == "" {
		t.Fatalf("refusal %#v is not a located Invalid *refusal.Error with a hint", err)
	}
}

// bases returns files an edit may apply to: empty, and ones built from its
// SEARCH texts, so that the fuzzer reaches the matching code.
func bases(e *edit) [][]byte {
	var b strings.Builder
	for _, bl := range e.blocks {
		for _, l := range bl.search {
			b.WriteString(l + "\n")
		}
	}
	s := b.String()
	return [][]byte{nil, []byte(s), []byte(s + s), []byte(strings.TrimSuffix(strings.ReplaceAll(s, "\n", "\r\n"), "\r\n"))}
}
