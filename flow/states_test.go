package flow_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/refusal"
)

// The small change every state proposes: an update and a create in a
// directory that exists.
const stateChange = "```yaml path=a.nika.yaml\nnika: a2\n```\n```yaml path=sub/new.nika.yaml\nnika: new\n```\n"

// stateRepo commits a workflow at the root, one in sub/, and a supporting
// file in other/ (a directory a sparse checkout can leave out).
func stateRepo(t *testing.T) *gittest.Repo {
	t.Helper()
	g := gittest.New(t)
	g.Write("a.nika.yaml", "nika: a1\n")
	g.Write("sub/b.nika.yaml", "nika: b1\n")
	g.Write("other/c.txt", "c\n")
	g.Commit("v1")
	return g
}

func openRepo(t *testing.T, dir string) *gitstage.Repo {
	t.Helper()
	r, err := gitstage.Open(dir)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return r
}

// works proposes stateChange, applies it, and checks with git that the
// apply is whole: HEAD is the proposal commit, the files hold its bytes,
// git status is empty, git fsck --strict is clean, and the index writes
// HEAD's tree.
func works(t *testing.T, g *gittest.Repo) *flow.Proposed {
	t.Helper()
	r := openRepo(t, g.Dir)
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(stateChange), Goal: "state"})
	if err != nil {
		t.Fatalf("propose: %v", err)
	}
	if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	appliedClean(t, g, p)
	return p
}

func appliedClean(t *testing.T, g *gittest.Repo, p *flow.Proposed) {
	t.Helper()
	if h := g.Git("rev-parse", "HEAD"); h != p.Proposal.Commit {
		t.Errorf("HEAD = %s, want the proposal commit %s", h, p.Proposal.Commit)
	}
	if got := g.Read("a.nika.yaml"); got != "nika: a2\n" {
		t.Errorf("a.nika.yaml = %q", got)
	}
	if got := g.Read("sub/new.nika.yaml"); got != "nika: new\n" {
		t.Errorf("sub/new.nika.yaml = %q", got)
	}
	g.Clean()
	if w, h := g.Git("write-tree"), g.Git("rev-parse", "HEAD^{tree}"); w != h {
		t.Errorf("git write-tree = %s, want HEAD^{tree} %s: the index does not match HEAD", w, h)
	}
}

// refused proposes stateChange (or input) and checks the refusal, and that
// nothing in the repository changed, .git included.
func refused(t *testing.T, g *gittest.Repo, input string, class refusal.Class, text string) {
	t.Helper()
	before := snapshot(t, g.Dir)
	r, err := gitstage.Open(g.Dir)
	if err == nil {
		_, err = flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(input), Allow: []string{"**"}})
	}
	if err == nil {
		t.Fatalf("accepted; want a %s refusal saying %q", class, text)
	}
	if c := refusal.ClassOf(err); c != class || !strings.Contains(err.Error(), text) {
		t.Errorf("refusal = %s %q, want %s saying %q", c, err, class, text)
	}
	if strings.Contains(err.Error(), g.Dir) {
		t.Errorf("the refusal names an absolute path: %v", err)
	}
	t.Logf("refused: %s: %v", refusal.ClassOf(err), err)
	sameTree(t, "the repository", before, snapshot(t, g.Dir))
}

