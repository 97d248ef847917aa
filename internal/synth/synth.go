// Package synth builds synthetic git repositories for benchmarks: N files in
// a tree about four directories deep, with 10 to 200 entries per directory,
// committed through git fast-import (so the objects are packed, as in a real
// clone) and checked out with git itself. Building a large one takes
// seconds, so Build caches it by size under a directory the caller names.
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

// Path returns the i-th file's path in a repository of n files.
func Path(n, i int) string {
	const perLeaf = 20
	leaves := (n + perLeaf - 1) / perLeaf
	fan := int(math.Ceil(math.Cbrt(float64(leaves))))
	if fan < 1 {
		fan = 1
	}
	leaf := i / perLeaf
	a, b, c := leaf/(fan*fan), (leaf/fan)%fan, leaf%fan
	return fmt.Sprintf("d%02d/s%02d/t%02d/file%05d.txt", a, b, c, i)
}

// Build makes (or reuses) a repository of n files in cache/repo-<n>, with
// the working tree checked out and a clean index, and returns its path. The
// environment must already isolate git (see internal/gittest).
func Build(cache string, n int) (string, error) {
	dir := filepath.Join(cache, fmt.Sprintf("repo-%d", n))
	if _, err := os.Stat(filepath.Join(dir, ".git", "synth-done")); err == nil {
		return dir, nil
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	run := func(stdin func(w *bufio.Writer) error, args ...string) error {
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
	if err := run(nil, "init", "-q", "-b", "main"); err != nil {
		return "", err
	}
	err := run(func(w *bufio.Writer) error {
		for i := 0; i < n; i++ {
			body := fmt.Sprintf("file %d\nline two of file %d\n", i, i)
			fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(body), body)
		}
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Synth <synth@example.com> 1700000000 +0000\ndata 5\nsynth\n", n+1)
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "M 100644 :%d %s\n", i+1, Path(n, i))
		}
		fmt.Fprintln(w)
		return nil
	}, "fast-import", "--quiet")
	if err != nil {
		return "", err
	}
	if err := run(nil, "reset", "-q", "--hard", "main"); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "synth-done"), nil, 0o644); err != nil {
		return "", err
	}
	return dir, nil
}
