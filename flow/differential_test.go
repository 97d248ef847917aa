package flow_test

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/changeset/udiff"
	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// The differential test: git apply is the reference for unified diffs.
// For every diff of the corpus (testdata/diffs) and for diffs made from
// this repository's own history, git apply and nika read the same diff
// over the same base. Where git applies, nika's tree must be git's, byte
// for byte; where git refuses, nika must refuse. The only exceptions are
// the rows of docs/strictness.md, which this test reads.

// strictRow is one row of docs/strictness.md.
type strictRow struct {
	id      string
	applies bool     // nika applies where git refuses
	texts   []string // for a row that refuses: what nika's refusal says
	gitArgs []string // the flags git apply runs with for this row
	shown   bool     // a case of this run shows the row
}

func readStrictness(t *testing.T) map[string]*strictRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "strictness.md"))
	if err != nil {
		t.Fatalf("docs/strictness.md: %v", err)
	}
	tick := regexp.MustCompile("`([^`]+)`")
	rows := map[string]*strictRow{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|"), "|")
		if len(cells) != 5 {
			t.Fatalf("docs/strictness.md: a row with %d cells, want 5: %s", len(cells), line)
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		r := &strictRow{id: strings.Trim(cells[0], "`")}
		switch nika := cells[1]; {
		case nika == "applies":
			r.applies = true
		case strings.HasPrefix(nika, "refuses: "):
			for _, m := range tick.FindAllStringSubmatch(nika, -1) {
				r.texts = append(r.texts, m[1])
			}
		default:
			t.Fatalf("docs/strictness.md: row %s says %q, want applies or refuses: `text`", r.id, nika)
		}
		if !r.applies && len(r.texts) == 0 {
			t.Fatalf("docs/strictness.md: row %s refuses without saying what the refusal says", r.id)
		}
		if m := tick.FindStringSubmatch(cells[3]); m != nil {
			args, ok := strings.CutPrefix(m[1], "git apply ")
			if !ok {
				t.Fatalf("docs/strictness.md: row %s runs %q, want git apply <flags>", r.id, m[1])
			}
			r.gitArgs = strings.Fields(args)
		}
		if rows[r.id] != nil {
			t.Fatalf("docs/strictness.md: row %s twice", r.id)
		}
		rows[r.id] = r
	}
	if len(rows) == 0 {
		t.Fatal("docs/strictness.md holds no row")
	}
	return rows
}

// diffCase is one case of the corpus.
type diffCase struct {
	name      string
	files     map[string][]byte // the base tree
	diff      []byte
	applies   bool          // nika's outcome, as the case states it
	class     refusal.Class // for a refusal
	text      string        // which its text holds
	exception string        // the row of docs/strictness.md it shows
}

var refusesLine = regexp.MustCompile(`^nika: refuses (\w+) "(.*)"$`)

func readCorpus(t *testing.T) []diffCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "diffs", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus in testdata/diffs: %v", err)
	}
	var cases []diffCase
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := diffCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), files: map[string][]byte{}}
		nonl, crlf, hexed := map[string]bool{}, map[string]bool{}, map[string]bool{}
		stated := false
		for _, l := range strings.Split(string(a.Comment), "\n") {
			switch {
			case l == "nika: applies":
				c.applies, stated = true, true
			case refusesLine.MatchString(l):
				m := refusesLine.FindStringSubmatch(l)
				c.class, c.text, stated = refusal.Class(m[1]), m[2], true
			case strings.HasPrefix(l, "exception: "):
				c.exception = strings.TrimPrefix(l, "exception: ")
			case strings.HasPrefix(l, "nonl: "):
				nonl[strings.TrimPrefix(l, "nonl: ")] = true
			case strings.HasPrefix(l, "crlf: "):
				crlf[strings.TrimPrefix(l, "crlf: ")] = true
			case strings.HasPrefix(l, "hex: "):
				hexed[strings.TrimPrefix(l, "hex: ")] = true
			}
		}
		if !stated {
			t.Fatalf("%s: the case states no outcome (nika: applies, or nika: refuses Class \"text\")", p)
		}
		for _, f := range a.Files {
			data := f.Data
			if crlf[f.Name] {
				data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
			}
			if nonl[f.Name] {
				data = bytes.TrimSuffix(bytes.TrimSuffix(data, []byte("\n")), []byte("\r"))
			}
			if hexed[f.Name] {
				if data, err = hex.DecodeString(strings.TrimSpace(string(data))); err != nil {
					t.Fatalf("%s: %s is not hex: %v", p, f.Name, err)
				}
			}
			switch {
			case f.Name == "diff":
				c.diff = data
			case strings.HasPrefix(f.Name, "base/"):
				c.files[strings.TrimPrefix(f.Name, "base/")] = data
			default:
				t.Fatalf("%s: unknown file %s", p, f.Name)
			}
		}
		cases = append(cases, c)
	}
	return cases
}