func indexBytes(t *testing.T, g *gittest.Repo) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(g.Dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func indexVersion(t *testing.T, g *gittest.Repo) uint32 {
	return binary.BigEndian.Uint32(indexBytes(t, g)[4:8])
}

// hasExtension looks for an extension's signature after the entries (a
// rough check: the signature bytes anywhere in the file).
func hasExtension(t *testing.T, g *gittest.Repo, sig string) bool {
	return bytes.Contains(indexBytes(t, g), []byte(sig))
}

func TestStatePackedRefsOnly(t *testing.T) {
	g := stateRepo(t)
	g.Git("pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "refs", "heads", "main")); err == nil {
		t.Fatal("main is still a loose ref")
	}
	p := works(t, g)
	if h := g.Git("rev-parse", "refs/heads/main"); h != p.Proposal.Commit {
		t.Errorf("main = %s, want %s", h, p.Proposal.Commit)
	}
	if s := g.Git("symbolic-ref", "HEAD"); s != "refs/heads/main" {
		t.Errorf("HEAD = %s", s)
	}
	g.Git("pack-refs", "--all")
	if h := g.Git("rev-parse", "main"); h != p.Proposal.Commit {
		t.Errorf("after a second pack-refs, main = %s", h)
	}
	if l := g.Git("reflog", "-1", "--format=%gs", "main"); !strings.Contains(l, "nika: apply") {
		t.Errorf("main's reflog = %q, want nika's entry", l)
	}
}

func TestStateDetachedHead(t *testing.T) {
	g := stateRepo(t)
	main := g.Git("rev-parse", "main")
	g.Git("checkout", "-q", "--detach")
	works(t, g)
	if _, err := g.TryGit("symbolic-ref", "-q", "HEAD"); err == nil {
		t.Error("HEAD is on a branch after an apply on a detached HEAD")
	}
	if h := g.Git("rev-parse", "main"); h != main {
		t.Errorf("main moved to %s on a detached apply", h)
	}
}

func TestStateLinkedWorktree(t *testing.T) {
	g := stateRepo(t)
	wt := filepath.Join(filepath.Dir(g.Dir), "wt")
	g.Git("worktree", "add", "-q", "-b", "feature", wt)
	main := g.Git("rev-parse", "main")
	mainIndex := indexBytes(t, g)
	w := &gittest.Repo{T: t, Dir: wt}
	p := works(t, w)
	if h := g.Git("rev-parse", "feature"); h != p.Proposal.Commit {
		t.Errorf("feature = %s, want %s", h, p.Proposal.Commit)
	}
	if h := g.Git("rev-parse", "main"); h != main {
		t.Errorf("main moved to %s", h)
	}
	if got := g.Read("a.nika.yaml"); got != "nika: a1\n" {
		t.Errorf("the main worktree's a.nika.yaml = %q", got)
	}
	if g.Read("sub/new.nika.yaml") != "" {
		t.Error("the create landed in the main worktree")
	}
	if !bytes.Equal(indexBytes(t, g), mainIndex) {
		t.Error("the main worktree's index changed")
	}
	g.Clean()
	g.Git("worktree", "list")
}

func TestStateIndexVersions(t *testing.T) {
	for _, v := range []string{"2", "3", "4"} {
		t.Run("v"+v, func(t *testing.T) {
			g := stateRepo(t)
			if v == "3" {
				// git writes version 3 only when an entry has extended
				// flags: skip-worktree on a file the change leaves alone.
				g.Git("update-index", "--skip-worktree", "other/c.txt")
			}
			g.Git("update-index", "--index-version", v)
			want := indexVersion(t, g)
			if want != uint32(v[0]-'0') {
				t.Fatalf("git wrote index version %d, want %s", want, v)
			}
			works(t, g)
			if got := indexVersion(t, g); got != want {
				t.Errorf("index version %d after apply, want %d", got, want)
			}
			if v == "3" {
				if s := g.Git("ls-files", "-t", "other/c.txt"); s != "S other/c.txt" {
					t.Errorf("the skip-worktree bit was lost: %q", s)
				}
			}
		})
	}
}

func TestStateCacheTreeAndUntrackedCache(t *testing.T) {
	g := stateRepo(t)
	g.Git("config", "core.untrackedCache", "true")
	g.Git("update-index", "--untracked-cache")
	g.Write("sub/ignored-before.txt", "untracked\n")
	g.Git("status", "--porcelain")
	g.Git("write-tree")
	if !hasExtension(t, g, "TREE") || !hasExtension(t, g, "UNTR") {
		t.Fatal("the index has no cache-tree or untracked cache to keep")
	}
	os.Remove(filepath.Join(g.Dir, "sub", "ignored-before.txt"))
	g.Git("status", "--porcelain")
	works(t, g)
	// The untracked cache must not hide files created after the apply,
	// in the directory the apply wrote to or elsewhere.
	g.Write("sub/u.txt", "u\n")
	g.Write("u.txt", "u\n")
	if s := g.Git("status", "--porcelain"); s != "?? sub/u.txt\n?? u.txt" {
		t.Errorf("git status after new untracked files = %q", s)
	}
	if s := g.Git("status", "--porcelain", "-uall"); s != "?? sub/u.txt\n?? u.txt" {
		t.Errorf("git status -uall = %q", s)
	}
}

func TestStateManyFiles(t *testing.T) {
	g := stateRepo(t)
	g.Git("config", "feature.manyFiles", "true")
	os.Remove(filepath.Join(g.Dir, ".git", "index"))
	g.Git("reset", "-q")
	g.Git("status", "--porcelain")
	want := indexVersion(t, g)
	works(t, g)
	if got := indexVersion(t, g); got != want {
		t.Errorf("index version %d after apply, want %d (feature.manyFiles)", got, want)
	}
}

// TestStateIndexSkipHash applies on an index with a zero trailer, as git
// 2.40 and later write it with index.skipHash (and feature.manyFiles). An
// older git cannot write one, so the test zeroes the trailer itself; git
// 2.39 reads such an index too (it checks the trailer only in fsck, and
// accepts zero there).
func TestStateIndexSkipHash(t *testing.T) {
	g := stateRepo(t)
	g.Git("config", "index.skipHash", "true")
	os.Remove(filepath.Join(g.Dir, ".git", "index"))
	g.Git("reset", "-q")
	b := indexBytes(t, g)
	if !bytes.Equal(b[len(b)-20:], make([]byte, 20)) {
		t.Logf("git %s does not write index.skipHash: zeroing the trailer by hand", g.Git("version"))
		copy(b[len(b)-20:], make([]byte, 20))
		if err := os.WriteFile(filepath.Join(g.Dir, ".git", "index"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		g.Clean()
	}
	works(t, g)
	b = indexBytes(t, g)
	t.Logf("trailer after apply is zero: %v", bytes.Equal(b[len(b)-20:], make([]byte, 20)))
}

func TestStateSplitIndexIsRefused(t *testing.T) {
	g := stateRepo(t)
	g.Git("update-index", "--split-index")
	refused(t, g, stateChange, refusal.Unsupported, "split")
}

func TestStateSparseIndexIsRefused(t *testing.T) {
	g := stateRepo(t)
	g.Git("sparse-checkout", "set", "--cone", "--sparse-index", "sub")
	if !hasExtension(t, g, "sdir") {
		t.Fatalf("git wrote no sparse index: %s", g.Git("ls-files", "--sparse"))
	}
	refused(t, g, stateChange, refusal.Unsupported, "sparse")
}

// TestStateSparseCheckoutFullIndex is a cone-mode sparse checkout with a
// full index: files outside the cone are skip-worktree entries. A change
// inside the cone and a create outside it both work.
func TestStateSparseCheckoutFullIndex(t *testing.T) {
	g := stateRepo(t)
	g.Git("sparse-checkout", "set", "--cone", "sub")
	if s := g.Git("ls-files", "-t", "other/c.txt"); s != "S other/c.txt" {
		t.Fatalf("other/c.txt is not skip-worktree: %q", s)
	}
	works(t, g)
	if s := g.Git("ls-files", "-t", "other/c.txt"); s != "S other/c.txt" {
		t.Errorf("the skip-worktree bit was lost: %q", s)
	}
	g.Git("sparse-checkout", "reapply")
	g.Clean()
}

func TestStateSkipWorktreeTargetIsRefused(t *testing.T) {
	g := stateRepo(t)
	g.Git("update-index", "--skip-worktree", "a.nika.yaml")
	refused(t, g, stateChange, refusal.Unsupported, "skip-worktree")
}

// conflicted leaves a real merge conflict on a.nika.yaml.
func conflicted(t *testing.T) *gittest.Repo {
	g := stateRepo(t)
	g.Git("checkout", "-q", "-b", "side")
	g.Write("a.nika.yaml", "nika: side\n")
	g.Commit("side")
	g.Git("checkout", "-q", "main")
	g.Write("a.nika.yaml", "nika: main\n")
	g.Commit("main")
	if _, err := g.TryGit("merge", "-q", "side"); err == nil {
		t.Fatal("the merge did not conflict")
	}
	if s := g.Git("ls-files", "-u"); s == "" {
		t.Fatal("no conflicted entries")
	}
	return g
}

func TestStateConflictedTargetIsRefused(t *testing.T) {
	g := conflicted(t)
	refused(t, g, stateChange, refusal.Dirty, "merge")
}

// TestStateCleanMergeInProgressIsRefused starts a merge without conflicts
// (git merge --no-commit): MERGE_HEAD exists and the index holds the
// merged result. A proposal applied now would land under the merge.
func TestStateCleanMergeInProgressIsRefused(t *testing.T) {
	g := stateRepo(t)
	g.Git("checkout", "-q", "-b", "side")
	g.Write("other/c.txt", "c2\n")
	g.Commit("side")
	g.Git("checkout", "-q", "main")
	g.Write("sub/b.nika.yaml", "nika: b-main\n")
	g.Commit("main 2")
	g.Git("merge", "-q", "--no-commit", "--no-ff", "side")
	before := snapshot(t, g.Dir)
	r := openRepo(t, g.Dir)
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte("```yaml path=a.nika.yaml\nnika: a9\n```\n")})
	if err == nil {
		_, err = flow.Apply(flow.FromGit(r), p, consent.Options{})
		if err == nil {
			g.Git("fsck", "--strict")
			t.Fatal("nika applies a proposal while a merge is in progress (MERGE_HEAD), so the merge commit that follows has nika's commit as its first parent")
		}
		refusedAtApply(t, g, before, err)
		return
	}
	t.Logf("refused: %s: %v", refusal.ClassOf(err), err)
	sameTree(t, "the repository", before, snapshot(t, g.Dir))
}

// refusedAtApply checks a refusal that came at apply rather than propose:
// the working tree, the index and the refs are as before (the proposal's
// objects and record may exist).
func refusedAtApply(t *testing.T, g *gittest.Repo, before map[string]string, err error) {
	t.Helper()
	t.Logf("refused at apply: %s: %v", refusal.ClassOf(err), err)
	after := snapshot(t, g.Dir)
	for _, m := range []map[string]string{before, after} {
		for k := range m {
			if strings.HasPrefix(k, ".git/objects") || strings.HasPrefix(k, ".git/nika") {
				delete(m, k)
			}
		}
	}
	sameTree(t, "the repository outside objects and nika's records", before, after)
}

// TestStateMergeInProgressIsRefused proposes a file the conflict does not
// touch: an apply would commit on top of a half-done merge (git commit
// refuses while entries are unmerged), so it must be refused too.
func TestStateMergeInProgressIsRefused(t *testing.T) {
	g := conflicted(t)
	before := snapshot(t, g.Dir)
	r := openRepo(t, g.Dir)
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte("```yaml path=sub/b.nika.yaml\nnika: b2\n```\n")})
	if err == nil {
		_, err = flow.Apply(flow.FromGit(r), p, consent.Options{})
		if err == nil {
			t.Fatal("nika applies a proposal while a merge is in progress (unmerged entries, MERGE_HEAD), committing on top of the half-done merge")
		}
		refusedAtApply(t, g, before, err)
		return
	}
	t.Logf("refused: %s: %v", refusal.ClassOf(err), err)
	sameTree(t, "the repository", before, snapshot(t, g.Dir))
}

