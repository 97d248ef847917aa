package flow

// The files nika check judges on disk, and the pool that checks them.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/refusal"
)

// DiskTarget is one file nika check judges: its path relative to the
// root whose disk holds its neighbours, and that root.
type DiskTarget struct {
	Root string // absolute: the repository root, or the directory judged from outside one
	Path string // slash-separated, relative to root: what the report names
}

// DiskTargets lists the workflow and project files named by args (files,
// or directories walked for them); with no args, every workflow and project
// file beneath the repository root, or beneath the current directory
// outside a repository. A file inside the repository is judged against the
// repository root (repo is nil outside one); any other file against the
// current directory when it lies beneath it, else against its own
// directory. The files beside a workflow are read from that root's disk.
func DiskTargets(repo *Repo, args []string) ([]DiskTarget, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, refusal.New(refusal.Io, "", "could not read the working directory: %v", unwrapPath(err))
	}
	if len(args) == 0 {
		args = []string{"."}
		if repo != nil {
			args = []string{repo.Root()}
		}
	}
	beneath := func(root, abs string) (string, bool) {
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return "", false
		}
		return filepath.ToSlash(rel), true
	}
	rootOf := func(abs string, dir bool) (string, string) {
		if repo != nil {
			if rel, ok := beneath(repo.Root(), abs); ok {
				return repo.Root(), rel
			}
		}
		if rel, ok := beneath(wd, abs); ok {
			return wd, rel
		}
		if dir {
			return abs, "."
		}
		return filepath.Dir(abs), filepath.Base(abs)
	}
	seen := map[DiskTarget]bool{}
	var out []DiskTarget
	add := func(t DiskTarget) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, a := range args {
		abs := a
		if !filepath.IsAbs(a) {
			abs = filepath.Join(wd, a)
		}
		abs = filepath.Clean(abs)
		fi, err := os.Lstat(abs)
		if err != nil {
			return nil, refusal.New(refusal.NotFound, "check the path", "cannot check %s: %v", changeset.Quote(a), unwrapPath(err))
		}
		if !fi.IsDir() {
			root, rel := rootOf(abs, false)
			add(DiskTarget{root, rel})
			continue
		}
		root, _ := rootOf(abs, true)
		err = filepath.WalkDir(abs, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() && (e.Name() == ".git" || e.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if !e.Type().IsRegular() {
				return nil
			}
			r, ok := beneath(root, p)
			if ok && changeset.Classify(changeset.Path(r)).Audited() {
				add(DiskTarget{root, r})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Root != out[j].Root {
			return out[i].Root < out[j].Root
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

// CheckPool checks files on as many goroutines as the process has cores
// (at most maxCheckWorkers), while the caller reads the next file: each
// file's audit is independent of the others (a checker per file, the
// checker's tables read-only), and the reports keep the order of the
// targets. The workers live for the whole check, so that each grows its
// stack (the YAML parser's recursion) once, not once per file.
type CheckPool struct {
	reports []checker.Report
	jobs    chan checkJob
	wg      sync.WaitGroup
	closed  bool
}

type checkJob struct {
	i int
	t DiskTarget
	b []byte
}

const maxCheckWorkers = 4

// NewCheckPool is a pool for n files.
func NewCheckPool(n int) *CheckPool {
	p := &CheckPool{reports: make([]checker.Report, n), jobs: make(chan checkJob, n)}
	for w := min(runtime.GOMAXPROCS(0), maxCheckWorkers, n); w > 0; w-- {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				p.reports[j.i] = checker.CheckFS(DiskFS(j.t.Root), j.t.Path, j.b)
			}
		}()
	}
	return p
}

// Check queues target i's bytes b for an audit on the pool.
func (p *CheckPool) Check(i int, t DiskTarget, b []byte) {
	p.jobs <- checkJob{i, t, b}
}

// Wait waits for every audit queued and returns the reports, in the order
// of the targets; nil when there were none. No check may follow it.
func (p *CheckPool) Wait() []checker.Report {
	if !p.closed {
		close(p.jobs)
		p.closed = true
	}
	p.wg.Wait()
	if len(p.reports) == 0 {
		return nil
	}
	return p.reports
}

// unwrapPath is an error of the file system without its path, which the
// refusal names itself.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