// gitRun runs git in dir with extra environment and stdin.
func gitRun(dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return append(out, stderr.Bytes()...), err
	}
	return out, nil
}

// gitApply applies diff over commit base with git apply, in a throwaway
// index, and returns the tree it writes, or git's refusal.
func gitApply(t *testing.T, dir, base string, diff []byte, args ...string) (tree string, refused string) {
	t.Helper()
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	if out, err := gitRun(dir, env, nil, "read-tree", base); err != nil {
		t.Fatalf("git read-tree %s: %v\n%s", base, err, out)
	}
	if out, err := gitRun(dir, env, diff, append(append([]string{"apply", "--cached"}, args...), "-")...); err != nil {
		var errs []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "error: ") || strings.HasPrefix(l, "fatal: ") {
				errs = append(errs, l)
			}
		}
		if len(errs) == 0 {
			errs = []string{strings.TrimSpace(string(out)), err.Error()}
		}
		return "", strings.Join(errs, "; ")
	}
	out, err := gitRun(dir, env, nil, "write-tree")
	if err != nil {
		t.Fatalf("git write-tree: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out)), ""
}

// listing is a tree as git ls-tree -r lists it: path -> "mode oid".
type listing map[string]string

func lsTree(t *testing.T, dir, tree string) listing {
	t.Helper()
	out, err := gitRun(dir, nil, nil, "ls-tree", "-r", "-z", tree)
	if err != nil {
		t.Fatalf("git ls-tree %s: %v\n%s", tree, err, out)
	}
	l := listing{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, _ := bytes.Cut(rec, []byte("\t"))
		f := strings.Fields(string(meta))
		l[string(p)] = f[0] + " " + f[2]
	}
	return l
}

func blobID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// differ describes how two listings differ, or "" when they are equal.
func differ(got, want listing) string {
	var out []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			out = append(out, fmt.Sprintf("%s: missing, git has %s", p, w))
		} else if g != w {
			out = append(out, fmt.Sprintf("%s: %s, git has %s", p, g, w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			out = append(out, fmt.Sprintf("%s: %s, git has none", p, g))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// explain checks that what nika and git do with a diff is a row of
// docs/strictness.md, and marks the row shown: the row id when the case
// names one, else any row that refuses or whose git flags reach nika's
// tree. nikaErr is nika's refusal (nil when it applied), gitRefused is
// git's (empty when it applied), nikaTree is what nika wrote.
func explain(t *testing.T, rows map[string]*strictRow, id string, nikaErr error, gitRefused string, nikaTree func() listing, gitWith func(args []string) (listing, string), what []byte) {
	t.Helper()
	var candidates []*strictRow
	if id != "" {
		candidates = []*strictRow{rows[id]}
	} else {
		for _, r := range rows {
			candidates = append(candidates, r)
		}
		sort.Slice(candidates, func(i, j int) bool { return candidates[i].id < candidates[j].id })
	}
	named := func(format string, args ...any) {
		if id != "" {
			t.Errorf("row %s: "+format+"\n%s", append(append([]any{id}, args...), what)...)
		}
	}
	for _, r := range candidates {
		gitRun := "git apply"
		if len(r.gitArgs) > 0 {
			gitRun += " " + strings.Join(r.gitArgs, " ")
		}
		if nikaErr != nil {
			if r.applies {
				named("the row says nika applies, and it refuses: %v", nikaErr)
				continue
			}
			said := false
			for _, text := range r.texts {
				said = said || strings.Contains(nikaErr.Error(), text)
			}
			if !said {
				named("nika's refusal says none of %q: %v", r.texts, nikaErr)
				continue
			}
			refused := gitRefused
			if len(r.gitArgs) > 0 {
				_, refused = gitWith(r.gitArgs)
			}
			if refused != "" {
				named("the row says %s applies, and it refuses: %s", gitRun, refused)
				if id == "" {
					continue
				}
				return
			}
			r.shown = true
			return
		}
		if !r.applies {
			named("the row says nika refuses, and it applies")
			continue
		}
		if len(r.gitArgs) == 0 {
			if id == "" {
				continue // only a case of the corpus shows such a row
			}
			if gitRefused == "" {
				if l, _ := gitWith(nil); differ(nikaTree(), l) == "" {
					named("the row says git apply does otherwise, and it writes nika's tree")
					return
				}
			}
			r.shown = true
			return
		}
		l, refused := gitWith(r.gitArgs)
		if refused != "" {
			named("%s refuses: %s", gitRun, refused)
			continue
		}
		if d := differ(nikaTree(), l); d != "" {
			named("%s writes another tree than nika:\n%s", gitRun, d)
			continue
		}
		r.shown = true
		return
	}
	if id != "" {
		return // reported above
	}
	switch {
	case nikaErr != nil:
		t.Errorf("git applies and nika refuses (%v), and no row of docs/strictness.md says so\n%s", nikaErr, what)
	case gitRefused != "":
		t.Errorf("git refuses (%s) and nika applies, and no row of docs/strictness.md says so\n%s", gitRefused, what)
	default:
		t.Errorf("nika and git write other trees, and no row of docs/strictness.md says so\n%s", what)
	}
}

// TestDifferentialCorpus runs every diff of testdata/diffs through nika's
// whole product (propose: parse, resolve, stage, preview; then apply),
// in a repository whose HEAD holds the case's base, and through git apply
// over the same commit.
func TestDifferentialCorpus(t *testing.T) {
	rows := readStrictness(t)
	cases := readCorpus(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.exception != "" && rows[c.exception] == nil {
				t.Fatalf("the case names the row %q, which docs/strictness.md lacks", c.exception)
			}
			g := gittest.New(t)
			for p, b := range c.files {
				g.Write(p, string(b))
			}
			base := g.Commit("base")
			gitTree, gitRefused := gitApply(t, g.Dir, base, c.diff)

			r, err := gitstage.Open(g.Dir)
			if err != nil {
				t.Fatal(err)
			}
			p, nikaErr := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: c.diff, Format: "diff", Allow: []string{"**"}, Goal: c.name})
			if nikaErr == nil && p.Empty() {
				t.Fatal("nika proposed nothing")
			}
			if nikaErr == nil {
				if p.Format != "diff" {
					t.Errorf("format %q", p.Format)
				}
				var prev bytes.Buffer
				if err := preview.Human(&prev, flow.PreviewInput(p), preview.Options{}); err != nil {
					t.Fatalf("preview: %v", err)
				}
				if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
					t.Fatalf("apply: %v", err)
				}
			} else if head := g.Git("rev-parse", "HEAD"); head != base {
				t.Fatalf("a refusal moved HEAD")
			}
			g.Clean()
			nikaTree := func() listing { return lsTree(t, g.Dir, "HEAD") }

			// The case's own statement of nika's outcome.
			switch {
			case c.applies && nikaErr != nil:
				t.Fatalf("refused, the case says it applies: %v", nikaErr)
			case !c.applies && nikaErr == nil:
				t.Fatalf("applied, the case says it refuses with %q", c.text)
			case !c.applies && (refusal.ClassOf(nikaErr) != c.class || !strings.Contains(nikaErr.Error(), c.text)):
				t.Fatalf("refusal %s %v, the case says %s %q", refusal.ClassOf(nikaErr), nikaErr, c.class, c.text)
			}

			gitWith := func(args []string) (listing, string) {
				tr, refused := gitApply(t, g.Dir, base, c.diff, args...)
				if refused != "" {
					return nil, refused
				}
				return lsTree(t, g.Dir, tr), ""
			}
			agree := false
			switch {
			case nikaErr != nil && gitRefused != "":
				agree = true
			case nikaErr == nil && gitRefused == "":
				agree = differ(nikaTree(), lsTree(t, g.Dir, gitTree)) == ""
			}
			switch {
			case c.exception != "":
				if agree && len(rows[c.exception].gitArgs) == 0 {
					t.Errorf("nika and git apply agree, and the case names the row %s", c.exception)
					return
				}
				explain(t, rows, c.exception, nikaErr, gitRefused, nikaTree, gitWith, c.diff)
			case !agree && nikaErr != nil:
				t.Errorf("git applies and nika refuses (%v), and the case names no row of docs/strictness.md", nikaErr)
			case !agree && gitRefused != "":
				t.Errorf("git refuses (%s) and nika applies, and the case names no row of docs/strictness.md", gitRefused)
			case !agree:
				t.Errorf("nika and git write other trees:\n%s", differ(nikaTree(), lsTree(t, g.Dir, gitTree)))
			}
		})
	}
	for _, r := range rows {
		if !r.shown && !t.Failed() {
			t.Errorf("no case of the corpus shows the row %s of docs/strictness.md", r.id)
		}
	}
}

