package refusal

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// doorWord is a door's own word: a verb of the nika CLI, or a flag. A
// library package that says one in a text tells the human of another door
// (the session, an agent over MCP) to do something it cannot do there.
var doorWord = regexp.MustCompile(`\b(?:git )?nika (?:propose|show|apply|discard|list|check|explain|log|verify|revert|push|fetch|recover|serve|help|rebase|review|mcp|completion|run)\b|--[a-z][a-z-]+`)

// othersWords: a flag that follows the name of git's (or gpg's) own
// command in the same clause is that program's word, not nika's: "git
// restore --staged", "gpg --import", a "diff --git" header. So is an
// option of the session's own /run command, which the session machine
// parses and explains.
var othersWords = regexp.MustCompile(`(?:\bgit [a-z][a-z-]*|\bgpg(?:sm)?|\bdiff|(?:^|\s)/run)\b[^;·]*$`)

// argvAllowed are whole string literals that are arguments a library
// passes to another program (git, gpg) or data about other programs'
// flags, by file: the program's words, never shown as a fix.
var argvAllowed = map[string]map[string]string{
	"gitstage/status.go": {
		"--porcelain=v1": "git status's argv", "--no-renames": "git status's argv",
		"--untracked-files=normal": "git status's argv", "--ignore-submodules=none": "git status's argv",
	},
	"gitstage/sign.go": {
		"--status-fd=2": "gpg's argv", "--status-fd=1": "gpg's argv", "--verify": "gpg's argv",
		"--keyid-format=long": "gpg's argv",
	},
	"gitstage/gittest/synth/synth.go": {
		"--quiet": "git fast-import's argv", "--window=10": "git repack's argv", "--depth=50": "git repack's argv",
		"--hard": "git reset's argv", "--porcelain": "git status's argv",
	},
	"gitstage/gittest/gittest.go": {
		"--porcelain": "git status's argv", "--strict": "git fsck's argv",
	},
	// The checker's table of what other programs' flags do (find -exec,
	// jq --from-file): data about their words.
	"checker/authority.go": {
		"--exec": "find's flag", "--execdir": "find's flag", "--command": "a shell's flag", "--eval": "a shell's flag",
		"--upload-pack": "git's flag", "--receive-pack": "git's flag", "--config": "git's flag",
		"--from-file": "jq's flag", "--library-path": "jq's flag", "--rawfile": "jq's flag", "--slurpfile": "jq's flag",
	},
	// The session's own /run command takes this option: the session's
	// word, parsed and explained by the session machine.
	"session/commands.go": {
		"--max-cost-usd": "the session's /run option",
	},
}

// doors are the packages that speak to a human or a host in their own
// words (docs/architecture.md): the CLI under cmd/, the words each door
// says for a Fix (doorwords), the MCP server, the stdio protocol, the
// terminal and the review screen. Every other package is a library.
var doors = map[string]bool{"cmd": true, "doorwords": true, "mcp": true, "protocol": true, "terminal": true, "review": true}

// TestLibrariesSpeakNoDoorWords: library packages carry data (which path,
// which input, which limit) and, where the fix is a door's action, a Fix;
// each door words it (package doorwords). So no string literal in a
// non-test Go file outside the doors names a nika verb or a flag, except
// a flag of git's own commands.
func TestLibrariesSpeakNoDoorWords(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not the parent of refusal/: %v", err)
	}
	files := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case doors[rel], d.Name() == "testdata", rel != "." && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
				return true
			}
			for _, w := range doorWords(rel, s) {
				t.Errorf("%s: %q names the door word %q: carry the data, and set a refusal.Fix that each door words", fset.Position(lit.Pos()), s, w)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d library files scanned under %s: the walk is wrong", files, root)
	}
}

// doorWords are the door words in the literal s of the file rel.
func doorWords(rel, s string) []string {
	if _, ok := argvAllowed[rel][s]; ok {
		return nil
	}
	var out []string
	for _, m := range doorWord.FindAllStringIndex(s, -1) {
		w := s[m[0]:m[1]]
		if strings.HasPrefix(w, "--") && othersWords.MatchString(s[:m[0]]) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// TestDoorWordsRule pins the rule itself: what it finds, and what it lets
// pass as git's (or gpg's) own words.
func TestDoorWordsRule(t *testing.T) {
	for _, c := range []struct {
		file, s string
		want    []string
	}{
		{"x.go", "run nika list to see the ids", []string{"nika list"}},
		{"x.go", "if you want it, run again with --allow docs/a.md", []string{"--allow"}},
		{"x.go", "split it, or raise the limit with --max-input", []string{"--max-input"}},
		{"x.go", "use git nika apply", []string{"git nika apply"}},
		{"x.go", "nika run flows/a.nika.yaml", []string{"nika run"}},
		{"x.go", "nika runs", nil},
		{"x.go", "commit it, or unstage it with git restore --staged a.txt", nil},
		{"x.go", "git cherry-pick --continue or --abort", nil},
		{"x.go", "the input holds no diff: no file section (a diff --git line, or --- and +++ lines)", nil},
		{"x.go", "import it (gpg --import)", nil},
		{"x.go", "run git fsck --strict; then propose again with --allow", []string{"--allow"}},
		{"x.go", "--porcelain", []string{"--porcelain"}},
		{"gitstage/status.go", "--porcelain=v1", nil},
		{"session/commands.go", "--max-cost-usd", nil},
		{"x.go", "/run's --max-cost-usd takes a number", nil},
		{"x.go", "/run WORKFLOW [NAME=VALUE]... [--max-cost-usd N]", nil},
		{"x.go", "run it with --max-cost-usd 2", []string{"--max-cost-usd"}},
	} {
		got := doorWords(c.file, c.s)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("doorWords(%q, %q) = %q, want %q", c.file, c.s, got, c.want)
		}
	}
}
