package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
)

func (d *door) checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check Nika workflows and project files on disk, in a repository or anywhere (exit 0 clean, 2 findings, 3 internal error)",
		ArgsUsage: "[PATH...]",
		Flags: []cli.Flag{jsonFlag,
			&cli.BoolFlag{Name: "fix", Usage: "stage the fix ladder's repairs as a proposal (never writes in place)"}},
		Action: d.check,
	}
}

// checkTarget is one file nika check judges: its path relative to the
// root whose disk holds its neighbours, and that root.
type checkTarget struct {
	root string // absolute: the repository root, or the directory judged from outside one
	path string // slash-separated, relative to root: what the report names
}

// checkTargets lists the workflow and project files named by args (files,
// or directories walked for them); with no args, every workflow and project
// file beneath the repository root, or beneath the current directory
// outside a repository. A file inside the repository is judged against the
// repository root (repo is nil outside one); any other file against the
// current directory when it lies beneath it, else against its own
// directory. The files beside a workflow are read from that root's disk.
func checkTargets(repo *flow.Repo, args []string) ([]checkTarget, error) {
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
	seen := map[checkTarget]bool{}
	var out []checkTarget
	add := func(t checkTarget) {
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
			add(checkTarget{root, rel})
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
				add(checkTarget{root, r})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].root != out[j].root {
			return out[i].root < out[j].root
		}
		return out[i].path < out[j].path
	})
	return out, nil
}

func (d *door) check(c *cli.Context) error {
	// Inside a repository the repository is the root; outside one the
	// files are judged on their own, with the disk beside them.
	r, err := d.openRepo()
	if err != nil {
		if refusal.ClassOf(err) != refusal.NotFound {
			return err
		}
		r = nil
		if c.Bool("fix") {
			return refusal.New(refusal.Invalid, "run nika check --fix inside a git repository, or nika check without --fix here",
				"--fix stages the repairs as a proposal, which needs a git repository, and this is not one")
		}
	}
	targets, err := checkTargets(r, c.Args().Slice())
	if err != nil {
		return err
	}
	// A check is a short process that allocates a few times the bytes it
	// reads and keeps only the reports: the collector would spend a tenth
	// of its time on garbage that the exit frees anyway.
	defer debug.SetGCPercent(debug.SetGCPercent(checkGCPercent))
	pool := newCheckPool(len(targets))
	defer pool.wait()
	var draft changeset.Draft
	draft.Format = "fix"
	var repairs []string
	for i, t := range targets {
		b, err := flow.ReadDisk(t.root, t.path)
		if err != nil {
			return err
		}
		pool.check(i, t, b)
		if c.Bool("fix") {
			fixed, steps, _ := checker.Repair(t.path, b)
			if len(steps) > 0 && string(fixed) != string(b) {
				if r == nil || t.root != r.Root() {
					return refusal.New(refusal.Invalid, "name only files inside the repository with --fix",
						"--fix stages the repairs as a proposal of this repository, and %s is outside it", changeset.Quote(t.path))
				}
				draft.Intents = append(draft.Intents, changeset.Intent{Op: changeset.OpEdit, Path: t.path, Content: fixed})
				for _, s := range steps {
					repairs = append(repairs, fmt.Sprintf("%s:%d %s", t.path, s.Line, s.Description))
				}
			}
		}
	}
	reports := pool.wait()
	clean := true
	for _, rep := range reports {
		clean = clean && rep.Clean()
	}
	var fixID string
	if c.Bool("fix") && len(draft.Intents) > 0 {
		p, err := flow.ProposeDraft(r, &draft, flow.ProposeInput{Goal: "repair dead Nika forms (nika check --fix)"})
		if err != nil {
			return err
		}
		if !p.Empty() {
			fixID = p.ID()
		}
	}
	if !clean {
		d.code = exitFindings
	}
	if d.json {
		if reports == nil {
			reports = []checker.Report{}
		}
		return d.writeJSON(checkJSON{Type: "check", Clean: clean, Reports: reports, FixProposal: fixID})
	}
	n := 0
	for _, rep := range reports {
		for _, f := range rep.Findings {
			n++
			fmt.Fprintf(d.stdout, "%s:%d:%d: %s %s: %s\n", escape(rep.Path), f.Line, f.Col, f.Severity, f.Code, escape(f.Message))
			if f.Fix != "" {
				fmt.Fprintf(d.stdout, "    fix: %s\n", escape(f.Fix))
			}
		}
	}
	switch {
	case len(reports) == 0:
		fmt.Fprintln(d.stdout, "no Nika workflow or project file to check")
	case clean && n == 0:
		fmt.Fprintf(d.stdout, "%d file(s) checked: clean\n", len(reports))
	case clean:
		fmt.Fprintf(d.stdout, "%d file(s) checked: clean, with %d warning(s)\n", len(reports), n)
	default:
		fmt.Fprintf(d.stdout, "%d file(s) checked: %d finding(s)\n", len(reports), n)
	}
	for _, rp := range repairs {
		fmt.Fprintf(d.stdout, "repair: %s\n", escape(rp))
	}
	if fixID != "" {
		fmt.Fprintf(d.stdout, "the repairs are staged as proposal %s; review and apply them with: nika apply %s\n", fixID, fixID[:12])
	} else if c.Bool("fix") {
		fmt.Fprintln(d.stdout, "the fix ladder found nothing to repair")
	}
	return nil
}

// checkGCPercent is the collector's target while nika check runs (see
// check).
const checkGCPercent = 400

// checkPool checks files on as many goroutines as the process has cores
// (at most maxCheckWorkers), while the caller reads the next file: each
// file's audit is independent of the others (a checker per file, the
// checker's tables read-only), and the reports keep the order of the
// targets. The workers live for the whole check, so that each grows its
// stack (the YAML parser's recursion) once, not once per file.
type checkPool struct {
	reports []checker.Report
	jobs    chan checkJob
	wg      sync.WaitGroup
	closed  bool
}

type checkJob struct {
	i int
	t checkTarget
	b []byte
}

const maxCheckWorkers = 4

func newCheckPool(n int) *checkPool {
	p := &checkPool{reports: make([]checker.Report, n), jobs: make(chan checkJob, n)}
	for w := min(runtime.GOMAXPROCS(0), maxCheckWorkers, n); w > 0; w-- {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				p.reports[j.i] = checker.CheckFS(flow.DiskFS(j.t.root), j.t.path, j.b)
			}
		}()
	}
	return p
}

// check queues target i's bytes b for an audit on the pool.
func (p *checkPool) check(i int, t checkTarget, b []byte) {
	p.jobs <- checkJob{i, t, b}
}

// wait waits for every audit queued and returns the reports, in the order
// of the targets; nil when there were none. No check may follow it.
func (p *checkPool) wait() []checker.Report {
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