// treeBase is a changeset.Base over a commit's files, as git ls-tree and
// cat-file read them: files with their modes, symlinks, submodules, and
// the directories between.
type treeBase struct {
	files map[string][]byte
	modes map[string]string
	oids  map[string]string
}

func (b *treeBase) Entry(p changeset.Path) (changeset.Entry, error) {
	if m, ok := b.modes[string(p)]; ok {
		switch m {
		case "120000":
			return changeset.Entry{Kind: changeset.Symlink, Mode: changeset.ModeSymlink}, nil
		case "160000":
			return changeset.Entry{Kind: changeset.Submodule, Mode: changeset.ModeGitlink}, nil
		case "100755":
			return changeset.Entry{Kind: changeset.File, Mode: changeset.ModeExecutable, Bytes: b.files[string(p)]}, nil
		}
		return changeset.Entry{Kind: changeset.File, Mode: changeset.ModeFile, Bytes: b.files[string(p)]}, nil
	}
	for k := range b.modes {
		if strings.HasPrefix(k, string(p)+"/") {
			return changeset.Entry{Kind: changeset.Dir, Mode: changeset.ModeDir}, nil
		}
	}
	return changeset.Entry{Kind: changeset.Absent}, nil
}

func (b *treeBase) Files(dir changeset.Path) ([]changeset.Path, error) {
	var out []changeset.Path
	for k := range b.modes {
		if strings.HasPrefix(k, string(dir)+"/") {
			out = append(out, changeset.Path(k))
		}
	}
	return out, nil
}

