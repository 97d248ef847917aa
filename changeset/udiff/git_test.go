package udiff

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// The real git is the independent client: for pairs of commits A and B, the
// draft of `git diff A B`, applied through its Edits to A's files, must give
// B's files byte for byte.

// tree is a commit's files: path -> bytes.
type tree map[string][]byte

// applyDraft resolves a draft over a plain map of files, the way propose
// resolves it over HEAD, and returns the files after its changes.
func applyDraft(d *changeset.Draft, files tree) (tree, error) {
	changes, _, err := changeset.Resolve(d, treeBase(files), changeset.Policy{Allow: []string{"**"}})
	if err != nil {
		return nil, err
	}
	out := tree{}
	for p, b := range files {
		out[p] = b
	}
	for _, c := range changes {
		switch c.Kind {
		case changeset.Delete:
			delete(out, string(c.Path))
		case changeset.Move:
			delete(out, string(c.From))
			out[string(c.Path)] = c.After.Bytes
		default:
			out[string(c.Path)] = c.After.Bytes
		}
	}
	return out, nil
}

// treeBase is a changeset.Base over a tree: a path is a File if the tree
// holds it, a Dir if it is a prefix of one, else Absent.
type treeBase tree

func (m treeBase) Entry(p changeset.Path) (changeset.Entry, error) {
	if b, ok := m[string(p)]; ok {
		return changeset.Entry{Kind: changeset.File, Mode: changeset.ModeFile, Bytes: b}, nil
	}
	for k := range m {
		if strings.HasPrefix(k, string(p)+"/") {
			return changeset.Entry{Kind: changeset.Dir, Mode: changeset.ModeDir}, nil
		}
	}
	return changeset.Entry{Kind: changeset.Absent}, nil
}

func (m treeBase) Files(dir changeset.Path) ([]changeset.Path, error) {
	var out []changeset.Path
	for k := range m {
		if strings.HasPrefix(k, string(dir)+"/") {
			out = append(out, changeset.Path(k))
		}
	}
	return out, nil
}

