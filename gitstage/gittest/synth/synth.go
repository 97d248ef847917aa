// Package synth builds synthetic git repositories for benchmarks: N files
// five levels deep (four directory levels, then the file), 20 files in each
// leaf directory and the directory levels fanned out as evenly as N allows
// (at 300,000 files: 12 entries per directory level, 20 per leaf), with a
// history of a few hundred commits. Everything goes through git fast-import
// (so the objects are in a pack, as in a real clone, and object lookups hit
// the pack index), then git checks the tree out. Building a large one takes
// a minute, so Build caches it by size under a directory the caller names.
//
// The file bytes are deterministic: Content(i, 0) for a file no commit of
// the history touched; the history's commits rewrite a few files each
// (HistoryTouches lists which), so a benchmark reads the bytes it needs from
// disk rather than recomputing them.
package synth

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Depth is the number of directory levels above every file.
const Depth = 4

// PerLeaf is the number of files in each leaf directory.
const PerLeaf = 20

// Commits is the length of the history Build writes: the first commit
// adds every file, each later one rewrites TouchPerCommit files.
const Commits = 300

// TouchPerCommit is the number of files each history commit rewrites.
const TouchPerCommit = 5

// fan is the number of entries per directory level for n files.
func fan(n int) int {
	leaves := (n + PerLeaf - 1) / PerLeaf
	f := int(math.Ceil(math.Pow(float64(leaves), 1/float64(Depth))))
	for f > 1 && pow(f-1, Depth) >= leaves {
		f--
	}
	for pow(f, Depth) < leaves {
		f++
	}
	if f < 1 {
		f = 1
	}
	return f
}

func pow(a, b int) int {
	r := 1
	for ; b > 0; b-- {
		r *= a
	}
	return r
}

// Path returns the i-th file's path in a repository of n files:
// d/s/t/u/file, four directory levels deep.
func Path(n, i int) string {
	f := fan(n)
	leaf := i / PerLeaf
	u := leaf % f
	t := (leaf / f) % f
	s := (leaf / (f * f)) % f
	d := leaf / (f * f * f)
	return fmt.Sprintf("d%02d/s%02d/t%02d/u%02d/file%06d.txt", d, s, t, u, i)
}

// Content is the bytes of file i at history version v (0: as first
// committed): a few hundred bytes of text lines, different per file.
func Content(i, v int) []byte {
	var b strings.Builder
	lines := 6 + i%17
	fmt.Fprintf(&b, "// file %d, version %d\n", i, v)
	for l := 0; l < lines; l++ {
		fmt.Fprintf(&b, "line %d of file %d: the quick brown fox jumps over the lazy dog %d\n", l, i, (i*31+l*7+v)%1000)
	}
	return []byte(b.String())
}

// HistoryTouches lists the files that history commit c (1..Commits-1)
// rewrites in a repository of n files.
func HistoryTouches(n, c int) []int {
	out := make([]int, 0, TouchPerCommit)
	for k := 0; k < TouchPerCommit; k++ {
		out = append(out, int((uint64(c)*7919+uint64(k)*104729)*2654435761%uint64(n)))
	}
	return out
}

// Build makes (or reuses) a repository of n files in cache/repo-<n>, with
// the working tree checked out and a clean index, and returns its path. The
// environment must already isolate git (see gitstage/gittest).
func Build(cache string, n int) (string, error) { return BuildVariant(cache, n, "") }

// Variants of the repository's configuration that BuildVariant knows.
const (
	// Default is git's default index: version 2, with a cache-tree.
	Default = ""
	// ManyFiles is feature.manyFiles: an index of version 4 (path prefix
	// compression) and the untracked cache, which git status fills. With
	// git 2.40 and later it also means index.skipHash; git 2.39 ignores
	// that setting and writes the checksum.
	ManyFiles = "manyfiles"
)

// BuildVariant is Build for a variant of the configuration (Default or
// ManyFiles), in cache/repo-<n> or cache/repo-<n>-<variant>.
func BuildVariant(cache string, n int, variant string) (string, error) {
	name := fmt.Sprintf("repo-%d", n)
	switch variant {
	case Default:
	case ManyFiles:
		name += "-" + variant
	default:
		return "", fmt.Errorf("synth: unknown variant %q", variant)
	}
	dir := filepath.Join(cache, name)
	if _, err := os.Stat(filepath.Join(dir, ".git", "synth-done-v2")); err == nil {
		return dir, configure(dir)
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := run(dir, nil, "init", "-q", "-b", "main"); err != nil {
		return "", err
	}
	err := run(dir, func(w *bufio.Writer) error {
		when := int64(1700000000)
		for i := 0; i < n; i++ {
			body := Content(i, 0)
			fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(body), body)
		}
		fmt.Fprintf(w, "commit refs/heads/main\ncommitter Synth <synth@example.com> %d +0000\ndata 5\nsynth\n", when)
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "M 100644 :%d %s\n", i+1, Path(n, i))
		}
		fmt.Fprintln(w)
		for c := 1; c < Commits; c++ {
			when += 3600
			msg := fmt.Sprintf("history commit %d", c)
			fmt.Fprintf(w, "commit refs/heads/main\ncommitter Synth <synth@example.com> %d +0000\ndata %d\n%s\n", when, len(msg), msg)
			for _, i := range HistoryTouches(n, c) {
				body := Content(i, c)
				fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", Path(n, i), len(body), body)
			}
			fmt.Fprintln(w)
		}
		return nil
	}, "fast-import", "--quiet")
	if err != nil {
		return "", err
	}
	// One pack with real deltas, as a clone has (fast-import's pack holds
	// few); then check the tree out.
	if err := run(dir, nil, "repack", "-adq", "--window=10", "--depth=50"); err != nil {
		return "", err
	}
	if variant == ManyFiles {
		if err := run(dir, nil, "config", "feature.manyFiles", "true"); err != nil {
			return "", err
		}
	}
	if err := run(dir, nil, "reset", "-q", "--hard", "main"); err != nil {
		return "", err
	}
	if variant == ManyFiles {
		if err := run(dir, nil, "status", "--porcelain"); err != nil { // fills the untracked cache
			return "", err
		}
	}
	if err := configure(dir); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "synth-done-v2"), nil, 0o644); err != nil {
		return "", err
	}
	return dir, nil
}

// configure turns git's automatic gc and maintenance off (they would fire
// inside a timed git commit as loose objects pile up) and sets an identity.
func configure(dir string) error {
	for _, kv := range [][2]string{{"gc.auto", "0"}, {"maintenance.auto", "false"}, {"user.name", "Synth"}, {"user.email", "synth@example.com"}} {
		if err := run(dir, nil, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

func run(dir string, stdin func(w *bufio.Writer) error, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if stdin == nil {
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return nil
	}
	w, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := stdin(bw); err != nil {
		return err
	}
	bw.Flush()
	w.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return nil
}