// readBase reads every file of a commit.
func readBase(t *testing.T, dir, commit string) *treeBase {
	t.Helper()
	out, err := gitRun(dir, nil, nil, "ls-tree", "-r", "-z", commit)
	if err != nil {
		t.Fatalf("git ls-tree: %v\n%s", err, out)
	}
	b := &treeBase{files: map[string][]byte{}, modes: map[string]string{}, oids: map[string]string{}}
	var oids, paths []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, _ := bytes.Cut(rec, []byte("\t"))
		f := strings.Fields(string(meta))
		b.modes[string(p)], b.oids[string(p)] = f[0], f[2]
		if f[1] == "blob" {
			oids, paths = append(oids, f[2]), append(paths, string(p))
		}
	}
	cat, err := gitRun(dir, nil, []byte(strings.Join(oids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	rd := bufio.NewReader(bytes.NewReader(cat))
	for _, p := range paths {
		var oid, typ string
		var size int
		if _, err := fmt.Fscanf(rd, "%s %s %d\n", &oid, &typ, &size); err != nil {
			t.Fatalf("git cat-file --batch: %v", err)
		}
		data := make([]byte, size+1)
		if _, err := io.ReadFull(rd, data); err != nil {
			t.Fatal(err)
		}
		b.files[p] = data[:size]
	}
	return b
}

// after is the listing of base after changes.
func after(base *treeBase, changes []changeset.Change) listing {
	l := listing{}
	for p, m := range base.modes {
		l[p] = m + " " + base.oids[p]
	}
	for _, c := range changes {
		switch c.Kind {
		case changeset.Delete:
			delete(l, string(c.Path))
		case changeset.Move:
			delete(l, string(c.From))
			fallthrough
		default:
			l[string(c.Path)] = fmt.Sprintf("%06o %s", uint32(c.After.Mode), blobID(c.After.Bytes))
		}
	}
	return l
}

// TestDifferentialHistory diffs pairs of commits of this repository's own
// history (next to each other and far apart, forwards and backwards),
// with and without rename detection, with copies (-C, and
// --find-copies-harder) and without context (-U0), and reads each diff
// with nika over the first commit's tree (the same parse and resolve as
// propose) and with git apply. Where a diff carries what nika refuses
// (an executable, a mode change), it is read again without those files.
func TestDifferentialHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not installed; this test checks nika against it")
	}
	top, err := gitRun("..", nil, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		t.Skipf("the source is not a git checkout, so there is no history to diff: %s", bytes.TrimSpace(top))
	}
	root := strings.TrimSpace(string(top))
	gittest.Setenv(t, t.TempDir())
	n := 25
	if testing.Short() {
		n = 6
	}
	revs, err := gitRun(root, nil, nil, "rev-list", "--first-parent", "-n", fmt.Sprint(n), "HEAD")
	if err != nil {
		t.Fatalf("git rev-list: %v\n%s", err, revs)
	}
	commits := strings.Fields(string(revs))
	if len(commits) < 2 {
		t.Skipf("the checkout has %d commit(s); a diff needs two (a shallow clone?)", len(commits))
	}
	// A clone that borrows the history's objects: git apply writes its
	// blobs and trees there, never into the checkout's repository.
	clone := filepath.Join(t.TempDir(), "clone")
	if out, err := gitRun(root, nil, nil, "clone", "--quiet", "--no-checkout", "--shared", root, clone); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	var pairs [][2]string
	for i := 0; i+1 < len(commits); i++ {
		pairs = append(pairs, [2]string{commits[i+1], commits[i]})
		if i%3 == 0 {
			pairs = append(pairs, [2]string{commits[i], commits[i+1]})
		}
	}
	for i := 0; i+5 < len(commits); i += 5 {
		pairs = append(pairs, [2]string{commits[i+5], commits[i]})
	}
	pairs = append(pairs, [2]string{commits[len(commits)-1], commits[0]}, [2]string{commits[0], commits[len(commits)-1]})
	if roots, err := gitRun(root, nil, nil, "rev-list", "--max-parents=0", "HEAD"); err == nil && !testing.Short() {
		// The whole history at once: every file created, and deleted.
		if first := strings.Fields(string(roots)); len(first) > 0 && first[0] != commits[len(commits)-1] {
			pairs = append(pairs, [2]string{first[0], commits[0]}, [2]string{commits[0], first[0]})
		}
	}
	variants := [][]string{{"-M"}, {"--no-renames"}, {"-C"}, {"--find-copies-harder"}, {"-U0"}}

	rows := readStrictness(t)
	bases := map[string]*treeBase{}
	total, same, refusedBoth, explained := 0, 0, 0, 0
	byRow := map[string]int{}
	for _, pr := range pairs {
		a, b := pr[0], pr[1]
		if bases[a] == nil {
			bases[a] = readBase(t, clone, a)
		}
		base := bases[a]
		// The files nika does not write (other modes, binary files), to
		// leave out of a second diff.
		var exclude []string
		numstat, err := gitRun(clone, nil, nil, "diff", "--numstat", "-z", "--no-renames", a, b)
		if err != nil {
			t.Fatalf("git diff --numstat: %v\n%s", err, numstat)
		}
		for _, rec := range bytes.Split(numstat, []byte{0}) {
			if f := strings.SplitN(string(rec), "\t", 3); len(f) == 3 && f[0] == "-" {
				exclude = append(exclude, ":(exclude,literal)"+f[2])
			}
		}
		other := readBaseModes(t, clone, b)
		for p, m := range other {
			if m != "100644" || (base.modes[p] != "" && base.modes[p] != "100644") {
				exclude = append(exclude, ":(exclude,literal)"+p)
			}
		}
		for p, m := range base.modes {
			if m != "100644" && other[p] == "" {
				exclude = append(exclude, ":(exclude,literal)"+p)
			}
		}
		for _, v := range variants {
			specs := [][]string{nil}
			if len(exclude) > 0 {
				specs = append(specs, append([]string{"--", "."}, exclude...))
			}
			var first []byte
			for _, spec := range specs {
				args := append(append(append([]string{"diff"}, v...), a, b), spec...)
				diff, err := gitRun(clone, nil, nil, args...)
				if err != nil {
					t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, diff)
				}
				if len(bytes.TrimSpace(diff)) == 0 || bytes.Equal(diff, first) {
					continue // nothing, or nothing left out
				}
				first = diff
				if len(diff) > udiff.MaxInput {
					t.Logf("%s..%s %v: the diff is %d bytes, over nika's input limit; not compared", a[:8], b[:8], v, len(diff))
					continue
				}
				total++
				name := fmt.Sprintf("%s..%s %s", a[:8], b[:8], strings.Join(v, " "))
				if spec != nil {
					name += " (text files)"
				}
				var changes []changeset.Change
				d, nikaErr := flow.Parse(diff, "diff", 0)
				if nikaErr == nil {
					changes, _, nikaErr = changeset.Resolve(d, base, changeset.Policy{Allow: []string{"**"}})
				}
				gitTree, gitRefused := gitApply(t, clone, a, diff)
				nikaTree := func() listing { return after(base, changes) }
				gitWith := func(args []string) (listing, string) {
					tr, refused := gitApply(t, clone, a, diff, args...)
					if refused != "" {
						return nil, refused
					}
					return lsTree(t, clone, tr), ""
				}
				switch {
				case nikaErr != nil && gitRefused != "":
					refusedBoth++
					t.Logf("%s: refused by both: nika: %v; git: %s", name, nikaErr, gitRefused)
					continue
				case nikaErr == nil && gitRefused == "" && differ(nikaTree(), lsTree(t, clone, gitTree)) == "":
					same++
					continue
				}
				t.Run(name, func(t *testing.T) {
					explainHistory(t, rows, nikaErr, gitRefused, nikaTree, gitWith, diff)
				})
				explained++
				for _, r := range rows {
					if r.shown {
						byRow[r.id]++
						r.shown = false
					}
				}
			}
		}
	}
	t.Logf("%d diffs of %d pairs of commits: %d the same tree as git apply, %d refused by both, %d explained by docs/strictness.md %v", total, len(pairs), same, refusedBoth, explained, byRow)
	if same == 0 {
		t.Errorf("no diff of the history applied alike: the test compared nothing")
	}
}