func git(t testing.TB, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// readTree reads every file of commit c.
func readTree(t *testing.T, dir, c string) tree {
	files := tree{}
	for _, rec := range bytes.Split(git(t, dir, "ls-tree", "-r", "-z", c), []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, path, _ := bytes.Cut(rec, []byte("\t"))
		oid := string(bytes.Fields(meta)[2])
		files[string(path)] = git(t, dir, "cat-file", "blob", oid)
	}
	return files
}

// commit replaces the worktree's files with fs and commits them.
func commit(t *testing.T, dir string, fs tree) string {
	t.Helper()
	git(t, dir, "rm", "-rq", "--ignore-unmatch", ".")
	for p, b := range fs {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "c")
	return strings.TrimSpace(string(git(t, dir, "rev-parse", "HEAD")))
}

func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

func withLines(s string, edits map[int]string) []byte {
	ls := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for i, l := range ls {
		if r, ok := edits[i+1]; ok {
			b.WriteString(r)
			continue
		}
		b.WriteString(l)
	}
	return []byte(b.String())
}

// history is a few commits that exercise every kind of section git writes.
func history() []tree {
	a := numbered("alpha", 40)
	code := numbered("func", 60)
	ren := numbered("moving line", 25)
	dup := strings.Repeat("same\nsame\nsame\n", 6) + "end\n"
	c0 := tree{
		"a.txt":             []byte(a),
		"src/b.go":          []byte(code),
		"nonl.txt":          []byte("one\ntwo\nthree"),
		"crlf.txt":          []byte("one\r\ntwo\r\nthree\r\nfour\r\n"),
		"del.txt":           []byte("to be deleted\nsecond\n"),
		"ren.txt":           []byte(ren),
		"sp ace.txt":        []byte("spaced\n"),
		"t ab":              []byte("tab\n"),
		"ü.txt":             []byte("umlaut\n"),
		"q\"uote":           []byte("quote\n"),
		"empty.txt":         {},
		"dup.txt":           []byte(dup),
		"deep/er/file.nika": []byte("x: 1\n"),
		"to-empty.txt":      []byte("content\nmore\n"),
		"del-nonl.txt":      []byte("no newline here"),
		"blank-lines.txt":   []byte("\n\n\na\n\n\n"),
	}
	c1 := tree{
		"a.txt":             withLines(a, map[int]string{1: "ALPHA 1\n", 20: "alpha 20 changed\nand added\n", 40: ""}),
		"src/b.go":          withLines(code, map[int]string{5: "", 6: "", 30: "func 30\ninserted\n", 58: "func 58!\n"}),
		"nonl.txt":          []byte("one\ntwo\nTHREE"),
		"crlf.txt":          []byte("one\r\nTWO\r\nthree\r\nfour\r\nfive\r\n"),
		"dir/ren2.txt":      withLines(ren, map[int]string{12: "moved and changed\n"}),
		"sp ace 2.txt":      []byte("spaced\n"),
		"t ab":              []byte("tab changed\n"),
		"ü.txt":             []byte("umlaut\n"),
		"r e n":             []byte("quote\n"),
		"new.txt":           []byte("brand\nnew\n"),
		"new-nonl.txt":      []byte("no newline"),
		"new-empty.txt":     {},
		"dup.txt":           []byte(strings.Replace(dup, "end\n", "END\n", 1)),
		"deep/er/file.nika": []byte("x: 2\n"),
		"to-empty.txt":      {},
		"blank-lines.txt":   []byte("\n\n\nb\n\n\n"),
	}
	c2 := tree{
		"a.txt":             bytes.TrimSuffix(c1["a.txt"], []byte("\n")),
		"src/b.go":          []byte{},
		"nonl.txt":          []byte("one\ntwo\nTHREE\n"),
		"crlf.txt":          []byte("zero\r\none\r\nTWO\r\nthree\r\nfour\r\nfive"),
		"dir/ren2.txt":      c1["dir/ren2.txt"],
		"dir/sub/n.go":      []byte("package n\n"),
		"sp ace 2.txt":      []byte("spaced\nagain\n"),
		"new.txt":           []byte("brand\nnew\n"),
		"dup.txt":           []byte(strings.Replace(dup, "same\nsame\nsame\nend\n", "same\nsame\nSAME\nend\n", 1)),
		"deep/er/file.nika": []byte("x: 2\ny: 3\n"),
		"blank-lines.txt":   []byte("\n\n\nb\n\n\n\n"),
	}
	// c3 rewrites a file completely and renames with heavy edits.
	c3 := tree{}
	for p, b := range c2 {
		c3[p] = b
	}
	delete(c3, "new.txt")
	c3["renamed/new.txt"] = []byte("brand\nnew\nand more\n")
	c3["a.txt"] = []byte(numbered("beta", 35))
	c3["mid/dup.txt"] = c3["dup.txt"]
	delete(c3, "dup.txt")
	return []tree{c0, c1, c2, c3}
}

func TestGitDiffRoundTrip(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	var commits []string
	for _, fs := range history() {
		commits = append(commits, commit(t, dir, fs))
	}
	trees := make([]tree, len(commits))
	for i, c := range commits {
		trees[i] = readTree(t, dir, c)
	}
	variants := [][]string{
		{},
		{"-U0"},
		{"-U1"},
		{"-U10"},
		{"--no-renames"},
		{"-M30%"},
		{"--full-index"},
		{"--no-prefix"},
		{"--src-prefix=c/", "--dst-prefix=w/"},
		{"--inter-hunk-context=5"},
		{"--diff-algorithm=patience"},
		{"--minimal"},
	}
	for i := range commits {
		for j := range commits {
			if i == j {
				continue
			}
			for _, v := range variants {
				name := fmt.Sprintf("%d..%d %s", i, j, strings.Join(v, " "))
				t.Run(name, func(t *testing.T) {
					args := append([]string{"diff"}, v...)
					diff := git(t, dir, append(args, commits[i], commits[j])...)
					d, err := parse(diff)
					if err != nil {
						t.Fatalf("Parse: %v\n%s", err, diff)
					}
					got, err := applyDraft(d, trees[i])
					if err != nil {
						t.Fatalf("apply: %v\n%s", err, diff)
					}
					sameTree(t, got, trees[j], diff)
				})
			}
		}
	}
}

// TestGitFormatPatch reads a mail as git format-patch writes it: a header,
// a commit message, the diff and a signature.
func TestGitFormatPatch(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	h := history()
	a := commit(t, dir, h[0])
	b := commit(t, dir, h[1])
	mail := git(t, dir, "format-patch", "--stdout", a+".."+b)
	if !bytes.Contains(mail, []byte("\n-- \n")) {
		t.Fatalf("no signature in the mail:\n%s", mail)
	}
	d, err := parse(mail)
	if err != nil {
		t.Fatal(err)
	}
	got, err := applyDraft(d, readTree(t, dir, a))
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, got, readTree(t, dir, b), mail)
}

