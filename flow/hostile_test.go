package flow_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

// snapshot records every name under dir, .git included, with its type,
// permission bits and content (a symlink's target), so that a test can
// prove that a refusal wrote nothing at all.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "link " + target
		case d.IsDir():
			out[rel] = fmt.Sprintf("dir %o", info.Mode().Perm())
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %o %q", info.Mode().Perm(), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree reports every name added, removed or changed between two
// snapshots.
func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	var diffs []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			diffs = append(diffs, "removed "+k)
		} else if w != v {
			diffs = append(diffs, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, "added "+k)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s changed on a refusal:\n  %s", what, strings.Join(diffs, "\n  "))
	}
}

// hostileRepo commits the files the corpus collides with or passes through:
// a symlink s -> .git, a symlink as a target, a file where a directory is
// wanted, directories in other cases, and a name in NFC.
func hostileRepo(t *testing.T) (*gittest.Repo, *gitstage.Repo) {
	t.Helper()
	g := gittest.New(t)
	for p, c := range map[string]string{
		"a.nika.yaml":            "nika: a1\n",
		"Docs.nika.yaml":         "nika: docs\n",
		"caf\u00e9.nika.yaml":    "nika: cafe\n",
		"lib":                    "a file, not a directory\n",
		"dir/a.nika.yaml":        "nika: dir a\n",
		"dir/b.nika.yaml":        "nika: dir b\n",
		"Tools/x.nika.yaml":      "nika: tools\n",
		".nika/hooks/post-apply": "#!/bin/sh\nexit 0\n",
		"real.nika.yaml":         "nika: real\n",
	} {
		g.Write(p, c)
	}
	for link, target := range map[string]string{"s": ".git", "link.nika.yaml": "real.nika.yaml"} {
		if err := os.Symlink(target, filepath.Join(g.Dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	head := g.Commit("fixture")
	// A submodule: a gitlink entry, with its empty directory on disk as
	// git leaves an uninitialized one.
	g.Git("update-index", "--add", "--cacheinfo", "160000,"+head+",mod")
	if err := os.Mkdir(filepath.Join(g.Dir, "mod"), 0o755); err != nil {
		t.Fatal(err)
	}
	g.Git("commit", "-q", "-m", "submodule")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return g, r
}

// The input formats a case can take.
func reply(paths ...string) string {
	var b strings.Builder
	for _, p := range paths {
		q := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p)
		fmt.Fprintf(&b, "```yaml path=\"%s\"\nnika: x\n```\n", q)
	}
	return b.String()
}

func patchAdd(paths ...string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "*** Add File: %s\n+nika: x\n", p)
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

func patchMove(from, to string) string {
	return fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n*** Move to: %s\n@@\n-nika: a1\n+nika: a2\n*** End Patch\n", from, to)
}

// cquote quotes a name as git does in diff headers.
func cquote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func diffAdd(paths ...string) string {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "--- /dev/null\n+++ %s\n@@ -0,0 +1 @@\n+nika: x\n", cquote("b/"+p))
	}
	return b.String()
}

func write(p string) changeset.Intent {
	return changeset.Intent{Op: changeset.OpWrite, Path: p, Content: []byte("nika: x\n"), Line: 1}
}

type hostileCase struct {
	name   string
	format string // reply, patch, diff; "" with draft
	input  string
	draft  []changeset.Intent // resolved directly, for what no format can carry
	class  refusal.Class
	text   string // a part of the refusal's text
	// fold marks a collision with a path already in the index, which only
	// changeset.CheckFolds finds.
	fold bool
}

