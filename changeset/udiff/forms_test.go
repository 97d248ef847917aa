package udiff

import (
	"sort"
	"testing"

	"github.com/nika-dev/nika/refusal"
)

// TestForms reads, resolves and applies each form of issue 15 over a base
// tree: the tree it must give, or the refusal with its class and exact
// text (line included). What git apply does with each is in the comment
// of the case; the differential test in flow checks it against git itself.
func TestForms(t *testing.T) {
	ten := numbered("l", 10)
	tests := []struct {
		name  string
		input []byte
		base  tree
		want  tree          // the files after; nil when refused
		class refusal.Class // the refusal's class
		text  string        // and its exact text
	}{
		// A hunk without trailing context belongs at the end of the file;
		// one that starts at line 1, at its start (git: match_end and
		// match_beginning).
		{
			name:  "no trailing context: applied at the end of the file",
			input: text("--- a/f", "+++ b/f", "@@ -2,2 +2,2 @@", " b", "-c", "+C"),
			base:  tree{"f": text("a", "b", "c")},
			want:  tree{"f": text("a", "b", "C")},
		},
		{
			name:  "no trailing context: refused where the file goes on",
			input: text("--- a/f", "+++ b/f", "@@ -2,2 +2,2 @@", " b", "-c", "+C"),
			base:  tree{"f": text("a", "b", "c", "d")},
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of f: these 2 lines are at line 2 of the file, but the hunk has no context after its changes, so it must match the end of the file",
		},
		{
			name:  "a hunk at line 1 without leading context: refused in the middle",
			input: text("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", "-c", "+C", " d"),
			base:  tree{"f": text("a", "b", "c", "d", "e")},
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of f: these 2 lines are at line 3 of the file, but the hunk starts at line 1, so it must match the start of the file",
		},
		{
			name:  "a hunk at line 1 without leading context: applied at the start",
			input: text("--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", "-c", "+C", " d"),
			base:  tree{"f": text("c", "d", "e")},
			want:  tree{"f": text("C", "d", "e")},
		},
		{
			name:  "no leading context elsewhere: placed by its text",
			input: text("--- a/f", "+++ b/f", "@@ -3,2 +3,2 @@", "-c", "+C", " d"),
			base:  tree{"f": text("a", "b", "c", "d", "e")},
			want:  tree{"f": text("a", "b", "C", "d", "e")},
		},

		// @@ -0,0: create the file, fill an empty one, refuse one with
		// content (git: "patch does not apply").
		{
			name:  "a creation hunk without new file mode creates a missing file",
			input: text("--- a/n.txt", "+++ b/n.txt", "@@ -0,0 +1,2 @@", "+x", "+y"),
			base:  tree{"f": text("a")},
			want:  tree{"f": text("a"), "n.txt": text("x", "y")},
		},
		{
			name:  "a diff --git section without new file mode edits a file that exists",
			input: text("diff --git a/n.txt b/n.txt", "--- a/n.txt", "+++ b/n.txt", "@@ -0,0 +1,2 @@", "+x", "+y"),
			base:  tree{"f": text("a")},
			class: refusal.NotAllowed,
			text:  `diff line 1: path "n.txt" does not exist, so it cannot be edited`,
		},
		{
			name:  "a creation hunk, as diff -u writes it, creates a missing file",
			input: text("--- n.txt\t2026-01-01 10:00:00.000000000 +0100", "+++ n.txt\t2026-01-01 10:00:00.000000000 +0100", "@@ -0,0 +1 @@", "+x"),
			base:  tree{},
			want:  tree{"n.txt": text("x")},
		},
		{
			name:  "a creation hunk fills an empty file",
			input: text("--- a/e", "+++ b/e", "@@ -0,0 +1 @@", "+x"),
			base:  tree{"e": {}},
			want:  tree{"e": text("x")},
		},
		{
			name:  "a creation hunk on a file with content is refused, not prepended",
			input: text("--- a/f", "+++ b/f", "@@ -0,0 +1 @@", "+x"),
			base:  tree{"f": text("a", "b")},
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of f creates the file's content (@@ -0,0), but the file is not empty (2 lines)",
		},
		{
			name:  "a new file section on an existing file is refused",
			input: text("diff --git a/f b/f", "new file mode 100644", "--- /dev/null", "+++ b/f", "@@ -0,0 +1 @@", "+x"),
			base:  tree{"f": text("a")},
			class: refusal.NotAllowed,
			text:  `diff line 1: path "f" already exists`,
		},

		// diff -N dates an absent side at the epoch, in the writer's zone.
		{
			name:  "epoch east of UTC creates",
			input: text("--- f\t1970-01-01 09:00:00.000000000 +0900", "+++ f\t2026-01-01 10:00:00.000000000 +0900", "@@ -0,0 +1 @@", "+x"),
			base:  tree{"g": text("a")},
			want:  tree{"g": text("a"), "f": text("x")},
		},
		{
			name:  "epoch east of UTC creates, and refuses an existing file",
			input: text("--- f\t1970-01-01 09:00:00.000000000 +0900", "+++ f\t2026-01-01 10:00:00.000000000 +0900", "@@ -0,0 +1 @@", "+x"),
			base:  tree{"f": {}},
			class: refusal.NotAllowed,
			text:  `diff line 1: path "f" already exists`,
		},
		{
			name:  "epoch east of UTC deletes",
			input: text("--- f\t2026-01-01 10:00:00.000000000 +0900", "+++ f\t1970-01-01 09:00:00.000000000 +0900", "@@ -1,2 +0,0 @@", "-a", "-b"),
			base:  tree{"f": text("a", "b"), "g": text("c")},
			want:  tree{"g": text("c")},
		},
		{
			name:  "epoch with a colon in the zone",
			input: text("--- f\t2026-01-01 10:00:00 +05:30", "+++ f\t1970-01-01 05:30:00 +05:30", "@@ -1 +0,0 @@", "-a"),
			base:  tree{"f": text("a")},
			want:  tree{},
		},
		{
			name:  "epoch west of UTC",
			input: text("--- f\t1969-12-31 16:00:00.000000000 -0800", "+++ f\t2026-01-01 10:00:00.000000000 -0800", "@@ -0,0 +1 @@", "+x"),
			base:  tree{},
			want:  tree{"f": text("x")},
		},
		{
			name:  "nine hours after the epoch in UTC is not the epoch",
			input: text("--- f\t2026-01-01 10:00:00 +0000", "+++ f\t1970-01-01 09:00:00 +0000", "@@ -1,2 +0,0 @@", "-a", "-b"),
			base:  tree{"f": text("a", "b")},
			want:  tree{"f": {}},
		},

		// Headers that a mail program damaged, which git accepts.
		{
			name:  "spaces for the tab before the timestamp",
			input: text("--- f.txt   2026-01-01 10:00:00.000000000 +0100", "+++ f.txt   2026-01-01 10:00:01.000000000 +0100", "@@ -1,2 +1,2 @@", " a", "-b", "+B"),
			base:  tree{"f.txt": text("a", "b")},
			want:  tree{"f.txt": text("a", "B")},
		},
		{
			name:  "a colon in the zone",
			input: text("--- f.txt\t2026-01-01 10:00:00 +09:00", "+++ f.txt\t2026-01-01 10:00:01 +09:00", "@@ -1,2 +1,2 @@", " a", "-b", "+B"),
			base:  tree{"f.txt": text("a", "b")},
			want:  tree{"f.txt": text("a", "B")},
		},
		{
			name:  "/dev/null with trailing spaces",
			input: text("--- /dev/null  ", "+++ b/n.txt", "@@ -0,0 +1 @@", "+x"),
			base:  tree{},
			want:  tree{"n.txt": text("x")},
		},

		// Names: git's -p1, its guess of -p0, and nika's -p0 where both
		// names start with the same directory.
		{
			name:  "diff -u names without a slash",
			input: text("--- f.txt.orig", "+++ f.txt", "@@ -1 +1 @@", "-a", "+b"),
			base:  tree{"f.txt": text("a")},
			want:  tree{"f.txt": text("b")},
		},
		{
			name:  "the shorter name when the other only adds to it",
			input: text("--- f.txt", "+++ f.txt.new", "@@ -1 +1 @@", "-a", "+b"),
			base:  tree{"f.txt": text("a")},
			want:  tree{"f.txt": text("b")},
		},
		{
			name:  "diff -ru old new drops the first directory",
			input: text("--- old/src/a.c\t2026-01-01 10:00:00 +0000", "+++ new/src/a.c\t2026-01-01 10:00:00 +0000", "@@ -1 +1 @@", "-a", "+b"),
			base:  tree{"src/a.c": text("a")},
			want:  tree{"src/a.c": text("b")},
		},
		{
			name:  "the same directory on both sides is kept",
			input: text("--- src/a.go", "+++ src/a.go", "@@ -1 +1 @@", "-a", "+b"),
			base:  tree{"src/a.go": text("a"), "a.go": text("a")},
			want:  tree{"src/a.go": text("b"), "a.go": text("a")},
		},
		{
			name:  "a/ on both sides is git's prefix",
			input: text("--- a/src/a.go", "+++ a/src/a.go", "@@ -1 +1 @@", "-a", "+b"),
			base:  tree{"src/a.go": text("a")},
			want:  tree{"src/a.go": text("b")},
		},
		{
			name:  "a new file under a directory of its own is kept",
			input: text("--- /dev/null", "+++ src/n.go", "@@ -0,0 +1 @@", "+n"),
			base:  tree{},
			want:  tree{"src/n.go": text("n")},
		},
		{
			name:  "once git guessed no prefix, it keeps that guess",
			input: text("--- k", "+++ k", "@@ -1 +1 @@", "-a", "+b", "--- old/k", "+++ new/k", "@@ -1 +1 @@", "-a", "+c"),
			base:  tree{"k": text("a"), "new/k": text("a")},
			want:  tree{"k": text("b"), "new/k": text("c")},
		},

		// Copies: the new file starts from the source's base bytes.
		{
			name:  "a pure copy",
			input: text("diff --git a/a.txt b/b.txt", "similarity index 100%", "copy from a.txt", "copy to b.txt"),
			base:  tree{"a.txt": text("x")},
			want:  tree{"a.txt": text("x"), "b.txt": text("x")},
		},
		{
			name: "a copy with hunks, and an edit of its source after it",
			input: text(
				"diff --git a/a.txt b/a.txt", "--- a/a.txt", "+++ b/a.txt", "@@ -1,3 +1,3 @@", " 1", "-2", "+SRC", " 3",
				"diff --git a/a.txt b/c.txt", "similarity index 80%", "copy from a.txt", "copy to c.txt",
				"--- a/a.txt", "+++ b/c.txt", "@@ -1,3 +1,3 @@", " 1", "-2", "+two", " 3"),
			base: tree{"a.txt": text("1", "2", "3")},
			want: tree{"a.txt": text("1", "SRC", "3"), "c.txt": text("1", "two", "3")},
		},
		{
			name:  "a copy onto an existing file",
			input: text("diff --git a/a.txt b/b.txt", "similarity index 100%", "copy from a.txt", "copy to b.txt"),
			base:  tree{"a.txt": text("x"), "b.txt": text("y")},
			class: refusal.NotAllowed,
			text:  `diff line 1: cannot copy "a.txt" onto "b.txt", which already exists`,
		},
		{
			name:  "a copy of a missing file",
			input: text("diff --git a/a.txt b/b.txt", "similarity index 100%", "copy from a.txt", "copy to b.txt"),
			base:  tree{},
			class: refusal.NotAllowed,
			text:  `diff line 1: path "a.txt" does not exist, so it cannot be copied`,
		},

		// Two sections for one file apply in turn, as git applies them.
		{
			name: "two sections for one file",
			input: text("--- a/h", "+++ b/h", "@@ -1,3 +1,3 @@", " 1", "-2", "+two", " 3",
				"--- a/h", "+++ b/h", "@@ -1,3 +1,3 @@", " 1", "-two", "+TWO", " 3"),
			base: tree{"h": text("1", "2", "3")},
			want: tree{"h": text("1", "TWO", "3")},
		},
		{
			name: "a second section that does not match the first one's result",
			input: text("--- a/h", "+++ b/h", "@@ -1,3 +1,3 @@", " 1", "-2", "+two", " 3",
				"--- a/h", "+++ b/h", "@@ -1,3 +1,3 @@", " 1", "-2", "+TWO", " 3"),
			base:  tree{"h": text("1", "2", "3")},
			class: refusal.Invalid,
			text:  "diff line 10: hunk 1 of h: these 3 lines are not in the file (section 2 for \"h\", applied to what the section at line 1 left)",
		},

		// Hunks out of order apply, as git applies them; one that would
		// change lines an earlier hunk wrote is refused.
		{
			name:  "hunks out of order",
			input: text("--- a/f", "+++ b/f", "@@ -7,3 +7,3 @@", " l 7", "-l 8", "+E", " l 9", "@@ -2,3 +2,3 @@", " l 2", "-l 3", "+C", " l 4"),
			base:  tree{"f": []byte(ten)},
			want:  tree{"f": withLines(ten, map[int]string{3: "C\n", 8: "E\n"})},
		},
		{
			name:  "overlapping hunks",
			input: text("--- a/f", "+++ b/f", "@@ -2,3 +2,3 @@", " l 2", "-l 3", "+C", " l 4", "@@ -4,3 +4,3 @@", " l 4", "-l 5", "+F", " l 6"),
			base:  tree{"f": []byte(ten)},
			class: refusal.Invalid,
			text:  "diff line 8: hunk 2 of f: these 3 lines are in the file only at line 4, where an earlier hunk already changes it",
		},

		// A diff applied already, in part: the refusal says where.
		{
			name:  "a hunk whose change the file holds already",
			input: text("--- a/f", "+++ b/f", "@@ -2,3 +2,3 @@", " l 2", "-l 3", "+C", " l 4", "@@ -7,3 +7,3 @@", " l 7", "-l 8", "+E", " l 9"),
			base:  tree{"f": withLines(ten, map[int]string{3: "C\n"})},
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of f: these 3 lines are not in the file, but the lines the hunk leaves are, at line 2: the file may hold this change already",
		},

		// Unnumbered hunks, as models write them: placed by their text.
		{
			name:  "an unnumbered hunk",
			input: text("--- a/f", "+++ b/f", "@@ ... @@", " l 4", "-l 5", "+five", " l 6"),
			base:  tree{"f": []byte(ten)},
			want:  tree{"f": withLines(ten, map[int]string{5: "five\n"})},
		},
		{
			name:  "bare @@ lines, two hunks, blank lines between",
			input: text("--- a/f", "+++ b/f", "@@", " l 2", "-l 3", "+three", "", "@@ @@", "-l 9", "+nine", "", ""),
			base:  tree{"f": []byte(ten)},
			want:  tree{"f": withLines(ten, map[int]string{3: "three\n", 9: "nine\n"})},
		},
		{
			name:  "an unnumbered hunk after another one picks the place after it",
			input: text("--- a/f", "+++ b/f", "@@ ... @@", "-x", "+X", " y", "@@ ... @@", "-x", "+Z"),
			base:  tree{"f": text("x", "y", "x")},
			want:  tree{"f": text("X", "y", "Z")},
		},
		{
			name:  "an unnumbered hunk that matches twice",
			input: text("--- a/f", "+++ b/f", "@@ ... @@", " x", "-y", "+z"),
			base:  tree{"f": text("x", "y", "a", "x", "y")},
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of f has no line numbers, and these 2 lines are at lines 1 and 4 of the file",
		},
		{
			name:  "an unnumbered hunk that only adds lines",
			input: text("--- a/f", "+++ b/f", "@@ ... @@", "+z"),
			base:  tree{"f": text("x")},
			class: refusal.Invalid,
			text:  "diff line 3: hunk 1 of f only adds lines, and without line numbers nothing says where",
		},
		{
			name:  "an unnumbered hunk that creates a file",
			input: text("--- /dev/null", "+++ b/n", "@@ ... @@", "+z"),
			base:  tree{},
			want:  tree{"n": text("z")},
		},

		// -U0: a diff with no context at all reads as git apply
		// --unidiff-zero reads it.
		{
			name:  "a -U0 diff",
			input: text("--- a/f", "+++ b/f", "@@ -3 +3 @@", "-l 3", "+three", "@@ -5,0 +6 @@", "+after five", "@@ -8 +8,0 @@", "-l 8"),
			base:  tree{"f": []byte(ten)},
			want:  tree{"f": withLines(ten, map[int]string{3: "three\n", 5: "l 5\nafter five\n", 8: ""})},
		},

		// A deletion without hunks witnesses its content.
		{
			name:  "a deletion without hunks or index line of a file with content",
			input: text("diff --git a/d b/d", "deleted file mode 100644"),
			base:  tree{"d": text("a", "b")},
			class: refusal.Invalid,
			text:  "diff line 1: the diff deletes d without showing its content, and the file is not empty (2 lines)",
		},
		{
			name:  "a deletion without hunks whose index line names the file's blob",
			input: text("diff --git a/d b/d", "deleted file mode 100644", "index 01e79c3..0000000"),
			base:  tree{"d": text("1", "2", "3")},
			want:  tree{},
		},
		{
			name:  "a section after the deletion of its file",
			input: text("diff --git a/d b/d", "deleted file mode 100644", "index e69de29..0000000", "diff --git a/d b/d", "new file mode 100644", "--- /dev/null", "+++ b/d", "@@ -0,0 +1 @@", "+x"),
			base:  tree{"d": {}},
			class: refusal.Invalid,
			text:  `diff line 4: this section changes "d", but the section at line 1 deletes it`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parse(tt.input)
			var got tree
			if err == nil {
				got, err = applyDraft(d, tt.base)
			}
			if tt.want == nil {
				if err == nil {
					t.Fatalf("applied: %v", keysOf(got))
				}
				wantErr(t, err, tt.class, tt.text)
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			sameTree(t, got, tt.want, tt.input)
		})
	}
}

