package flow_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage/gittest"
)

// TestConversionDifferential is the differential test of git's
// conversions (issue 25, docs/line-endings.md): over a matrix of
// repositories that git converts (eol=crlf, core.autocrlf=true and input, a
// clean/smudge filter, Git LFS) and of reply formats (fenced file,
// unified diff, search/replace, apply_patch), nika's propose and apply
// and git's own commands make the same change in two copies of one
// repository, and must leave the same tree (HEAD^{tree}), the same index
// (git ls-files -s), the same bytes on disk, a clean git status and a
// clean git fsck --strict. git's side is `git apply --index && git
// commit` of the same diff where line endings alone convert (git applies
// to the index's form, as nika does); under a filter, where the index
// holds the filter's output (a pointer, a ciphertext), it is the edit a
// human makes to the file on disk and `git add && git commit`.
func TestConversionDifferential(t *testing.T) {
	type config struct {
		name   string
		setup  func(g *gittest.Repo)
		filter bool // git's side is an edit and git add, not git apply --index
	}
	configs := []config{
		{name: "eol=crlf", setup: func(g *gittest.Repo) { g.Write(".gitattributes", "*.txt text eol=crlf\n") }},
		{name: "autocrlf=true", setup: func(g *gittest.Repo) { g.Git("config", "core.autocrlf", "true") }},
		{name: "autocrlf=input", setup: func(g *gittest.Repo) { g.Git("config", "core.autocrlf", "input") }},
		{name: "clean/smudge", filter: true, setup: func(g *gittest.Repo) {
			g.Git("config", "filter.up.clean", "tr a-z A-Z")
			g.Git("config", "filter.up.smudge", "tr A-Z a-z")
			g.Write(".gitattributes", "*.txt filter=up\n")
		}},
	}
	if _, err := exec.LookPath("git-lfs"); err == nil {
		configs = append(configs, config{name: "lfs", filter: true, setup: func(g *gittest.Repo) {
			g.Git("lfs", "install", "--local")
			g.Write(".gitattributes", "*.txt filter=lfs diff=lfs merge=lfs -text\n")
		}})
	} else {
		t.Log("git-lfs is not installed: the LFS row is not tested here")
	}
	const base, after, added = "one\ntwo\nthree\n", "one\n2\nthree\n", "new\n"
	crlfDiff := strings.ReplaceAll("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n", "\n", "\r\n")
	formats := []struct {
		name, input string
		adds        bool
		crlf        bool // a diff whose lines carry the disk's CRLF
	}{
		{"fenced", "```text path=a.txt\n" + after + "```\n```text path=b.txt\n" + added + "```\n", true, false},
		{"udiff", "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n", true, false},
		{"search-replace", "a.txt\n```\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n```\n", false, false},
		// git apply --index refuses this one (the index holds LF); git
		// apply without --index applies it to the working tree (keeping
		// its CRLF) and git add normalizes: nika does the same.
		{"udiff-crlf", crlfDiff, false, true},
		{"apply_patch", "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n three\n*** Add File: b.txt\n+new\n*** End Patch\n", true, false},
	}
	for _, cfg := range configs {
		for _, f := range formats {
			if f.crlf && (cfg.filter || cfg.name == "autocrlf=input") {
				continue // the disk holds no CRLF there
			}
			t.Run(cfg.name+"/"+f.name, func(t *testing.T) {
				g := gittest.New(t)
				cfg.setup(g)
				g.Write("a.txt", base)
				g.Commit("base")
				// A fresh checkout, as a clone would have it.
				g.Git("rm", "-q", "--cached", "-r", ".")
				g.Git("reset", "-q", "--hard")
				g.Clean()
				ref := &gittest.Repo{T: t, Dir: filepath.Join(t.TempDir(), "ref")}
				if out, err := exec.Command("cp", "-a", g.Dir, ref.Dir).CombinedOutput(); err != nil {
					t.Fatalf("copy: %v %s", err, out)
				}
				ref.Git("update-index", "-q", "--refresh") // the copy has new stat data

				// nika
				r := openRepo(t, g.Dir)
				p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(f.input), Goal: "change", Allow: []string{"**"}})
				if err != nil {
					t.Fatalf("propose: %v", err)
				}
				if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
					t.Fatalf("apply: %v", err)
				}

				// git
				switch {
				case f.crlf:
					pf := filepath.Join(t.TempDir(), "change.diff")
					os.WriteFile(pf, []byte(crlfDiff), 0o644)
					if _, err := ref.TryGit("apply", "--index", "--check", pf); err == nil {
						t.Fatal("git apply --index applies a CRLF diff to an LF index: the premise of this row is gone")
					}
					ref.Git("apply", pf)
					ref.Git("add", "-A")
				case cfg.filter:
					ref.Write("a.txt", after)
					if f.adds {
						ref.Write("b.txt", added)
					}
					ref.Git("add", "-A")
				default:
					diff := "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
					if f.adds {
						diff += "--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n"
					}
					pf := filepath.Join(t.TempDir(), "change.diff")
					os.WriteFile(pf, []byte(diff), 0o644)
					ref.Git("apply", "--index", pf)
				}
				ref.Git("commit", "-q", "-m", "change")

				if a, b := g.Git("rev-parse", "HEAD^{tree}"), ref.Git("rev-parse", "HEAD^{tree}"); a != b {
					t.Errorf("HEAD^{tree}: nika %s, git %s\nnika:\n%s\ngit:\n%s", a, b, g.Git("ls-tree", "-r", "HEAD"), ref.Git("ls-tree", "-r", "HEAD"))
				}
				if a, b := g.Git("ls-files", "-s"), ref.Git("ls-files", "-s"); a != b {
					t.Errorf("git ls-files -s: nika\n%s\ngit\n%s", a, b)
				}
				for _, path := range []string{"a.txt", "b.txt", ".gitattributes"} {
					if a, b := g.Read(path), ref.Read(path); a != b {
						t.Errorf("%s on disk: nika %q, git %q", path, a, b)
					}
				}
				g.Clean()
				ref.Clean()
			})
		}
	}
}
