package changeset

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/nika-dev/nika/refusal"
)

// rule is what a door gets for a path: ParsePath, then the policy that
// every proposal is under (everything allowed, the hooks still reserved).
func rule(s string) error {
	p, err := ParsePath(s)
	if err != nil {
		return err
	}
	return Policy{Allow: []string{"**"}}.Check(p, Classify(p))
}

// TestThePathRuleRefusesEveryDisguise holds each disguise of issue 12:
// full case folding (U+017F in "hookſ"), invisible code points in and
// beside ".git" and the hooks, NTFS short names for any N, trailing dots
// and spaces, and streams. Each is refused with its class and a text that
// names what it reaches or the code point it holds.
func TestThePathRuleRefusesEveryDisguise(t *testing.T) {
	type tc struct {
		path  string
		class refusal.Class
		text  string
	}
	cases := []tc{
		// The hooks that judge the apply, under full case folding.
		{".nika/hook\u017f/post-apply.d/evil", refusal.NotAllowed, "inside .nika/hooks"},
		{".nika/HOOK\u017f/x", refusal.NotAllowed, "inside .nika/hooks"},
		{".NIKA/Hooks/x", refusal.NotAllowed, "inside .nika/hooks"},
		{".\u0274ika/hooks/x", "", ""}, // U+0274 small capital N does not fold to n: another name
		{".nika/hooks", refusal.NotAllowed, "inside .nika/hooks"},
		{"NIKA~1/hooks/x", refusal.NotAllowed, "short name of .nika"},
		{"nika~12/hooks/x", refusal.NotAllowed, "short name of .nika"},
		{"NI4F2A~1/hooks/x", refusal.NotAllowed, "short name of .nika"},
		{".nika/hooks./x", refusal.Invalid, "Windows drops"},
		{".nika/hooks /x", refusal.Invalid, "Windows drops"},
		{".nika/hooks::$DATA/x", refusal.Invalid, "stream"},
		{".nika/hoo\u212aks/x", "", ""}, // the Kelvin sign folds to k: "hookks" is another name
		{".nika/hoo\u212as/x", refusal.NotAllowed, "inside .nika/hooks"},
		// .git, followed or split by an invisible code point.
		{".git\u2060/config", refusal.NotAllowed, "inside .git"},
		{".git\u00ad/config", refusal.NotAllowed, "inside .git"},
		{".git\u034f/config", refusal.NotAllowed, "inside .git"},
		{".git\u180e/config", refusal.NotAllowed, "inside .git"},
		{".git\u17b4/config", refusal.NotAllowed, "inside .git"},
		{".git\u17b5/config", refusal.NotAllowed, "inside .git"},
		{".g\u2060it/hooks/pre-commit", refusal.NotAllowed, "inside .git"},
		{"sub/.GIT\u200b/config", refusal.NotAllowed, "inside .git"},
		{".gi\u0165/config", "", ""}, // U+0165 is a letter, not t: another name
		{".G\u0130T/config", "", ""}, // U+0130 folds to i + U+0307: another name
		// .git's short names, for any N, and after collisions.
		{"git~1/config", refusal.NotAllowed, "inside .git"},
		{"git~2/config", refusal.NotAllowed, "inside .git"},
		{"GIT~3/config", refusal.NotAllowed, "inside .git"},
		{"Git~10/x", refusal.NotAllowed, "inside .git"},
		{"gi7eba~1/x", refusal.NotAllowed, "inside .git"},
		{"GIT~1./x", refusal.NotAllowed, "inside .git"},
		{"git~0/x", "", ""}, // Windows numbers from 1
		{"git~/x", "", ""},
		{"git~1a/x", "", ""},
		// NTFS trailing dots, spaces and streams.
		{".git./x", refusal.NotAllowed, "inside .git"},
		{".git . ./x", refusal.NotAllowed, "inside .git"},
		{".git::$INDEX_ALLOCATION/x", refusal.NotAllowed, "inside .git"},
		{".GIT:$DATA", refusal.NotAllowed, "inside .git"},
		{"a.nika.yaml.", refusal.Invalid, "Windows drops"},
		{"a.nika.yaml ", refusal.Invalid, "Windows drops"},
		{"a.nika.yaml:evil", refusal.Invalid, "stream"},
		// Invisible code points anywhere, named.
		{"is\u2060admin.nika.yaml", refusal.NotAllowed, "invisible character U+2060"},
		{"a\u00adb.nika.yaml", refusal.NotAllowed, "invisible character U+00AD"},
		{"isAdmin\u034f.nika.yaml", refusal.NotAllowed, "invisible character U+034F"},
		{"a\u180eb", refusal.NotAllowed, "invisible character U+180E"},
		{"dir\u17b4/x", refusal.NotAllowed, "invisible character U+17B4"},
		{"a\u180bb", refusal.NotAllowed, "invisible character U+180B"},
		{"a\u180fb", refusal.NotAllowed, "invisible character U+180F"},
		{"a\u115fb", refusal.NotAllowed, "invisible character U+115F"},
		{"a\u3164b", refusal.NotAllowed, "invisible character U+3164"},
		{"a\ufe0fb", refusal.NotAllowed, "invisible character U+FE0F"},
		{"a\u0600b", refusal.NotAllowed, "invisible character U+0600"}, // Cf, not default-ignorable
		{"a\u061cb", refusal.NotAllowed, "invisible character U+061C"},
		{"a\u202eb", refusal.NotAllowed, "invisible character U+202E"},
		{"a\ufeffb", refusal.NotAllowed, "invisible character U+FEFF"},
		{"a\U0001d173b", refusal.NotAllowed, "invisible character U+1D173"},
		{"a\U000e0100b", refusal.NotAllowed, "invisible character U+E0100"},
		{"a\U000e0fffb", refusal.NotAllowed, "invisible character U+E0FFF"},
		// Plain names stay plain.
		{"caf\u00e9.nika.yaml", "", ""},
		{"\u00e9t\u00e9/r\u00e9sum\u00e9.nika.yaml", "", ""},
		{"dir/\u6587\u4ef6.nika.yaml", "", ""},
		{".nika/other.nika.yaml", "", ""},
		{".nika/hooks2/x", "", ""},
		{"hooks/x", "", ""},
		{"nika~0/x", "", ""},
		{"gitx~1/x", "", ""},
	}
	// Every tag character, U+E0000 to U+E007F, alone and after .git.
	for r := rune(0xe0000); r <= 0xe007f; r++ {
		cases = append(cases,
			tc{fmt.Sprintf("a%cb", r), refusal.NotAllowed, fmt.Sprintf("invisible character %U", r)},
			tc{fmt.Sprintf(".git%c/config", r), refusal.NotAllowed, "inside .git"},
			tc{fmt.Sprintf(".nika/hooks%c/x", r), refusal.NotAllowed, "invisible character"})
	}
	for _, c := range cases {
		err := rule(c.path)
		if c.class == "" {
			if err != nil {
				t.Errorf("%+q: refused: %v", c.path, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%+q: accepted, want %s %q", c.path, c.class, c.text)
			continue
		}
		if refusal.ClassOf(err) != c.class || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%+q: %s %v, want %s %q", c.path, refusal.ClassOf(err), err, c.class, c.text)
		}
		if strings.ContainsFunc(err.Error(), Invisible) {
			t.Errorf("%+q: the refusal holds the invisible code point raw: %q", c.path, err.Error())
		}
	}
}

// TestFoldKey: the names that fold together are the same file somewhere.
func TestFoldKey(t *testing.T) {
	for _, pair := range [][2]string{
		{"hooks", "hook\u017f"},
		{"Stra\u00dfe", "strasse"},
		{"caf\u00e9", "cafe\u0301"},
		{"CAF\u00c9", "cafe\u0301"},
		{"\u212aelvin", "kelvin"},
		{"a\u200bb", "ab"},
		{"a.txt.", "a.txt"},
		{"a.txt :$DATA", "a.txt"},
		{"\u03a3\u0391\u03a3", "\u03c3\u03b1\u03c2"}, // final sigma
		{"Dir/Sub/F", "dir/sub/f"},
	} {
		if a, b := FoldKey(pair[0]), FoldKey(pair[1]); a != b {
			t.Errorf("FoldKey(%+q) = %+q, FoldKey(%+q) = %+q: want equal", pair[0], a, pair[1], b)
		}
	}
	for _, pair := range [][2]string{{"hooks", "hookz"}, {"a/b", "ab"}, {"a", "\u0251"}} {
		if FoldKey(pair[0]) == FoldKey(pair[1]) {
			t.Errorf("FoldKey(%+q) == FoldKey(%+q)", pair[0], pair[1])
		}
	}
}

// TestCheckFoldsWithinTheSet: two names of one set that fold together are
// refused, whatever the base; a case-only rename is not.
func TestCheckFoldsWithinTheSet(t *testing.T) {
	side := NewSide([]byte("x\n"), ModeFile, "")
	create := func(ps ...string) []Change {
		var out []Change
		for _, p := range ps {
			out = append(out, Change{Kind: Create, Path: Path(p), After: side})
		}
		return out
	}
	type plain struct{ Base }
	for _, tc := range []struct {
		changes []Change
		refuse  string
	}{
		{create("a/hooks/x", "a/hook\u017f/y"), `"a/hooks"`},
		{create("Stra\u00dfe.txt", "strasse.txt"), "\"Stra\u00dfe.txt\""},
		{create("Dir/a", "dir/b"), `"Dir"`},
		{create("x.txt", "x.txt\u200b"), `"x.txt"`},
		{create("a/b", "a/c", "A/d"), `"A"`},
		{create("a/b", "a/c"), ""},
		{[]Change{{Kind: Move, From: "Docs", Path: "docs", Before: side, After: side}}, ""},
	} {
		err := CheckFolds(plain{}, tc.changes)
		if tc.refuse == "" {
			if err != nil {
				t.Errorf("%v: refused: %v", tc.changes, err)
			}
			continue
		}
		if refusal.ClassOf(err) != refusal.NotAllowed || !strings.Contains(err.Error(), tc.refuse) || !strings.Contains(err.Error(), "the same proposal also writes") {
			t.Errorf("%v: %v, want a collision naming %s", tc.changes[0].Path, err, tc.refuse)
		}
	}
}

// TestDefaultIgnorableIsUnicodes holds the ranges of
// Default_Ignorable_Code_Point from DerivedCoreProperties.txt, Unicode
// 15.0 (4,174 code points), and checks the derivation against them.
func TestDefaultIgnorableIsUnicodes(t *testing.T) {
	if unicode.Version != "15.0.0" {
		t.Skipf("the ranges below are Unicode 15.0's; this Go has Unicode %s", unicode.Version)
	}
	want := [][2]rune{
		{0x00ad, 0x00ad}, {0x034f, 0x034f}, {0x061c, 0x061c}, {0x115f, 0x1160}, {0x17b4, 0x17b5},
		{0x180b, 0x180f}, {0x200b, 0x200f}, {0x202a, 0x202e}, {0x2060, 0x206f}, {0x3164, 0x3164},
		{0xfe00, 0xfe0f}, {0xfeff, 0xfeff}, {0xffa0, 0xffa0}, {0xfff0, 0xfff8}, {0x1bca0, 0x1bca3},
		{0x1d173, 0x1d17a}, {0xe0000, 0xe0fff},
	}
	in := func(r rune) bool {
		for _, w := range want {
			if r >= w[0] && r <= w[1] {
				return true
			}
		}
		return false
	}
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		got := unicode.Is(DefaultIgnorable(), r)
		if got != in(r) {
			t.Errorf("%U: derived %v, DerivedCoreProperties.txt says %v", r, got, in(r))
		}
		if got {
			n++
		}
	}
	if n != 4174 {
		t.Errorf("%d code points, want 4,174", n)
	}
}