// TestGitDiffRandom diffs random edits of random files with git diff
// --no-index, in several context sizes, and checks the round trip.
func TestGitDiffRandom(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	vocab := []string{"a", "b", "c", "same", "", "x y", "\t", "end", "a\r"}
	gen := func(n int) []string {
		ls := make([]string, n)
		for i := range ls {
			ls[i] = vocab[rng.Intn(len(vocab))]
		}
		return ls
	}
	join := func(ls []string, nl bool) []byte {
		s := strings.Join(ls, "\n")
		if nl && len(ls) > 0 {
			s += "\n"
		}
		return []byte(s)
	}
	rounds := 150
	if testing.Short() {
		rounds = 20
	}
	for round := 0; round < rounds; round++ {
		old := gen(rng.Intn(30))
		nw := append([]string(nil), old...)
		for e := rng.Intn(6); e >= 0; e-- {
			switch k := rng.Intn(3); {
			case k == 0 && len(nw) > 0:
				i := rng.Intn(len(nw))
				nw = append(nw[:i], nw[i+1:]...)
			case k == 1:
				i := rng.Intn(len(nw) + 1)
				nw = append(nw[:i], append(gen(1+rng.Intn(3)), nw[i:]...)...)
			case len(nw) > 0:
				nw[rng.Intn(len(nw))] = vocab[rng.Intn(len(vocab))]
			}
		}
		ob, nb := join(old, rng.Intn(4) > 0), join(nw, rng.Intn(4) > 0)
		if bytes.Equal(ob, nb) {
			continue
		}
		op, np := filepath.Join(dir, "old"), filepath.Join(dir, "new")
		os.WriteFile(op, ob, 0o644)
		os.WriteFile(np, nb, 0o644)
		for _, u := range []string{"-U0", "-U1", "-U3"} {
			cmd := exec.Command("git", "diff", "--no-index", u, "old", "new")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
			diff, _ := cmd.Output() // exit 1: the files differ
			// git diff --no-index names both sides; make it an edit of one path.
			diff = bytes.ReplaceAll(diff, []byte("b/new"), []byte("b/old"))
			d, err := parse(diff)
			if err != nil {
				t.Fatalf("round %d %s: Parse: %v\n%s", round, u, err, diff)
			}
			got, err := applyDraft(d, tree{"old": ob})
			if err != nil {
				// nika refuses only what git apply refuses too (a -U0
				// insertion at the top of a file, which git reads as a
				// creation without --unidiff-zero).
				check := exec.Command("git", "apply", "--check", "-")
				check.Dir, check.Stdin = dir, bytes.NewReader(diff)
				check.Env = cmd.Env
				if out, gerr := check.CombinedOutput(); gerr == nil {
					t.Fatalf("round %d %s: apply: %v, and git apply accepts it\nold %q\nnew %q\n%s%s", round, u, err, ob, nb, diff, out)
				}
				continue
			}
			if !bytes.Equal(got["old"], nb) {
				t.Fatalf("round %d %s: got %q, want %q\n%s", round, u, got["old"], nb, diff)
			}
		}
	}
}