// explainHistory is explain for a diff of the history: only a row that
// refuses, or one whose git flags reach nika's tree, may explain it.
func explainHistory(t *testing.T, rows map[string]*strictRow, nikaErr error, gitRefused string, nikaTree func() listing, gitWith func([]string) (listing, string), diff []byte) {
	t.Helper()
	if nikaErr == nil {
		for _, r := range rows {
			if !r.applies || len(r.gitArgs) == 0 {
				continue
			}
			if l, refused := gitWith(r.gitArgs); refused == "" && differ(nikaTree(), l) == "" {
				r.shown = true
				return
			}
		}
		if gitRefused != "" {
			t.Errorf("git refuses (%s) and nika applies, and no row of docs/strictness.md says so\n%s", gitRefused, clip(diff))
		} else {
			t.Errorf("nika and git write other trees\n%s", clip(diff))
		}
		return
	}
	explain(t, rows, "", nikaErr, gitRefused, nikaTree, gitWith, clip(diff))
}

func clip(b []byte) []byte {
	if len(b) > 4000 {
		return append(b[:4000:4000], "\n[…]"...)
	}
	return b
}

// readBaseModes lists the modes of a commit's entries.
func readBaseModes(t *testing.T, dir, commit string) map[string]string {
	t.Helper()
	out, err := gitRun(dir, nil, nil, "ls-tree", "-r", "-z", commit)
	if err != nil {
		t.Fatalf("git ls-tree: %v\n%s", err, out)
	}
	m := map[string]string{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if meta, p, ok := bytes.Cut(rec, []byte("\t")); ok {
			m[string(p)] = strings.Fields(string(meta))[0]
		}
	}
	return m
}