// convertedApply proposes input and applies it, then takes git as the
// witness: HEAD is the proposal commit, each path's blob in HEAD and bytes
// on disk are the ones wanted (git add's and git checkout's), git status
// is clean and git fsck --strict too.
func convertedApply(t *testing.T, g *gittest.Repo, input string, blobs, disk map[string]string) *flow.Proposed {
	t.Helper()
	r := openRepo(t, g.Dir)
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(input), Goal: "converted", Allow: []string{"**"}})
	if err != nil {
		t.Fatalf("propose: %v", err)
	}
	if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if h := g.Git("rev-parse", "HEAD"); h != p.Proposal.Commit {
		t.Errorf("HEAD = %s, want the proposal commit %s", h, p.Proposal.Commit)
	}
	for path, want := range blobs {
		if got := g.Git("cat-file", "blob", "HEAD:"+path); got != strings.TrimSuffix(want, "\n") {
			t.Errorf("the blob of %s in HEAD = %q, want %q", path, got, want)
		}
	}
	for path, want := range disk {
		if got := g.Read(path); got != want {
			t.Errorf("%s on disk = %q, want %q", path, got, want)
		}
	}
	g.Clean()
	if w, h := g.Git("write-tree"), g.Git("rev-parse", "HEAD^{tree}"); w != h {
		t.Errorf("git write-tree = %s, want HEAD^{tree} %s: the index does not match HEAD", w, h)
	}
	return p
}