// TestDiffU reads GNU diff's output: diff -u of two files, and diff -ruN of
// two directories, timestamps and all.
func TestDiffU(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("diff is not installed")
	}
	h := history()
	// diff -N reads an absent file as empty, so it says nothing about an
	// empty file that appears or disappears.
	delete(h[0], "empty.txt")
	delete(h[1], "new-empty.txt")
	dir := t.TempDir()
	write := func(root string, fs tree) {
		for p, b := range fs {
			if strings.ContainsAny(p, "\t\"") {
				continue // diff -r prints such names raw; git quotes them
			}
			full := filepath.Join(dir, root, filepath.FromSlash(p))
			os.MkdirAll(filepath.Dir(full), 0o755)
			os.WriteFile(full, b, 0o644)
		}
	}
	write("old", h[0])
	write("new", h[1])
	for _, args := range [][]string{{"-ruN", "old", "new"}, {"-r", "-N", "-U0", "old", "new"}, {"-ru", "old", "new"}} {
		cmd := exec.Command("diff", args...)
		cmd.Dir = dir
		out, _ := cmd.Output()
		if args[0] == "-ru" {
			// Without -N, diff -r reports files on one side as prose
			// ("Only in old: del.txt"); those are not changes.
			var keep []byte
			for _, l := range bytes.SplitAfter(out, []byte("\n")) {
				if !bytes.HasPrefix(l, []byte("Only in ")) {
					keep = append(keep, l...)
				}
			}
			out = keep
		}
		d, err := parse(out)
		if err != nil {
			t.Fatalf("diff %v: %v\n%s", args, err, out)
		}
		base, want := tree{}, tree{}
		for p, b := range h[0] {
			if !strings.ContainsAny(p, "\t\"") {
				base[p] = b
			}
		}
		for p, b := range h[1] {
			if !strings.ContainsAny(p, "\t\"") {
				want[p] = b
			}
		}
		if args[0] == "-ru" {
			for p := range base {
				if _, ok := want[p]; !ok {
					want[p] = base[p]
				}
			}
			for p := range want {
				if _, ok := base[p]; !ok {
					delete(want, p)
				}
			}
		}
		got, err := applyDraft(d, base)
		if err != nil {
			t.Fatalf("diff %v: apply: %v\n%s", args, err, out)
		}
		sameTree(t, got, want, out)
	}

	// diff -u of two named files: the +++ name is the path.
	os.WriteFile(filepath.Join(dir, "f.txt.orig"), []byte("a\nb\nc\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("a\nB\nc\n"), 0o644)
	cmd := exec.Command("diff", "-u", "f.txt.orig", "f.txt")
	cmd.Dir = dir
	out, _ := cmd.Output()
	d, err := parse(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := applyDraft(d, tree{"f.txt": []byte("a\nb\nc\n")})
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, got, tree{"f.txt": []byte("a\nB\nc\n")}, out)
}

func sameTree(t *testing.T, got, want tree, diff []byte) {
	t.Helper()
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		g, gok := got[p]
		w, wok := want[p]
		switch {
		case !gok:
			t.Errorf("%q is missing", p)
		case !wok:
			t.Errorf("%q should not exist", p)
		case !bytes.Equal(g, w):
			t.Errorf("%q = %q, want %q", p, g, w)
		}
	}
	if t.Failed() {
		t.Logf("diff:\n%s", diff)
	}
}

