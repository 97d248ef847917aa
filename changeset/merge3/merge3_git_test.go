package merge3

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// with replaces 1-based lines of s (a value of "" removes the line).
func with(s string, edits map[int]string) string {
	ls := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for i, l := range ls {
		if v, ok := edits[i+1]; ok {
			b.WriteString(v)
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

var mergeCases = []struct {
	name               string
	base, ours, theirs string
	conflicts          int
}{
	{"apart", numbered(20), with(numbered(20), map[int]string{2: "ours 2\n"}), with(numbered(20), map[int]string{15: "theirs 15\n"}), 0},
	{"nobody touched it since", numbered(10), numbered(10), with(numbered(10), map[int]string{4: "theirs 4\n"}), 0},
	{"only ours", numbered(10), with(numbered(10), map[int]string{4: "ours 4\n"}), numbered(10), 0},
	{"the same change on both sides", numbered(10), with(numbered(10), map[int]string{5: "both 5\n"}), with(numbered(10), map[int]string{5: "both 5\n"}), 0},
	{"one line, two ways", numbered(10), with(numbered(10), map[int]string{5: "ours 5\n"}), with(numbered(10), map[int]string{5: "theirs 5\n"}), 1},
	{"adjacent lines conflict, as in git", numbered(10), with(numbered(10), map[int]string{5: "ours 5\n"}), with(numbered(10), map[int]string{6: "theirs 6\n"}), 1},
	{"one line apart merges", numbered(10), with(numbered(10), map[int]string{4: "ours 4\n"}), with(numbered(10), map[int]string{6: "theirs 6\n"}), 0},
	{"ours deletes a block, theirs edits elsewhere", numbered(30), with(numbered(30), map[int]string{3: "", 4: "", 5: ""}), with(numbered(30), map[int]string{25: "theirs 25\n"}), 0},
	{"deleted on one side, edited on the other", numbered(10), with(numbered(10), map[int]string{5: ""}), with(numbered(10), map[int]string{5: "theirs 5\n"}), 1},
	{"the sides agree on part of the region", numbered(12),
		with(numbered(12), map[int]string{4: "same 4\n", 5: "ours 5\n", 6: "same 6\n"}),
		with(numbered(12), map[int]string{4: "same 4\n", 5: "theirs 5\n", 6: "same 6\n"}), 1},
	{"two conflicts a few lines apart are one", numbered(20),
		with(numbered(20), map[int]string{5: "ours 5\n", 8: "ours 8\n"}),
		with(numbered(20), map[int]string{5: "theirs 5\n", 8: "theirs 8\n"}), 1},
	{"two conflicts far apart are two", numbered(30),
		with(numbered(30), map[int]string{5: "ours 5\n", 20: "ours 20\n"}),
		with(numbered(30), map[int]string{5: "theirs 5\n", 20: "theirs 20\n"}), 2},
	{"inserts at one place", numbered(6), with(numbered(6), map[int]string{3: "line 3\nours new\n"}), with(numbered(6), map[int]string{3: "line 3\ntheirs new\n"}), 1},
	{"inserts at the top and the end", numbered(10), "ours top\n" + numbered(10), numbered(10) + "theirs end\n", 0},
	{"no final newline, edited far from it", numbered(12) + "last", with(numbered(12), map[int]string{1: "ours 1\n"}) + "last", numbered(12) + "last, theirs", 0},
	{"crlf lines", strings.ReplaceAll(numbered(12), "\n", "\r\n"),
		strings.ReplaceAll(with(numbered(12), map[int]string{2: "ours 2\n"}), "\n", "\r\n"),
		strings.ReplaceAll(with(numbered(12), map[int]string{10: "theirs 10\n"}), "\n", "\r\n"), 0},
	{"the base is empty", "", "ours\n", "theirs\n", 1},
}

// TestMergeEqualsGitMergeFile: every case merges as git merge-file merges
// it: the same bytes (with the same markers when it conflicts), and the
// same number of conflicts (merge-file's exit status).
func TestMergeEqualsGitMergeFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not installed: this test compares with git merge-file")
	}
	for _, tc := range mergeCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, s := range map[string]string{"ours": tc.ours, "base": tc.base, "theirs": tc.theirs} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("git", "merge-file", "-p", "-L", "HEAD", "-L", "base", "-L", "proposal", "ours", "base", "theirs")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
			want, err := cmd.Output()
			n := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				n = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if n != tc.conflicts {
				t.Fatalf("git merge-file finds %d conflicts; the case says %d", n, tc.conflicts)
			}
			got := Merge([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs), Labels{Ours: "HEAD", Theirs: "proposal"})
			if len(got.Conflicts) != n || got.Clean != (n == 0) {
				t.Errorf("%d conflicts (clean %v), git merge-file finds %d", len(got.Conflicts), got.Clean, n)
			}
			if !bytes.Equal(got.Bytes, want) {
				t.Errorf("the merge differs from git merge-file's\nnika:\n%s\ngit:\n%s", got.Bytes, want)
			}
		})
	}
}

// TestConflictLines: a conflict names its lines in each side's text; a
// side that removed every line of it has none.
func TestConflictLines(t *testing.T) {
	got := Merge([]byte(numbered(10)), []byte(with(numbered(10), map[int]string{5: "ours 5\n", 6: "ours 6\n"})), []byte(with(numbered(10), map[int]string{5: ""})), Labels{})
	if got.Clean || len(got.Conflicts) != 1 {
		t.Fatalf("%+v", got)
	}
	c := got.Conflicts[0]
	// theirs removed line 5 and kept line 6; ours rewrote both.
	if c.OursStart != 5 || c.OursLines != 2 || c.TheirsStart != 5 || c.TheirsLines != 1 ||
		strings.Join(c.Ours, "") != "ours 5\nours 6\n" || strings.Join(c.Theirs, "") != "line 6\n" {
		t.Fatalf("%+v", c)
	}
}

func TestConflictRemovedSide(t *testing.T) {
	got := Merge([]byte(numbered(10)), []byte(with(numbered(10), map[int]string{5: "ours 5\n"})), []byte(with(numbered(10), map[int]string{5: ""})), Labels{})
	if len(got.Conflicts) != 1 {
		t.Fatalf("%+v", got)
	}
	if c := got.Conflicts[0]; c.OursStart != 5 || c.OursLines != 1 || c.TheirsStart != 4 || c.TheirsLines != 0 {
		t.Fatalf("%+v", c)
	}
}
