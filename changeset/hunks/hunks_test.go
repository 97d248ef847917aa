package hunks

import (
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
)

func side(s string) *changeset.Side { return changeset.NewSide([]byte(s), changeset.ModeFile, "") }

var twenty = lines(20, func(i int) string { return strings.Repeat("a", i) + "\n" })
var twentyEdited = strings.Replace(strings.Replace(twenty, "a\n", "A\n", 1), strings.Repeat("a", 19)+"\n", "B\n", 1)

// TestOf: an update has one hunk per @@ block; a creation, a deletion, a
// move (edited or not) and a mode change alone are one whole hunk.
func TestOf(t *testing.T) {
	exec := changeset.NewSide([]byte(twenty), changeset.ModeExecutable, "")
	for _, tc := range []struct {
		name  string
		c     changeset.Change
		units int
		whole bool
		heads []string
	}{
		{"update, two hunks", changeset.Change{Kind: changeset.Update, Path: "a", Before: side(twenty), After: side(twentyEdited)}, 2, false,
			[]string{"@@ -1,4 +1,4 @@", "@@ -16,5 +16,5 @@"}},
		{"create", changeset.Change{Kind: changeset.Create, Path: "a", After: side("x\ny\n")}, 1, true, []string{"@@ -0,0 +1,2 @@"}},
		{"create empty", changeset.Change{Kind: changeset.Create, Path: "a", After: side("")}, 1, true, nil},
		{"delete", changeset.Change{Kind: changeset.Delete, Path: "a", Before: side("x\n")}, 1, true, []string{"@@ -1 +0,0 @@"}},
		{"move, edited in two places", changeset.Change{Kind: changeset.Move, Path: "b", From: "a", Before: side(twenty), After: side(twentyEdited)}, 1, true,
			[]string{"@@ -1,4 +1,4 @@", "@@ -16,5 +16,5 @@"}},
		{"pure move", changeset.Change{Kind: changeset.Move, Path: "b", From: "a", Before: side(twenty), After: side(twenty)}, 1, true, nil},
		{"mode only", changeset.Change{Kind: changeset.Update, Path: "a", Before: side(twenty), After: exec}, 1, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			us, err := Of(tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if len(us) != tc.units {
				t.Fatalf("%d units, want %d", len(us), tc.units)
			}
			var heads []string
			for i, u := range us {
				if u.N != i+1 || u.Whole != tc.whole {
					t.Fatalf("unit %d: N %d whole %v", i, u.N, u.Whole)
				}
				for _, h := range u.Hunks {
					heads = append(heads, h.Header())
				}
			}
			if strings.Join(heads, "|") != strings.Join(tc.heads, "|") {
				t.Fatalf("headers %q, want %q", heads, tc.heads)
			}
		})
	}
}

// TestApply: the selections that keep all, none, one; a number out of
// range is an error that names the path; the mode rides with the hunks.
func TestApply(t *testing.T) {
	up := changeset.Change{Kind: changeset.Update, Path: "a.txt", Before: side(twenty), After: changeset.NewSide([]byte(twentyEdited), changeset.ModeExecutable, "blob")}
	if got, ok, err := Apply(up, []int{1, 2}); err != nil || !ok || got.After.Blob != "blob" {
		t.Fatalf("all hunks: the change must come back as it is (ok %v, err %v)", ok, err)
	}
	if _, ok, err := Apply(up, nil); err != nil || ok {
		t.Fatalf("no hunk: the file must be dropped (ok %v, err %v)", ok, err)
	}
	got, ok, err := Apply(up, []int{2, 2})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := strings.Replace(twenty, strings.Repeat("a", 19)+"\n", "B\n", 1)
	if string(got.After.Bytes) != want || got.After.Mode != changeset.ModeExecutable || got.After.Blob != "" {
		t.Fatalf("hunk 2 alone: got %q mode %s blob %q", got.After.Bytes, got.After.Mode, got.After.Blob)
	}
	if got.Before != up.Before {
		t.Fatal("the before side (the witness of the base) must stay")
	}
	if _, _, err := Apply(up, []int{3}); err == nil || err.Error() != `"a.txt" has no hunk 3` {
		t.Fatalf("hunk 3: %v", err)
	}
	mv := changeset.Change{Kind: changeset.Move, Path: "b", From: "a", Before: side(twenty), After: side(twentyEdited)}
	if _, _, err := Apply(mv, []int{2}); err == nil {
		t.Fatal("a move is one hunk: hunk 2 must be refused")
	}
	if got, ok, _ := Apply(mv, []int{1}); !ok || string(got.After.Bytes) != twentyEdited {
		t.Fatal("a move's one hunk keeps it whole")
	}
}
