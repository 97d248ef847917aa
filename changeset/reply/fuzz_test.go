package reply

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// FuzzParse checks that Parse never panics, never touches its input, is a
// pure function (the same input twice gives the same draft or the same
// refusal), and keeps its promises about what it returns. The seed corpus
// is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"prose only\n",
		"```yaml path=a.nika.yaml\nx: 1\n```\n",
		"```\n# path: a\n```\n",
		"````md path=\"a b.md\"\n```\nx\n```\n````\n",
		"~~~ path=a\r\nx\r\n~~~\r\n",
		"  ```path=a\n  x\n```",
		"```path=a\nunclosed\n",
		"```path=\n```\n",
		"```path=a path=b\n```\n",
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
			var e *refusal.Error
			if !errors.As(err1, &e) || e.Class != refusal.Invalid || !strings.HasPrefix(e.Text, "reply line ") || e.Hint == "" {
				t.Fatalf("refusal %#v is not an Invalid reply error with a line and a hint", err1)
			}
			if d1 != nil {
				t.Fatal("a refusal came with a draft")
			}
			return
		}
		if d1.Format != Format {
			t.Fatalf("Format = %q", d1.Format)
		}
		blocks, err := BlocksLimit(input, 0)
		if err != nil {
			t.Fatalf("Blocks failed where Parse did not: %v", err)
		}
		if len(d1.Intents) > len(blocks) {
			t.Fatalf("%d intents from %d blocks", len(d1.Intents), len(blocks))
		}
		for _, in := range d1.Intents {
			switch {
			case in.Op != changeset.OpWrite, in.Path == "", strings.IndexByte(in.Path, 0) >= 0:
				t.Fatalf("bad intent %+v", in)
			case in.Line < 1 || in.Line > lines:
				t.Fatalf("line %d outside the input's %d lines", in.Line, lines)
			case in.Content == nil:
				t.Fatal("nil content")
			case len(in.Content) > 0 && in.Content[len(in.Content)-1] != '\n':
				t.Fatalf("content %q does not end with a newline", in.Content)
			}
		}
	})
}