func hostileCorpus() []hostileCase {
	long := strings.Repeat("d/", 2048) + "x.nika.yaml" // 4,107 bytes
	c256 := strings.Repeat("n", 256-len(".nika.yaml")) + ".nika.yaml"
	return []hostileCase{
		// Traversal.
		{name: "dotdot", format: "reply", input: reply("../x.nika.yaml"), class: refusal.NotAllowed, text: "'..'"},
		{name: "dotdot inside", format: "patch", input: patchAdd("a/../../x.nika.yaml"), class: refusal.NotAllowed, text: "'..'"},
		{name: "dotdot in a diff", format: "diff", input: diffAdd("../../x.nika.yaml"), class: refusal.NotAllowed, text: "'..'"},
		{name: "dotdot through a real dir", format: "reply", input: reply("dir/../../x.nika.yaml"), class: refusal.NotAllowed, text: "'..'"},
		{name: "move out of the root", format: "patch", input: patchMove("a.nika.yaml", "../out.nika.yaml"), class: refusal.NotAllowed, text: "'..'"},
		{name: "git rename out of the root", format: "diff", input: "diff --git a/a.nika.yaml b/../out.nika.yaml\nsimilarity index 100%\nrename from a.nika.yaml\nrename to ../out.nika.yaml\n", class: refusal.NotAllowed, text: "'..'"},
		{name: "dot component", format: "reply", input: reply("./x.nika.yaml"), class: refusal.Invalid, text: "'.' component"},
		{name: "empty component", format: "reply", input: reply("dir//x.nika.yaml"), class: refusal.Invalid, text: "empty component"},
		{name: "trailing slash", format: "patch", input: patchAdd("dir/"), class: refusal.Invalid, text: "directory"},
		// Absolute, drive and UNC paths, backslashes.
		{name: "absolute", format: "reply", input: reply("/etc/passwd"), class: refusal.NotAllowed, text: "absolute"},
		{name: "absolute in a patch", format: "patch", input: patchAdd("/tmp/x.nika.yaml"), class: refusal.NotAllowed, text: "absolute"},
		{name: "absolute in a diff -u", format: "diff", input: "--- /dev/null\n+++ /etc/x.nika.yaml\n@@ -0,0 +1 @@\n+nika: x\n", class: refusal.NotAllowed, text: "absolute"},
		{name: "UNC with slashes", format: "reply", input: reply("//server/share/x.nika.yaml"), class: refusal.NotAllowed, text: "absolute"},
		{name: "drive letter", format: "reply", input: reply("C:/x.nika.yaml"), class: refusal.NotAllowed, text: "drive letter"},
		{name: "drive relative", format: "patch", input: patchAdd("c:x.nika.yaml"), class: refusal.NotAllowed, text: "drive letter"},
		{name: "drive with backslash", format: "reply", input: reply(`C:\x.nika.yaml`), class: refusal.Invalid, text: "backslash"},
		{name: "backslash traversal", format: "reply", input: reply(`dir\..\..\x.nika.yaml`), class: refusal.Invalid, text: "backslash"},
		{name: "UNC with backslashes", format: "patch", input: patchAdd(`\\server\share\x.nika.yaml`), class: refusal.Invalid, text: "backslash"},
		{name: "backslash dotdot in a diff", format: "diff", input: diffAdd(`..\x.nika.yaml`), class: refusal.Invalid, text: "backslash"},
		// .git in any case or disguise.
		{name: ".git/config", format: "reply", input: reply(".git/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".GIT/config", format: "patch", input: patchAdd(".GIT/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".Git/hooks in a diff", format: "diff", input: diffAdd(".Git/hooks/pre-commit"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git. (NTFS dot)", format: "reply", input: reply(".git./x"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git space (NTFS space)", format: "reply", input: reply(".git /x"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git. . mixed", format: "patch", input: patchAdd(".git. ./config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "git~1 (8.3 name)", format: "patch", input: patchAdd("git~1/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "GIT~1 upper", format: "reply", input: reply("GIT~1/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "ZWNJ U+200C (HFS+)", format: "reply", input: reply(".g\u200cit/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "ZWJ U+200D in a diff", format: "diff", input: diffAdd(".git\u200d/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "BOM U+FEFF", format: "reply", input: reply("\ufeff.git/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "RLO U+202E", format: "patch", input: patchAdd(".\u202egit/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "NTFS stream ::$INDEX_ALLOCATION", format: "patch", input: patchAdd(".git::$INDEX_ALLOCATION/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "NTFS stream upper", format: "reply", input: reply(".GIT::$index_allocation/hooks/x"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "nested sub/.git/config", format: "reply", input: reply("sub/.git/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "nested .GIT. in a diff", format: "diff", input: diffAdd("dir/.GIT./hooks/post-checkout"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "a .git file (gitfile)", format: "reply", input: reply("dir/.git"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git at the root as a file", draft: []changeset.Intent{write(".git")}, class: refusal.NotAllowed, text: "inside .git"},
		{name: "move into .git", format: "patch", input: patchMove("a.nika.yaml", ".git/hooks/pre-commit"), class: refusal.NotAllowed, text: "inside .git"},
		// Symlinks in the base.
		{name: "through s -> .git", format: "reply", input: reply("s/config"), class: refusal.NotAllowed, text: "symlink"},
		{name: "through s -> .git into hooks", format: "patch", input: patchAdd("s/hooks/pre-commit"), class: refusal.NotAllowed, text: "symlink"},
		{name: "through s -> .git in a diff", format: "diff", input: diffAdd("s/info/attributes"), class: refusal.NotAllowed, text: "symlink"},
		{name: "a committed symlink as the target", format: "reply", input: reply("link.nika.yaml"), class: refusal.Unsupported, text: "is a symlink"},
		{name: "update a committed symlink", format: "patch", input: "*** Begin Patch\n*** Update File: link.nika.yaml\n@@\n-nika: real\n+nika: via link\n*** End Patch\n", class: refusal.Unsupported, text: "is a symlink"},
		{name: "delete a committed symlink", format: "patch", input: "*** Begin Patch\n*** Delete File: s\n*** End Patch\n", class: refusal.Unsupported, text: "is a symlink"},
		{name: "move a symlink", format: "patch", input: patchMove("link.nika.yaml", "moved.nika.yaml"), class: refusal.Unsupported, text: "is a symlink"},
		{name: "inside a submodule", format: "reply", input: reply("mod/x.nika.yaml"), class: refusal.NotAllowed, text: "submodule"},
		{name: "add over a submodule", format: "patch", input: patchAdd("mod"), class: refusal.Unsupported, text: "submodule"},
		{name: "replace a submodule", format: "reply", input: reply("mod"), class: refusal.Unsupported, text: "submodule"},
		// Collisions under case folding and NFC/NFD.
		{name: "README and readme in one set", format: "reply", input: reply("README.nika.yaml", "readme.nika.yaml"), class: refusal.NotAllowed, text: "which the same proposal also writes"},
		{name: "case pair in a patch", format: "patch", input: patchAdd("New/X.nika.yaml", "new/x.NIKA.yaml"), class: refusal.NotAllowed, text: "which the same proposal also writes"},
		{name: "NFC and NFD in one set", format: "reply", input: reply("r\u00e9sum\u00e9.nika.yaml", "re\u0301sume\u0301.nika.yaml"), class: refusal.NotAllowed, text: "which the same proposal also writes"},
		{name: "NFC and NFD in a diff", format: "diff", input: diffAdd("\u00e9.nika.yaml", "e\u0301.nika.yaml"), class: refusal.NotAllowed, text: "which the same proposal also writes"},
		{name: "case against the index", format: "reply", input: reply("docs.nika.yaml"), class: refusal.NotAllowed, text: "collides", fold: true},
		{name: "NFD against NFC in the index", format: "patch", input: patchAdd("cafe\u0301.nika.yaml"), class: refusal.NotAllowed, text: "collides", fold: true},
		{name: "directory case against the index", format: "reply", input: reply("tools/y.nika.yaml"), class: refusal.NotAllowed, text: "collides", fold: true},
		{name: "move onto a folded name", format: "patch", input: patchMove("a.nika.yaml", "DOCS.nika.yaml"), class: refusal.NotAllowed, text: "collides", fold: true},
		// File/directory type changes whose obstacle the set keeps.
		{name: "file in the way of a directory", format: "reply", input: reply("lib/x.nika.yaml"), class: refusal.NotAllowed, text: "is a file"},
		{name: "workflow in the way of a directory", format: "patch", input: patchAdd("a.nika.yaml/b.nika.yaml"), class: refusal.NotAllowed, text: "is a file"},
		{name: "directory in the way of a file", format: "reply", input: reply("dir"), class: refusal.NotAllowed, text: "is a directory"},
		{name: "directory half emptied", format: "diff", input: "--- a/dir/a.nika.yaml\n+++ /dev/null\n@@ -1 +0,0 @@\n-nika: dir a\n" + diffAdd("dir"), class: refusal.NotAllowed, text: "is a directory"},
		{name: "file and directory in one set", format: "reply", input: reply("new", "new/x.nika.yaml"), class: refusal.NotAllowed, text: "also writes"},
		// Control characters.
		{name: "NUL", draft: []changeset.Intent{write("a\x00b.nika.yaml")}, class: refusal.Invalid, text: "control character"},
		{name: "NUL in a reply", format: "reply", input: "```yaml path=a\x00b.nika.yaml\nnika: x\n```\n", class: refusal.Invalid, text: "NUL"},
		{name: "NUL in a diff", format: "diff", input: diffAdd("a\x00b.nika.yaml"), class: refusal.Invalid, text: "control character"},
		{name: "newline in a diff", format: "diff", input: diffAdd("a\nb.nika.yaml"), class: refusal.Invalid, text: "control character"},
		{name: "newline", draft: []changeset.Intent{write("x.nika.yaml\n+++ b/.git/config")}, class: refusal.Invalid, text: "control character"},
		{name: "ESC in a reply", format: "reply", input: reply("a\x1b[31mb.nika.yaml"), class: refusal.Invalid, text: "control character"},
		{name: "ESC in a patch", format: "patch", input: patchAdd("\x1b]0;pwned\x07.nika.yaml"), class: refusal.Invalid, text: "control character"},
		{name: "tab", format: "reply", input: reply("a\tb.nika.yaml"), class: refusal.Invalid, text: "control character"},
		{name: "carriage return", draft: []changeset.Intent{write("a\rb.nika.yaml")}, class: refusal.Invalid, text: "control character"},
		{name: "DEL", draft: []changeset.Intent{write("a\x7f.nika.yaml")}, class: refusal.Invalid, text: "control character"},
		{name: "C1 NEL", draft: []changeset.Intent{write("a\u0085.nika.yaml")}, class: refusal.Invalid, text: "control character"},
		// Lengths.
		{name: "path of 4,107 bytes", draft: []changeset.Intent{write(long)}, class: refusal.Invalid, text: "over the limit"},
		{name: "path of 4,096 bytes in a patch", format: "patch", input: patchAdd(strings.Repeat("d/", 2042) + "yy.nika.yaml"), class: refusal.Invalid, text: "over the limit"},
		{name: "component of 256 bytes", format: "reply", input: reply(c256), class: refusal.Invalid, text: "over the limit"},
		{name: "component of 256 bytes deep", format: "diff", input: diffAdd("dir/" + c256), class: refusal.Invalid, text: "over the limit"},
		// Invalid UTF-8.
		{name: "invalid UTF-8", draft: []changeset.Intent{write("\xff\xfe.nika.yaml")}, class: refusal.Invalid, text: "UTF-8"},
		{name: "invalid UTF-8 in a diff", format: "diff", input: diffAdd("\xc3.nika.yaml"), class: refusal.Invalid, text: "UTF-8"},
		{name: "invalid UTF-8 in a reply", format: "reply", input: reply("a\xe2\x28.nika.yaml"), class: refusal.Invalid, text: "UTF-8"},
		{name: "overlong dot dot", format: "patch", input: patchAdd("\xc0\xae\xc0\xae/x.nika.yaml"), class: refusal.Invalid, text: "UTF-8"},
		{name: "surrogate half", draft: []changeset.Intent{write("\xed\xa0\x80.nika.yaml")}, class: refusal.Invalid, text: "UTF-8"},
		// Windows reserved names.
		{name: "CON", format: "reply", input: reply("CON"), class: refusal.NotAllowed, text: "reserved"},
		{name: "nul.txt", format: "reply", input: reply("nul.txt"), class: refusal.NotAllowed, text: "reserved"},
		{name: "COM1", format: "patch", input: patchAdd("COM1"), class: refusal.NotAllowed, text: "reserved"},
		{name: "LPT9.md", format: "diff", input: diffAdd("LPT9.md"), class: refusal.NotAllowed, text: "reserved"},
		{name: "aux", format: "reply", input: reply("aux"), class: refusal.NotAllowed, text: "reserved"},
		{name: "Con.nika.yaml in a directory", format: "patch", input: patchAdd("dir/Con.nika.yaml"), class: refusal.NotAllowed, text: "reserved"},
		{name: "PRN as a directory", format: "reply", input: reply("prn/x.nika.yaml"), class: refusal.NotAllowed, text: "reserved"},
		{name: "COM superscript", format: "reply", input: reply("COM\u00b9.txt"), class: refusal.NotAllowed, text: "reserved"},
		// The hooks that judge an apply.
		{name: ".nika/hooks", format: "reply", input: reply(".nika/hooks/post-apply"), class: refusal.NotAllowed, text: "hooks"},
		{name: ".NIKA/Hooks", format: "patch", input: patchAdd(".NIKA/Hooks/x"), class: refusal.NotAllowed, text: "hooks"},
		{name: ".nika/hooks itself", format: "diff", input: diffAdd(".nika/hooks"), class: refusal.NotAllowed, text: "hooks"},
		{name: ".nika/HOOKS deep", format: "reply", input: reply(".nika/HOOKS/deep/x.nika.yaml"), class: refusal.NotAllowed, text: "hooks"},
		{name: "move into .nika/hooks", format: "patch", input: patchMove("a.nika.yaml", ".nika/hooks/post-apply.d/x"), class: refusal.NotAllowed, text: "hooks"},
		{name: "delete a hook", format: "patch", input: "*** Begin Patch\n*** Delete File: .nika/hooks/post-apply\n*** End Patch\n", class: refusal.NotAllowed, text: "hooks"},
		{name: ".nika. /hooks (Windows alias)", format: "reply", input: reply(".nika./hooks/x"), class: refusal.Invalid, text: "Windows drops"},
		{name: ".nika/hooks with ZWNJ (HFS+ alias)", format: "reply", input: reply(".nika/hook\u200cs/x"), class: refusal.NotAllowed, text: "invisible character U+200C"},
		// Issue 12's disguises: full case folding, every invisible code
		// point, short names for any N.
		{name: ".nika/hook\u017f (long s folds to s)", format: "reply", input: reply(".nika/hook\u017f/post-apply.d/evil"), class: refusal.NotAllowed, text: "inside .nika/hooks"},
		{name: ".NIKA/HOOK\u017f in a patch", format: "patch", input: patchAdd(".NIKA/HOOK\u017f/x"), class: refusal.NotAllowed, text: "inside .nika/hooks"},
		{name: ".nika/hoo\u212as (Kelvin sign)", format: "diff", input: diffAdd(".nika/hoo\u212as/x"), class: refusal.NotAllowed, text: "inside .nika/hooks"},
		{name: "move into .nika/hook\u017f", format: "patch", input: patchMove("a.nika.yaml", ".nika/hook\u017f/post-apply.d/x"), class: refusal.NotAllowed, text: "inside .nika/hooks"},
		{name: "NIKA~2/hooks", format: "reply", input: reply("NIKA~2/hooks/x"), class: refusal.NotAllowed, text: "short name of .nika"},
		{name: "nika~12/hooks", format: "patch", input: patchAdd("nika~12/hooks/x"), class: refusal.NotAllowed, text: "short name of .nika"},
		{name: ".git U+2060 (word joiner)", format: "reply", input: reply(".git\u2060/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git U+00AD (soft hyphen)", format: "patch", input: patchAdd(".git\u00ad/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git U+034F (grapheme joiner)", format: "diff", input: diffAdd(".git\u034f/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git U+180E (Mongolian vowel separator)", format: "reply", input: reply(".git\u180e/hooks/pre-commit"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git U+17B4 (Khmer inherent aq)", format: "patch", input: patchAdd(".git\u17b4/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git U+E0041 (tag A)", format: "reply", input: reply(".git\U000e0041/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git U+E007F (cancel tag)", format: "diff", input: diffAdd(".git\U000e007f/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: ".git U+E0001 (language tag)", format: "patch", input: patchAdd("sub/.git\U000e0001/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "git~2", format: "reply", input: reply("git~2/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "GIT~3", format: "patch", input: patchAdd("GIT~3/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "git~10 in a diff", format: "diff", input: diffAdd("git~10/hooks/pre-commit"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "GI7EBA~1 (hashed short name)", format: "reply", input: reply("GI7EBA~1/config"), class: refusal.NotAllowed, text: "inside .git"},
		{name: "word joiner in a name", format: "reply", input: reply("is\u2060admin.nika.yaml"), class: refusal.NotAllowed, text: "invisible character U+2060"},
		{name: "soft hyphen in a name", format: "patch", input: patchAdd("a\u00adb.nika.yaml"), class: refusal.NotAllowed, text: "invisible character U+00AD"},
		{name: "grapheme joiner after isAdmin", format: "diff", input: diffAdd("isAdmin\u034f.nika.yaml"), class: refusal.NotAllowed, text: "invisible character U+034F"},
		{name: "Mongolian vowel separator", format: "reply", input: reply("a\u180eb.nika.yaml"), class: refusal.NotAllowed, text: "invisible character U+180E"},
		{name: "Khmer inherent aa", format: "reply", input: reply("dir/a\u17b5.nika.yaml"), class: refusal.NotAllowed, text: "invisible character U+17B5"},
		{name: "tag characters spelling a name", format: "patch", input: patchAdd("x\U000e0065\U000e0076\U000e0069\U000e006c.nika.yaml"), class: refusal.NotAllowed, text: "invisible character U+E0065"},
		{name: "variation selector", format: "reply", input: reply("a\ufe0f.nika.yaml"), class: refusal.NotAllowed, text: "invisible character U+FE0F"},
		{name: "Hangul filler", format: "reply", input: reply("\u3164.nika.yaml"), class: refusal.NotAllowed, text: "invisible character U+3164"},
		{name: "Arabic number sign (Cf)", format: "reply", input: reply("a\u0600.nika.yaml"), class: refusal.NotAllowed, text: "invisible character U+0600"},
		{name: "two names of one set fold together", format: "reply", input: reply("lib2/hooks.nika.yaml", "lib2/hook\u017f.nika.yaml"), class: refusal.NotAllowed, text: "the same proposal also writes"},
		{name: "two directories of one set fold together", format: "patch", input: patchAdd("Stra\u00dfe/a.nika.yaml", "strasse/b.nika.yaml"), class: refusal.NotAllowed, text: "the same proposal also writes"},
		{name: "long s against the index", format: "reply", input: reply("doc\u017f.nika.yaml"), class: refusal.NotAllowed, text: "collides", fold: true},
		{name: "long s in a directory against the index", format: "patch", input: patchAdd("Tool\u017f/y.nika.yaml"), class: refusal.NotAllowed, text: "collides", fold: true},
		{name: "NIKA~1/hooks (8.3 alias of .nika)", format: "patch", input: patchAdd("NIKA~1/hooks/post-apply"), class: refusal.NotAllowed, text: "short name of .nika"},
		{name: ".nika/hooks. (Windows alias)", format: "patch", input: patchAdd(".nika/hooks./x"), class: refusal.Invalid, text: "Windows drops"},
	}
}

// TestHostileChangeSetsAreRefusedBeforeStaging proposes each case of the
// corpus and checks its refusal, its class and its text, and that nothing
// under the repository, .git included, changed: no object, no registry
// record, no index rewrite.
func TestHostileChangeSetsAreRefusedBeforeStaging(t *testing.T) {
	g, r := hostileRepo(t)
	classes := map[refusal.Class]int{}
	for _, tc := range hostileCorpus() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fold {
				foldCase(t, tc)
				classes[tc.class]++
				return
			}
			before := snapshot(t, g.Dir)
			err := propose(t, r, tc)
			checkRefusal(t, tc, err)
			classes[tc.class]++
			sameTree(t, "the repository", before, snapshot(t, g.Dir))
		})
	}
	if n := len(hostileCorpus()); n < 60 {
		t.Errorf("the corpus has %d cases, want at least 60", n)
	}
	t.Logf("%d cases: %v", len(hostileCorpus()), classes)
	g.Clean()
}

func propose(t *testing.T, r *gitstage.Repo, tc hostileCase) error {
	t.Helper()
	if tc.draft != nil {
		base, err := r.OpenBase()
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = changeset.Resolve(&changeset.Draft{Format: "draft", Intents: tc.draft}, base, changeset.Policy{Allow: []string{"**"}})
		return err
	}
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(tc.input), Format: tc.format, Allow: []string{"**"}})
	if err == nil && p.Empty() {
		t.Fatalf("the input proposed nothing; the case tests no path:\n%q", tc.input)
	}
	return err
}

func checkRefusal(t *testing.T, tc hostileCase, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want a %s refusal", tc.class)
	}
	if c := refusal.ClassOf(err); c != tc.class {
		t.Errorf("class = %s, want %s: %v", c, tc.class, err)
	}
	if !strings.Contains(err.Error(), tc.text) {
		t.Errorf("the refusal does not say %q: %v", tc.text, err)
	}
	var ce *refusal.Error
	if errors.As(err, &ce) && ce.Hint == "" {
		t.Errorf("the refusal has no fix: %v", err)
	}
}

// foldCase runs a collision with an existing index entry on a repository of
// its own (an accepted proposal writes objects and a record). The check
// itself (changeset.CheckFolds over gitstage's Base) must refuse; the end to
// end refusal needs changeset.Resolve to call it.
func foldCase(t *testing.T, tc hostileCase) {
	g, r := hostileRepo(t)
	before := snapshot(t, g.Dir)
	draft, err := flow.Parse([]byte(tc.input), tc.format, 0)
	if err != nil {
		t.Fatal(err)
	}
	base, err := r.OpenBase()
	if err != nil {
		t.Fatal(err)
	}
	changes, _, err := changeset.Resolve(draft, base, changeset.Policy{Allow: []string{"**"}})
	if err == nil {
		err = changeset.CheckFolds(base, changes)
	}
	checkRefusal(t, tc, err)
	err = propose(t, r, tc)
	if err == nil {
		t.Fatal("changeset.Resolve does not call changeset.CheckFolds, so a path that differs from an index entry only in case or normalization is staged")
	}
	checkRefusal(t, tc, err)
	sameTree(t, "the repository", before, snapshot(t, g.Dir))
}

// TestFoldsAgainstTheIndex checks gitstage's Base.Folds through
// changeset.CheckFolds on the hostile fixture: names that differ from an
// index entry or directory only in case or normalization collide, at any
// depth; fresh names, exact names and case-only renames do not.
func TestFoldsAgainstTheIndex(t *testing.T) {
	_, r := hostileRepo(t)
	base, err := r.OpenBase()
	if err != nil {
		t.Fatal(err)
	}
	side := changeset.NewSide([]byte("x\n"), changeset.ModeFile, "")
	create := func(p string) []changeset.Change {
		return []changeset.Change{{Kind: changeset.Create, Path: changeset.Path(p), After: side}}
	}
	for p, want := range map[string]string{
		"docs.nika.yaml":        "Docs.nika.yaml",
		"DOCS.NIKA.YAML":        "Docs.nika.yaml",
		"cafe\u0301.nika.yaml":  "caf\u00e9.nika.yaml",
		"CAF\u00c9.nika.yaml":   "caf\u00e9.nika.yaml",
		"tools/y.nika.yaml":     "Tools",
		"TOOLS/X.nika.yaml":     "Tools",
		"DIR/c.nika.yaml":       "dir",
		"Dir/sub/c.nika.yaml":   "dir",
		".NIKA/x.nika.yaml":     ".nika",
		".nika/HOOKS2/x":        "",
		"Lib/x":                 "lib",
		"A.nika.yaml":           "a.nika.yaml",
		"S":                     "s",
		"Tools/z.nika.yaml":     "",
		"Tools/X2.nika.yaml":    "",
		"dir/c.nika.yaml":       "",
		"tools2/x.nika.yaml":    "",
		"caf\u00e9/x.nika.yaml": "",
		"zzz.nika.yaml":         "",
		".nika/other.nika.yaml": "",
	} {
		err := changeset.CheckFolds(base, create(p))
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: refused: %v", p, err)
		case want != "" && (refusal.ClassOf(err) != refusal.NotAllowed || !strings.Contains(err.Error(), changeset.Quote(want))):
			t.Errorf("%q: err = %v, want a collision with %q", p, err, want)
		}
	}
	rename := []changeset.Change{{Kind: changeset.Move, From: "Docs.nika.yaml", Path: "docs.nika.yaml", Before: side, After: side}}
	if err := changeset.CheckFolds(base, rename); err != nil {
		t.Errorf("a case-only rename was refused: %v", err)
	}
	update := []changeset.Change{{Kind: changeset.Update, Path: "Docs.nika.yaml", Before: side, After: side}}
	if err := changeset.CheckFolds(base, update); err != nil {
		t.Errorf("an update of the exact name was refused: %v", err)
	}
}

// applyRepo commits a directory and a file, then proposes a create in the
// directory, a create in a new directory and an update of the file.
func applyRepo(t *testing.T, input string) (*gittest.Repo, *gitstage.Repo, *flow.Proposed, string) {
	t.Helper()
	g := gittest.New(t)
	g.Write("dir/a.nika.yaml", "nika: a1\n")
	g.Write("top.nika.yaml", "nika: top1\n")
	head := g.Commit("v1")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(input), Allow: []string{"**"}})
	if err != nil {
		t.Fatal(err)
	}
	return g, r, p, head
}

// outside is a directory beside the repository that a symlink may point
// at, with one file in it.
func outside(t *testing.T, g *gittest.Repo) string {
	t.Helper()
	o := filepath.Join(filepath.Dir(g.Dir), "outside")
	if err := os.MkdirAll(o, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(o, "victim.nika.yaml"), []byte("nika: top1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return o
}

func replaceWithSymlink(t *testing.T, g *gittest.Repo, rel, target string) {
	t.Helper()
	p := filepath.Join(g.Dir, filepath.FromSlash(rel))
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// TestSymlinksPlantedAfterProposeAreRefusedAtApply plants a symlink between
// the preview and the yes: at a parent of a create, at a create's own path,
// and at an updated file. The apply must refuse, follow nothing, and write
// nothing: not in the repository, not in .git, not where the link points.
func TestSymlinksPlantedAfterProposeAreRefusedAtApply(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		plant func(t *testing.T, g *gittest.Repo, out string)
		class refusal.Class
		text  string
	}{
		{
			name:  "parent directory becomes a symlink out of the root",
			input: reply("dir/new.nika.yaml"),
			plant: func(t *testing.T, g *gittest.Repo, out string) { replaceWithSymlink(t, g, "dir", out) },
			class: refusal.NotAllowed, text: "symlink",
		},
		{
			name:  "new parent directory planted as a symlink to .git",
			input: reply("newdir/config", "newdir/hooks/pre-commit"),
			plant: func(t *testing.T, g *gittest.Repo, out string) { replaceWithSymlink(t, g, "newdir", ".git") },
			class: refusal.NotAllowed, text: "symlink",
		},
		{
			name:  "parent directory becomes a symlink to .git/hooks",
			input: reply("dir/pre-commit"),
			plant: func(t *testing.T, g *gittest.Repo, out string) { replaceWithSymlink(t, g, "dir", "../.git/hooks") },
			class: refusal.NotAllowed, text: "symlink",
		},
		{
			name:  "parent of an update becomes a symlink to the same bytes",
			input: reply("dir/a.nika.yaml"),
			plant: func(t *testing.T, g *gittest.Repo, out string) {
				if err := os.WriteFile(filepath.Join(out, "a.nika.yaml"), []byte("nika: a1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				replaceWithSymlink(t, g, "dir", out)
			},
			class: refusal.NotAllowed, text: "symlink",
		},
		{
			name:  "a symlink at a create's path",
			input: reply("new.nika.yaml"),
			plant: func(t *testing.T, g *gittest.Repo, out string) {
				replaceWithSymlink(t, g, "new.nika.yaml", filepath.Join(out, "victim.nika.yaml"))
			},
			class: refusal.StaleRevision, text: "now exists",
		},
		{
			name:  "a dangling symlink at a create's path",
			input: reply("new.nika.yaml"),
			plant: func(t *testing.T, g *gittest.Repo, out string) {
				replaceWithSymlink(t, g, "new.nika.yaml", filepath.Join(out, "not-yet.nika.yaml"))
			},
			class: refusal.StaleRevision, text: "now exists",
		},
		{
			name:  "an updated file becomes a symlink to the same bytes",
			input: reply("top.nika.yaml"),
			plant: func(t *testing.T, g *gittest.Repo, out string) {
				replaceWithSymlink(t, g, "top.nika.yaml", filepath.Join(out, "victim.nika.yaml"))
			},
			class: refusal.StaleRevision, text: "no longer a regular file",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, r, p, head := applyRepo(t, tc.input)
			out := outside(t, g)
			tc.plant(t, g, out)
			before, beforeOut := snapshot(t, g.Dir), snapshot(t, out)
			_, err := flow.Apply(flow.FromGit(r), p, consent.Options{})
			if err == nil {
				t.Fatal("apply followed the planted symlink")
			}
			if c := refusal.ClassOf(err); c != tc.class || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("refusal = %s %v, want %s with %q", c, err, tc.class, tc.text)
			}
			if !strings.Contains(err.Error(), "nothing was applied") {
				t.Errorf("the refusal does not say nothing was applied: %v", err)
			}
			after := snapshot(t, g.Dir)
			if rec := ".git/nika/proposals/" + p.Proposal.ID + ".json"; before[rec] != after[rec] {
				// flow.Apply marks the record stale on StaleRevision.
				delete(before, rec)
				delete(after, rec)
				t.Errorf("a refused apply rewrote its registry record")
			}
			sameTree(t, "the repository", before, after)
			sameTree(t, "the directory outside", beforeOut, snapshot(t, out))
			if h := g.Git("rev-parse", "HEAD"); h != head {
				t.Errorf("HEAD moved to %s", h)
			}
			g.Git("fsck", "--strict")
		})
	}
}

// TestSymlinkPlantedDuringApplyIsNeverFollowed plants a symlink at a
// parent directory after the witnesses were verified, right before the
// first write: the write must not pass through it, and the transaction
// rolls back.
func TestSymlinkPlantedDuringApplyIsNeverFollowed(t *testing.T) {
	g, r, p, head := applyRepo(t, reply("dir/new.nika.yaml", "top.nika.yaml"))
	out := outside(t, g)
	var before map[string]string
	_, err := flow.Apply(flow.FromGit(r), p, consent.Options{Fault: func(step string, i int) error {
		if step == "write" && i == 0 {
			replaceWithSymlink(t, g, "dir", out)
			before = snapshot(t, out)
		}
		return nil
	}})
	if err == nil {
		t.Fatal("apply wrote through a symlink planted during the apply")
	}
	if !strings.Contains(err.Error(), "nothing was applied") {
		t.Errorf("the refusal does not say nothing was applied: %v", err)
	}
	sameTree(t, "the directory outside", before, snapshot(t, out))
	if h := g.Git("rev-parse", "HEAD"); h != head {
		t.Errorf("HEAD moved to %s", h)
	}
	if got := g.Read("top.nika.yaml"); got != "nika: top1\n" {
		t.Errorf("top.nika.yaml = %q after the rollback", got)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "index.lock")); err == nil {
		t.Error("index.lock was left behind")
	}
	g.Git("fsck", "--strict")
}

// TestObstaclesOnlyOnDiskAreRefusedAtPropose puts an untracked directory
// where the set writes a file. The preview must not be offered for a set
// that no apply can carry out: the refusal belongs to propose, with the
// fix, and never to apply as a false "the project changed".
func TestObstaclesOnlyOnDiskAreRefusedAtPropose(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(g *gittest.Repo)
		input string
	}{
		{
			name:  "an untracked directory with a file",
			setup: func(g *gittest.Repo) { g.Write("build/out.txt", "x\n") },
			input: reply("build"),
		},
		{
			name: "an empty untracked directory",
			setup: func(g *gittest.Repo) {
				if err := os.Mkdir(filepath.Join(g.Dir, "build"), 0o755); err != nil {
					g.T.Fatal(err)
				}
			},
			input: reply("build"),
		},
		{
			name:  "a tracked directory the set empties, with an untracked file left in it",
			setup: func(g *gittest.Repo) { g.Write("dir/junk.txt", "untracked\n") },
			input: "```\n*** Begin Patch\n*** Delete File: dir/a.nika.yaml\n*** End Patch\n```\n" + "```yaml path=dir\nnika: x\n```\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gittest.New(t)
			g.Write("dir/a.nika.yaml", "nika: a1\n")
			head := g.Commit("v1")
			tc.setup(g)
			before := snapshot(t, g.Dir)
			r, err := gitstage.Open(g.Dir)
			if err != nil {
				t.Fatal(err)
			}
			p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(tc.input), Format: "reply", Allow: []string{"**"}})
			if err == nil {
				_, aerr := flow.Apply(flow.FromGit(r), p, consent.Options{})
				if aerr == nil {
					t.Fatal("applied over an untracked directory")
				}
				if h := g.Git("rev-parse", "HEAD"); h != head {
					t.Fatalf("HEAD moved to %s", h)
				}
				// The refused apply must leave the working tree as it was.
				after := snapshot(t, g.Dir)
				for _, m := range []map[string]string{before, after} {
					for k := range m {
						if k == ".git" || strings.HasPrefix(k, ".git/") {
							delete(m, k)
						}
					}
				}
				sameTree(t, "the working tree", before, after)
				g.Git("fsck", "--strict")
				t.Fatalf("propose accepts a file where only the disk has a directory; every apply then refuses with %s %q", refusal.ClassOf(aerr), aerr)
			}
			t.Logf("refused: %s: %v", refusal.ClassOf(err), err)
			if c := refusal.ClassOf(err); c != refusal.Dirty && c != refusal.NotAllowed {
				t.Errorf("class = %s, want Dirty or NotAllowed: %v", c, err)
			}
			sameTree(t, "the repository", before, snapshot(t, g.Dir))
		})
	}
}

// TestNestedRepositoryIsRefused proposes a file inside an untracked nested
// repository (a clone inside the worktree). git add silently skips such a
// path, since the directory belongs to the other repository; nika must not
// write into it or track it either.
func TestNestedRepositoryIsRefused(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.nika.yaml", "nika: a1\n")
	head := g.Commit("v1")
	n := &gittest.Repo{T: t, Dir: filepath.Join(g.Dir, "vendor", "lib")}
	g.Git("init", "-q", "-b", "main", n.Dir)
	n.Write("in.txt", "nested\n")
	n.Commit("nested")
	before, nested := snapshot(t, g.Dir), n.Git("status", "--porcelain")
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(reply("vendor/lib/x.nika.yaml")), Format: "reply"})
	if err == nil {
		if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err == nil {
			if s := n.Git("status", "--porcelain"); s != nested {
				t.Logf("the nested repository's status is now %q", s)
			}
			t.Fatal("nika writes and tracks a file inside an untracked nested repository (git add skips such paths)")
		}
		if h := g.Git("rev-parse", "HEAD"); h != head {
			t.Fatalf("HEAD moved to %s", h)
		}
		return
	}
	t.Logf("refused: %s: %v", refusal.ClassOf(err), err)
	if c := refusal.ClassOf(err); c != refusal.NotAllowed && c != refusal.Unsupported {
		t.Errorf("class = %s, want NotAllowed or Unsupported", c)
	}
	sameTree(t, "the repository", before, snapshot(t, g.Dir))
}