// TestStateAutocrlf: with core.autocrlf=true (Git for Windows' default) a
// proposal applies as git does: LF in the blobs, CRLF on disk.
func TestStateAutocrlf(t *testing.T) {
	g := stateRepo(t)
	g.Git("config", "core.autocrlf", "true")
	g.Git("rm", "-q", "--cached", "-r", ".")
	g.Git("reset", "-q", "--hard")
	if g.Read("a.nika.yaml") != "nika: a1\r\n" || g.Git("status", "--porcelain") != "" {
		t.Fatalf("the checkout is not CRLF and clean: %q", g.Read("a.nika.yaml"))
	}
	p := convertedApply(t, g, stateChange,
		map[string]string{"a.nika.yaml": "nika: a2\n", "sub/new.nika.yaml": "nika: new\n"},
		map[string]string{"a.nika.yaml": "nika: a2\r\n", "sub/new.nika.yaml": "nika: new\r\n"})
	for _, c := range p.Proposal.Set.Changes {
		if c.After.Disk == nil || c.After.Disk.Conv.EOL != "crlf" || c.After.Disk.Conv.EOLFrom != "core.autocrlf=true" {
			t.Errorf("%s: the after side does not name its conversion: %+v", c.Path, c.After.Disk)
		}
	}
}

// TestStateAttributesEOL: under "* text eol=crlf", as in a fresh clone.
func TestStateAttributesEOL(t *testing.T) {
	g := stateRepo(t)
	g.Write(".gitattributes", "* text eol=crlf\n")
	g.Commit("attributes")
	// Check the files out again, as git would in a fresh clone: CRLF on
	// disk, LF in the blobs, and git status clean.
	g.Git("rm", "-q", "--cached", "-r", ".")
	g.Git("reset", "-q", "--hard")
	if g.Read("a.nika.yaml") != "nika: a1\r\n" || g.Git("status", "--porcelain") != "" {
		t.Fatalf("the checkout is not CRLF and clean: %q", g.Read("a.nika.yaml"))
	}
	convertedApply(t, g, stateChange,
		map[string]string{"a.nika.yaml": "nika: a2\n", "sub/new.nika.yaml": "nika: new\n"},
		map[string]string{"a.nika.yaml": "nika: a2\r\n", "sub/new.nika.yaml": "nika: new\r\n"})
}