func keysOf(tr tree) []string {
	var ks []string
	for k := range tr {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestTimestamps pins the timestamp reader to git apply's: where a name
// ends, and which sides are the epoch.
func TestTimestamps(t *testing.T) {
	for line, want := range map[string]string{
		"f.txt\t2026-01-01 10:00:00.123456789 +0100": "f.txt",
		"f.txt\t2026-01-01 10:00:00 +0100":           "f.txt",
		"f.txt\t2026-01-01 10:00:00":                 "f.txt",
		"f.txt\t2026-01-01":                          "f.txt",
		"f.txt\t26-01-01 10:00:00":                   "f.txt",
		"f.txt  2026-01-01 10:00:00 +01:00":          "f.txt",
		"a b.txt\t2026-01-01 10:00:00 +0100":         "a b.txt",
		"a\tb.txt\t2026-01-01 10:00:00 +0100":        "a\tb.txt",
		"f.txt\tThu Jan  1 00:00:00 1970":            "f.txt",
		"f.txt":                                      "f.txt",
		"f.txt ":                                     "f.txt ",
		"f 2026-01-01x":                              "f 2026-01-01x",
		"2026-01-01 10:00:00":                        "2026-01-01 10:00:00",
	} {
		if got, err := plainFileName(line); err != nil || got != want {
			t.Errorf("plainFileName(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
	for line, want := range map[string]bool{
		"f\t1970-01-01 00:00:00 +0000":           true,
		"f\t1970-01-01 00:00:00.000000000 +0000": true,
		"f\t1970-01-01 09:00:00.000000000 +0900": true,
		"f\t1970-01-01 05:30:00 +05:30":          true,
		"f\t1969-12-31 16:00:00.000000000 -0800": true,
		"f\t1969-12-31 23:00:00 -0100":           true,
		"f\t1970-01-01 00:00:00.000000001 +0000": false,
		"f\t1970-01-01 00:00:01 +0000":           false,
		"f\t1970-01-01 09:00:00 +0000":           false,
		"f\t1969-12-31 16:00:00 +0800":           false,
		"f\t1970-01-01 00:00:00":                 false,
		"f 1970-01-01 00:00:00 +0000":            false,
		"f\t2026-01-01 00:00:00 +0000":           false,
		"f\tThu Jan  1 00:00:00 1970":            false,
	} {
		if got := hasEpoch(line); got != want {
			t.Errorf("hasEpoch(%q) = %v, want %v", line, got, want)
		}
	}
}