// FuzzParsePath: ParsePath never panics, and a path it accepts holds no
// component that any filesystem folds to .git or to a short name of it, no
// invisible or control code point, no empty, "." or ".." component, and
// quotes to a text with no raw invisible code point.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"a.nika.yaml", ".git/config", ".g\u2060it/x", "git~2/x", ".nika/hook\u017f/x", "a\U000e0041b",
		"caf\u00e9/x", "dir/../x", "a\\b", "C:/x", ".git./x", "x:y", "NIKA~1/hooks"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			if refusal.ClassOf(err) != refusal.Invalid && refusal.ClassOf(err) != refusal.NotAllowed {
				t.Fatalf("%+q: class %s", s, refusal.ClassOf(err))
			}
			if strings.ContainsFunc(err.Error(), Invisible) {
				t.Fatalf("%+q: the refusal holds a raw invisible code point", s)
			}
			return
		}
		for _, c := range p.Components() {
			if c == "" || c == "." || c == ".." || FoldName(c) == ".git" || ShortNameOf(c, ".git") || ShortNameOf(c, ".nika") {
				t.Fatalf("%+q accepted with component %+q", s, c)
			}
			for _, r := range c {
				if Invisible(r) || r < 0x20 || r == 0x7f {
					t.Fatalf("%+q accepted with %U", s, r)
				}
			}
		}
	})
}