// TestStateAttributesFilterMissing: a filter attribute whose driver git's
// configuration does not define passes the bytes through, as in git.
func TestStateAttributesFilterMissing(t *testing.T) {
	g := stateRepo(t)
	g.Write(".gitattributes", "*.bin filter=nothere -text\n")
	g.Commit("attributes")
	convertedApply(t, g, "```text path=data.bin\nbytes\n```\n",
		map[string]string{"data.bin": "bytes\n"}, map[string]string{"data.bin": "bytes\n"})
	works(t, g)
}

// TestStateFilteredFile commits a file under a filter that git runs (its
// smudged bytes on disk differ from the blob while git status is clean)
// and proposes an update of it: the blob is the clean filter's output,
// the disk the smudge filter's, as git add and git checkout make them.
func TestStateFilteredFile(t *testing.T) {
	g := stateRepo(t)
	g.Git("config", "filter.up.clean", "tr A-Z a-z")
	g.Git("config", "filter.up.smudge", "tr a-z A-Z")
	g.Write(".gitattributes", "*.up.nika.yaml filter=up\n")
	g.Write("f.up.nika.yaml", "nika: f1\n")
	g.Commit("filtered")
	os.Remove(filepath.Join(g.Dir, "f.up.nika.yaml"))
	g.Git("checkout", "--", "f.up.nika.yaml")
	if g.Read("f.up.nika.yaml") != "NIKA: F1\n" || g.Git("status", "--porcelain") != "" {
		t.Fatalf("the smudged checkout is not clean: %q", g.Read("f.up.nika.yaml"))
	}
	convertedApply(t, g, "```yaml path=f.up.nika.yaml\nNIKA: F2\n```\n",
		map[string]string{"f.up.nika.yaml": "nika: f2\n"}, map[string]string{"f.up.nika.yaml": "NIKA: F2\n"})
}

