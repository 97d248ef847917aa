package hunks

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
)

func lines(n int, f func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(f(i))
	}
	return b.String()
}

// gitCases are updates with several hunks: at the top, in the middle, at
// the end, without a final newline, with CRLF lines, and hunks that only
// insert or only delete.
var gitCases = []struct {
	name          string
	before, after string
}{
	{"three hunks",
		lines(40, func(i int) string { return fmt.Sprintf("line %d\n", i) }),
		lines(40, func(i int) string {
			switch i {
			case 2:
				return "line two\n"
			case 20:
				return "line twenty\nand more\n"
			case 39:
				return ""
			}
			return fmt.Sprintf("line %d\n", i)
		})},
	{"top and bottom, no final newline",
		lines(20, func(i int) string { return fmt.Sprintf("l%d\n", i) }) + "last",
		"first\n" + lines(20, func(i int) string { return fmt.Sprintf("l%d\n", i) }) + "last\n"},
	{"insert only and delete only",
		lines(30, func(i int) string { return fmt.Sprintf("%d\n", i) }),
		lines(30, func(i int) string {
			switch i {
			case 5:
				return "5\nnew a\nnew b\n"
			case 25, 26:
				return ""
			}
			return fmt.Sprintf("%d\n", i)
		})},
	{"crlf",
		lines(24, func(i int) string { return fmt.Sprintf("row %d\r\n", i) }),
		lines(24, func(i int) string {
			if i == 3 || i == 21 {
				return fmt.Sprintf("ROW %d\r\n", i)
			}
			return fmt.Sprintf("row %d\r\n", i)
		})},
	{"four close together",
		lines(60, func(i int) string { return fmt.Sprintf("x%d\n", i) }),
		lines(60, func(i int) string {
			if i%14 == 0 {
				return fmt.Sprintf("y%d\n", i)
			}
			return fmt.Sprintf("x%d\n", i)
		})},
}

// patchOf renders the chosen hunks of an update of path as a git patch.
func patchOf(path string, hs []Hunk, chosen []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", path, path, path, path)
	for _, k := range chosen {
		h := hs[k-1]
		b.WriteString(h.Header() + "\n")
		for _, l := range h.Lines {
			b.WriteByte(byte(l.Op))
			b.WriteString(l.Text)
			if !strings.HasSuffix(l.Text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

// TestApplyEqualsGitApply: for every selection of the hunks of each case,
// the bytes Apply computes are the bytes `git apply` of the chosen hunks
// alone writes over the base.
func TestApplyEqualsGitApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not installed: this test compares with git apply")
	}
	for _, tc := range gitCases {
		t.Run(tc.name, func(t *testing.T) {
			c := changeset.Change{Kind: changeset.Update, Path: "f.txt",
				Before: changeset.NewSide([]byte(tc.before), changeset.ModeFile, ""),
				After:  changeset.NewSide([]byte(tc.after), changeset.ModeFile, "")}
			us, err := Of(c)
			if err != nil {
				t.Fatal(err)
			}
			if len(us) < 2 {
				t.Fatalf("the case has %d hunk(s); it needs at least 2", len(us))
			}
			hs := make([]Hunk, len(us))
			for i, u := range us {
				hs[i] = u.Hunks[0]
			}
			for mask := 1; mask < 1<<len(us); mask++ {
				var chosen []int
				for i := range us {
					if mask&(1<<i) != 0 {
						chosen = append(chosen, i+1)
					}
				}
				got, ok, err := Apply(c, chosen)
				if err != nil || !ok {
					t.Fatalf("%v: ok %v, err %v", chosen, ok, err)
				}
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "p.diff"), []byte(patchOf("f.txt", hs, chosen)), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("git", "apply", "--unsafe-paths", "p.diff")
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v: git apply: %v\n%s\n%s", chosen, err, out, patchOf("f.txt", hs, chosen))
				}
				want, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
				if !bytes.Equal(got.After.Bytes, want) {
					t.Fatalf("%v: nika's bytes differ from git apply's\nnika:\n%q\ngit:\n%q", chosen, got.After.Bytes, want)
				}
				if got.After.Witness != changeset.WitnessOf(want) {
					t.Fatalf("%v: the witness is not the blake3 of the bytes", chosen)
				}
			}
		})
	}
}
