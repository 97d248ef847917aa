package udiff

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkHunksInOrder applies 2,000 hunks in the file's order to a file
// of 100,000 lines: the image's cursor only moves forward, so the cost is
// linear in the file and the diff.
//
//	go test ./changeset/udiff -run XXX -bench HunksInOrder
func BenchmarkHunksInOrder(b *testing.B) {
	var base, diff strings.Builder
	n := 100000
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&base, "line %d\n", i)
	}
	diff.WriteString("--- a/f\n+++ b/f\n")
	for i := 10; i+3 < n; i += 50 {
		fmt.Fprintf(&diff, "@@ -%d,3 +%d,3 @@\n line %d\n-line %d\n+LINE %d\n line %d\n", i, i, i, i+1, i+1, i+2)
	}
	d, err := parse([]byte(diff.String()))
	if err != nil {
		b.Fatal(err)
	}
	in := []byte(base.String())
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Intents[0].Edit.Apply(in); err != nil {
			b.Fatal(err)
		}
	}
}