func TestStateFilemodeFalse(t *testing.T) {
	g := stateRepo(t)
	g.Write("run.nika.yaml", "nika: run1\n")
	os.Chmod(filepath.Join(g.Dir, "run.nika.yaml"), 0o755)
	g.Commit("executable")
	g.Git("config", "core.filemode", "false")
	// With core.filemode=false the bit on disk does not count.
	os.Chmod(filepath.Join(g.Dir, "run.nika.yaml"), 0o644)
	if s := g.Git("status", "--porcelain"); s != "" {
		t.Fatalf("status = %q", s)
	}
	r := openRepo(t, g.Dir)
	in := stateChange + "```yaml path=run.nika.yaml\nnika: run2\n```\n"
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
		t.Fatal(err)
	}
	appliedClean(t, g, p)
	if m := g.Git("ls-tree", "HEAD", "run.nika.yaml"); !strings.HasPrefix(m, "100755 ") {
		t.Errorf("the executable mode was lost in the commit: %s", m)
	}
	if s := g.Git("ls-files", "-s", "run.nika.yaml"); !strings.HasPrefix(s, "100755 ") {
		t.Errorf("the executable mode was lost in the index: %s", s)
	}
}

func TestStateIgnorecase(t *testing.T) {
	g := stateRepo(t)
	g.Git("config", "core.ignorecase", "true")
	works(t, g)
}

func TestStateSHA256IsRefused(t *testing.T) {
	g := gittest.New(t)
	dir := filepath.Join(filepath.Dir(g.Dir), "sha256")
	g.Git("init", "-q", "--object-format=sha256", "-b", "main", dir)
	s := &gittest.Repo{T: t, Dir: dir}
	s.Write("a.nika.yaml", "nika: a1\n")
	s.Commit("v1")
	refused(t, s, stateChange, refusal.Unsupported, "SHA-256")
}

func TestStateReftable(t *testing.T) {
	g := gittest.New(t)
	dir := filepath.Join(filepath.Dir(g.Dir), "reftable")
	if out, err := g.TryGit("init", "-q", "--ref-format=reftable", "-b", "main", dir); err != nil {
		t.Skipf("this git cannot make a reftable repository: %s", out)
	}
	s := &gittest.Repo{T: t, Dir: dir}
	s.Write("a.nika.yaml", "nika: a1\n")
	s.Commit("v1")
	refused(t, s, stateChange, refusal.Unsupported, "reftable")
}

