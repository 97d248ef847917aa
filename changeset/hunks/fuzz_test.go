package hunks

import (
	"bytes"
	"testing"

	"github.com/nika-dev/nika/changeset"
)

// FuzzApply: any update's hunks replay to its after-bytes when all are
// chosen, drop the file when none is, and each single hunk alone gives
// bytes that differ from the base.
func FuzzApply(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"))
	f.Add([]byte(twenty), []byte(twentyEdited))
	f.Add([]byte("x"), []byte("x\n"))
	f.Add([]byte("\r\n\r\n"), []byte("\n"))
	f.Fuzz(func(t *testing.T, before, after []byte) {
		if bytes.Equal(before, after) {
			return
		}
		c := changeset.Change{Kind: changeset.Update, Path: "f", Before: changeset.NewSide(before, changeset.ModeFile, ""), After: changeset.NewSide(after, changeset.ModeFile, "")}
		us, err := Of(c)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, len(us))
		for i := range us {
			all[i] = i + 1
		}
		if got, ok, err := Apply(c, all); err != nil || !ok || !bytes.Equal(got.After.Bytes, after) {
			t.Fatalf("all hunks: ok %v err %v", ok, err)
		}
		if _, ok, err := Apply(c, nil); err != nil || ok {
			t.Fatalf("no hunk: ok %v err %v", ok, err)
		}
		if len(us) > 1 {
			for i := range us {
				got, ok, err := Apply(c, []int{i + 1})
				if err != nil || !ok || bytes.Equal(got.After.Bytes, before) {
					t.Fatalf("hunk %d alone: ok %v err %v", i+1, ok, err)
				}
			}
		}
	})
}