// TestGitRefusals checks that what nika does not carry, as real git writes
// it, is refused with its class and the line of the diff.
func TestGitRefusals(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	a := commit(t, dir, tree{"a.txt": []byte("a\n"), "logo.bin": []byte("\x00\x01\x02")})
	b := commit(t, dir, tree{"a.txt": []byte("b\n"), "logo.bin": []byte("\x00\x01\x03")})
	for _, v := range []string{"", "--binary"} {
		args := []string{"diff", a, b}
		if v != "" {
			args = append(args, v)
		}
		_, err := parse(git(t, dir, args...))
		want := "diff line 10: logo.bin is a binary patch, and nika proposes text only"
		if got := fmt.Sprint(err); refusal.ClassOf(err) != refusal.Unsupported || !strings.HasPrefix(got, want) {
			t.Errorf("git diff %s: err = %v, want Unsupported %q", v, err, want)
		}
	}

	if err := os.Chmod(filepath.Join(dir, "a.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "commit", "-q", "-am", "x")
	_, err := parse(git(t, dir, "diff", "HEAD~", "HEAD"))
	want := "diff line 1: the diff changes the mode of a.txt from 100644 to 100755, and nika does not change file modes"
	if got := fmt.Sprint(err); refusal.ClassOf(err) != refusal.Unsupported || !strings.HasPrefix(got, want) {
		t.Errorf("mode change: err = %v, want Unsupported %q", err, want)
	}
}

// TestGitApplyRandom checks where hunks land against git apply itself:
// random edits of random files, diffed by git with 0 to 3 lines of
// context, then damaged as models damage them (line numbers off by a few,
// hunks swapped), are applied by git apply and by nika. Where git applies,
// nika writes the same bytes, or refuses a hunk that matches several
// places away from its stated line (docs/strictness.md: ambiguous-hunk);
// where git refuses, nika refuses. A diff without context is held against
// git apply --unidiff-zero (unidiff-zero), whose joined lines nika refuses
// (joined-lines).
func TestGitApplyRandom(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	seed := int64(3)
	if v := os.Getenv("NIKA_TEST_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	rng := rand.New(rand.NewSource(seed))
	vocab := []string{"a", "b", "c", "same", "", "x y", "end"}
	gen := func(n int) []string {
		ls := make([]string, n)
		for i := range ls {
			ls[i] = vocab[rng.Intn(len(vocab))]
		}
		return ls
	}
	join := func(ls []string, nl bool) []byte {
		s := strings.Join(ls, "\n")
		if nl && len(ls) > 0 {
			s += "\n"
		}
		return []byte(s)
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	gitApply := func(base, diff []byte, args ...string) ([]byte, bool) {
		f := filepath.Join(dir, "f")
		os.WriteFile(f, base, 0o644)
		cmd := exec.Command("git", append(append([]string{"apply"}, args...), "-")...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(diff)
		if err := cmd.Run(); err != nil {
			return nil, false
		}
		b, _ := os.ReadFile(f)
		return b, true
	}
	hunkHeader := regexp.MustCompile(`(?m)^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@.*$`)
	rounds := 300
	if testing.Short() {
		rounds = 40
	}
	counts := map[string]int{}
	for round := 0; round < rounds; round++ {
		old := gen(5 + rng.Intn(25))
		nw := append([]string(nil), old...)
		for e := rng.Intn(5); e >= 0; e-- {
			switch k := rng.Intn(3); {
			case k == 0 && len(nw) > 0:
				i := rng.Intn(len(nw))
				nw = append(nw[:i], nw[i+1:]...)
			case k == 1:
				i := rng.Intn(len(nw) + 1)
				nw = append(nw[:i], append(gen(1+rng.Intn(2)), nw[i:]...)...)
			case len(nw) > 0:
				nw[rng.Intn(len(nw))] = vocab[rng.Intn(len(vocab))]
			}
		}
		ob, nb := join(old, rng.Intn(5) > 0), join(nw, rng.Intn(5) > 0)
		if bytes.Equal(ob, nb) {
			continue
		}
		os.WriteFile(filepath.Join(dir, "old"), ob, 0o644)
		os.WriteFile(filepath.Join(dir, "new"), nb, 0o644)
		u := fmt.Sprintf("-U%d", rng.Intn(4))
		cmd := exec.Command("git", "diff", "--no-index", u, "old", "new")
		cmd.Dir, cmd.Env = dir, env
		diff, _ := cmd.Output()
		diff = bytes.ReplaceAll(bytes.ReplaceAll(diff, []byte("a/old"), []byte("a/f")), []byte("b/new"), []byte("b/f"))
		// Damage it: shift line numbers, swap two hunks.
		if rng.Intn(2) == 0 {
			diff = hunkHeader.ReplaceAllFunc(diff, func(h []byte) []byte {
				if rng.Intn(2) == 0 {
					return h
				}
				m := hunkHeader.FindSubmatch(h)
				d := rng.Intn(7) - 3
				shift := func(s []byte) int {
					n := 0
					fmt.Sscan(string(s), &n)
					if n == 0 {
						return 0
					}
					return max(1, n+d)
				}
				return []byte(fmt.Sprintf("@@ -%d%s +%d%s @@", shift(m[1]), m[2], shift(m[3]), m[4]))
			})
		}
		if parts := bytes.Split(diff, []byte("\n@@ ")); len(parts) > 2 && rng.Intn(3) == 0 {
			i := 1 + rng.Intn(len(parts)-1)
			j := 1 + rng.Intn(len(parts)-1)
			parts[i], parts[j] = parts[j], parts[i]
			diff = bytes.Join(parts, []byte("\n@@ "))
			if !bytes.HasSuffix(diff, []byte("\n")) {
				diff = append(diff, '\n')
			}
		}
		want, gitOK := gitApply(ob, diff)
		zero := false
		if d, err := parse(diff); err == nil {
			for _, in := range d.Intents {
				if e, ok := in.Edit.(*edit); ok && e.zero {
					zero = true
				}
			}
		}
		if zero {
			want, gitOK = gitApply(ob, diff, "--unidiff-zero")
		}
		var got []byte
		d, err := parse(diff)
		if err == nil {
			var tr tree
			if tr, err = applyDraft(d, tree{"f": ob}); err == nil {
				got = tr["f"]
			}
		}
		what := fmt.Sprintf("round %d %s zero %v\nold %q\nnew %q\n%s", round, u, zero, ob, nb, diff)
		switch {
		case gitOK && err == nil:
			if !bytes.Equal(got, want) {
				t.Fatalf("nika wrote %q, git %q\n%s", got, want, what)
			}
			counts["same bytes"]++
		case gitOK && strings.Contains(fmt.Sprint(err), "of the file, not at line"):
			counts["ambiguous-hunk"]++
		case gitOK && zero && strings.Contains(fmt.Sprint(err), "would join two lines"):
			counts["joined-lines"]++
		case gitOK:
			t.Fatalf("git applies, nika refuses: %v\n%s", err, what)
		case err == nil:
			t.Fatalf("git refuses, nika writes %q\n%s", got, what)
		default:
			counts["both refuse"]++
		}
	}
	t.Logf("%v", counts)
	if counts["same bytes"] == 0 || counts["both refuse"] == 0 {
		t.Errorf("the rounds hardly compared anything: %v", counts)
	}
}