// TestStateRacyTimestamp modifies a file right after the apply wrote it
// (same size, so the same second and the same size): git must still see
// the edit, so the index nika wrote must not claim the file clean.
func TestStateRacyTimestamp(t *testing.T) {
	g := stateRepo(t)
	for i := 0; i < 3; i++ {
		r := openRepo(t, g.Dir)
		content := []string{"nika: r0\n", "nika: r1\n", "nika: r2\n"}[i]
		p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte("```yaml path=a.nika.yaml\n" + content + "```\n")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(content, "nika", "NIKA", 1)
		if err := os.WriteFile(filepath.Join(g.Dir, "a.nika.yaml"), []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		if s := g.Git("status", "--porcelain"); s != " M a.nika.yaml" {
			t.Fatalf("round %d: git status = %q right after an edit of the applied file, want it modified", i, s)
		}
		if d := g.Git("diff", "--stat"); !strings.Contains(d, "a.nika.yaml") {
			t.Fatalf("round %d: git diff does not see the edit: %q", i, d)
		}
		g.Git("checkout", "--", "a.nika.yaml")
		g.Clean()
	}
}

// TestStateWorkingTreeEncoding: under working-tree-encoding=UTF-16 the
// blob is UTF-8 and the disk what git checkout writes (UTF-16 with a
// BOM); a fresh checkout by git writes the same bytes nika wrote.
func TestStateWorkingTreeEncoding(t *testing.T) {
	g := stateRepo(t)
	g.Write(".gitattributes", "*.u16 working-tree-encoding=UTF-16\n")
	g.Write("w.u16", string([]byte{0xff, 0xfe, 'a', 0, '\n', 0}))
	g.Commit("utf-16")
	if got := g.Git("cat-file", "blob", "HEAD:w.u16"); got != "a" {
		t.Fatalf("the blob is not UTF-8: %q", got)
	}
	p := convertedApply(t, g, "```text path=w.u16\nb\n```\n```text path=n.u16\nnew\n```\n",
		map[string]string{"w.u16": "b\n", "n.u16": "new\n"}, nil)
	nika := map[string]string{"w.u16": g.Read("w.u16"), "n.u16": g.Read("n.u16")}
	for path, b := range nika {
		if !strings.HasPrefix(b, "\xff\xfe") && !strings.HasPrefix(b, "\xfe\xff") {
			t.Errorf("%s on disk has no BOM: %q", path, b)
		}
		os.Remove(filepath.Join(g.Dir, path))
		g.Git("checkout", "--", path)
		if got := g.Read(path); got != b {
			t.Errorf("%s: git checkout writes %q, nika wrote %q", path, got, b)
		}
	}
	for _, c := range p.Proposal.Set.Changes {
		if c.After.Disk == nil || c.After.Disk.Conv.Encoding != "UTF-16" {
			t.Errorf("%s: the conversion is not named: %+v", c.Path, c.After.Disk)
		}
	}
}

// TestStateAttributesChangeRefused: a proposal that changes .gitattributes
// so that another path it writes converts otherwise is refused, with
// nothing written; one that changes it harmlessly applies.
func TestStateAttributesChangeRefused(t *testing.T) {
	g := stateRepo(t)
	refused(t, g, "```text path=.gitattributes\n*.nika.yaml text eol=crlf\n```\n"+stateChange, refusal.Unsupported, "changes how git converts")
	r := openRepo(t, g.Dir)
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte("```text path=.gitattributes\n*.bin -text\n```\n" + stateChange), Allow: []string{"**"}})
	if err != nil {
		t.Fatalf("a harmless .gitattributes change: %v", err)
	}
	if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
		t.Fatal(err)
	}
	g.Clean()
}

// TestStateAutocrlfInPart: a proposal taken in part (one hunk of two) on
// a path git converts: the derived proposal's disk form is git's checkout
// of its blob, and it applies as git would.
func TestStateAutocrlfInPart(t *testing.T) {
	g := stateRepo(t)
	g.Git("config", "core.autocrlf", "true")
	g.Write("long.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n")
	g.Commit("long")
	g.Git("rm", "-q", "--cached", "-r", ".")
	g.Git("reset", "-q", "--hard")
	r := openRepo(t, g.Dir)
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte("```text path=long.txt\none\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n```\n"), Allow: []string{"**"}})
	if err != nil {
		t.Fatal(err)
	}
	part, err := flow.Derive(flow.FromGit(r), p, flow.Choice{Drop: []flow.HunkRef{{Path: "long.txt", N: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Apply(flow.FromGit(r), part, consent.Options{}); err != nil {
		t.Fatalf("apply the part: %v", err)
	}
	if got := g.Git("cat-file", "blob", "HEAD:long.txt"); got != "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12" {
		t.Errorf("blob %q", got)
	}
	if got := g.Read("long.txt"); got != "one\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8\r\n9\r\n10\r\n11\r\n12\r\n" {
		t.Errorf("disk %q", got)
	}
	g.Clean()
}
