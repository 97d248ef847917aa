package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHelpScriptCoversEveryVerb keeps cli_help.txtar in step with the
// command tree: every verb's --help is run there.
func TestHelpScriptCoversEveryVerb(t *testing.T) {
	b, err := os.ReadFile("testdata/script/cli_help.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range (&door{name: "nika"}).commands() {
		if c.Name == "help" {
			continue
		}
		if !bytes.Contains(b, []byte("exec nika "+c.Name+" --help")) && !bytes.Contains(b, []byte("exec nika "+c.Name+" -h")) {
			t.Errorf("cli_help.txtar does not run nika %s --help", c.Name)
		}
	}
}

// TestInstallBothNames runs the README's install command into a private
// GOBIN and man directory, then drives nika as git does: git nika VERB
// through git-nika, and git nika --help through the git-nika(1) page.
func TestInstallBothNames(t *testing.T) {
	for _, p := range []string{"git", "sh", "go"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed: the install command needs it", p)
		}
	}
	if testing.Short() {
		t.Skip("-short: the install builds nika")
	}
	tmp := t.TempDir()
	bin, man, home := filepath.Join(tmp, "bin"), filepath.Join(tmp, "man"), filepath.Join(tmp, "home")
	os.MkdirAll(home, 0o755)
	env := append(os.Environ(), "GOBIN="+bin, "MANDIR="+man, "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"))
	// A new HOME would give go an empty build and module cache (both
	// default under HOME): the install would rebuild every dependency, and
	// fetch them. The test is of the install script, not of a cold cache.
	env = append(env, goCaches(t)...)
	inst := exec.Command("sh", "../../scripts/install.sh")
	inst.Env = env
	if out, err := inst.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	for _, name := range []string{"nika", "git-nika"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			t.Fatalf("the install did not install %s: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(man, "man1", name+".1")); err != nil {
			t.Fatalf("the install did not install the man page %s.1: %v", name, err)
		}
	}
	repo := filepath.Join(tmp, "repo")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "MANPATH="+man, "MANPAGER=cat", "PAGER=cat", "GIT_PAGER=cat", "MANWIDTH=80")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	os.MkdirAll(repo, 0o755)
	git("init", "-q")
	if out := git("nika", "--version"); !strings.HasPrefix(out, "nika version ") {
		t.Errorf("git nika --version printed %q", out)
	}
	if out := git("nika", "help"); !strings.Contains(out, "usage: git nika ") {
		t.Errorf("git nika help does not name itself git nika:\n%s", out)
	}
	if out := git("nika", "list"); !strings.Contains(out, "no pending proposals") {
		t.Errorf("git nika list printed %q", out)
	}
	if _, err := exec.LookPath("man"); err != nil {
		t.Logf("man is not installed: git nika --help (the man page) is not checked")
		return
	}
	if out := git("nika", "--help"); !strings.Contains(out, "GIT-NIKA(1)") || !strings.Contains(out, "git nika") {
		t.Errorf("git nika --help did not show git-nika(1):\n%s", out)
	}
}

// TestBashCompletion sources the bash script and asks it, as bash does at a
// tab.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	script := bashCompletion((&door{name: "nika"}).commands())
	for _, tc := range []struct {
		words string
		want  []string
		not   []string
	}{
		{"nika pro", []string{"propose"}, []string{"show"}},
		{"nika ", []string{"apply", "verify", "--json", "--no-pager"}, nil},
		{"nika propose --g", []string{"--goal"}, []string{"--only"}},
		{"nika apply --o", []string{"--only"}, nil},
		{"nika help re", []string{"revert", "recover"}, []string{"apply"}},
		{"nika completion ", []string{"bash", "zsh", "fish"}, nil},
		{"git nika ver", []string{"verify"}, nil},
	} {
		words := strings.Fields(tc.words)
		if strings.HasSuffix(tc.words, " ") {
			words = append(words, "")
		}
		fn := "_nika"
		if words[0] == "git" {
			fn = "_git_nika"
		}
		var q []string
		for _, w := range words {
			q = append(q, "'"+w+"'")
		}
		prog := script + "\nCOMP_WORDS=(" + strings.Join(q, " ") + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n" + fn + "\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command("bash", "-c", prog)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", tc.words, err, out)
		}
		got := strings.Fields(string(out))
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q completes to %v, want %s among them", tc.words, got, w)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, w) {
				t.Errorf("%q completes to %v, which should not hold %s", tc.words, got, w)
			}
		}
	}
}

// TestZshAndFishCompletionParse checks the other two scripts with their
// shells' own parsers, where the shells are installed.
func TestZshAndFishCompletionParse(t *testing.T) {
	cmds := (&door{name: "nika"}).commands()
	for _, sh := range []struct{ name, script string }{{"zsh", zshCompletion(cmds)}, {"fish", fishCompletion(cmds)}} {
		if _, err := exec.LookPath(sh.name); err != nil {
			t.Logf("%s is not installed: its completion script is not parsed", sh.name)
			continue
		}
		cmd := exec.Command(sh.name, "-n")
		cmd.Stdin = strings.NewReader(sh.script)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", sh.name, err, out)
		}
	}
}

// goCaches is the go command's own cache settings, as NAME=VALUE, for a
// child whose HOME is not the test's.
func goCaches(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(vals) != 3 {
		t.Fatalf("go env printed %q", out)
	}
	return []string{"GOCACHE=" + vals[0], "GOMODCACHE=" + vals[1], "GOPATH=" + vals[2]}
}
