package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nika-dev/nika/hostpath"
)

// Defaults of Options.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultOutputLimit = 64 << 10
	// DefaultPath is the PATH a hook gets when nika itself runs without one.
	DefaultPath = "/usr/local/bin:/usr/bin:/bin"
)

// drainDelay bounds how long Run waits for a hook's output after the hook's
// process group is dead, in case a process that left the group (setsid)
// still holds the pipe.
const drainDelay = 2 * time.Second

// Env is what a hook is told about the apply. Root is the worktree root,
// which is also the hook's working directory.
type Env struct {
	ProposalID string
	Commit     string // the applied commit
	Base       string // its parent; empty for a first commit
	Branch     string
	Paths      []string // repo-relative paths the set wrote or removed
	// Removed are the paths among Paths that the apply removed (deletes
	// and the sources of moves): they are reported as removed, not checked.
	Removed []string
	Root    string
}

// Options bound a hook. Zero values take the defaults.
type Options struct {
	Timeout     time.Duration // per hook; <= 0 means DefaultTimeout
	OutputLimit int           // bytes of output kept per hook; <= 0 means DefaultOutputLimit
	TempDir     string        // where the private run directory is made; "" means os.TempDir()
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.OutputLimit <= 0 {
		o.OutputLimit = DefaultOutputLimit
	}
	if o.TempDir == "" {
		o.TempDir = os.TempDir()
	}
	return o
}

// Result is what one entry of the hooks directory did.
//
// A hook that ran has Skipped == "" and Error == "". Exit is its exit code,
// or -1 when a signal ended it (Signal says which; a timeout is the SIGKILL
// nika sent, and TimedOut is set). An entry that was not a runnable hook
// has Skipped set to the reason; it is a note, not a failure. A hook that
// should have run and could not (it failed to start, or the run was
// cancelled) has Error set and Exit -1.
type Result struct {
	Name     string
	Exit     int
	Signal   int
	TimedOut bool
	Skipped  string
	Error    string
	Output   string // stdout and stderr as written, up to the limit
	Duration time.Duration
}

// Failed reports whether the hook should have passed and did not.
func (r Result) Failed() bool {
	if r.Skipped != "" {
		return false
	}
	return r.Exit != 0 || r.Signal != 0 || r.TimedOut || r.Error != ""
}

// Run runs the snapshot's hooks one after another, in name order, and
// returns one result per entry of the snapshot (skipped ones included).
// Each hook is written from the snapshot into a private directory and run
// from there, with env.Root as its working directory and the explicit
// environment described in the package documentation. Run never returns an
// error: what went wrong is in the results, and cancelling ctx stops the
// running hook (its process group is killed) and the ones after it.
func (s *Set) Run(ctx context.Context, env Env, opt Options) []Result {
	if s == nil || len(s.hooks) == 0 {
		return nil
	}
	opt = opt.withDefaults()
	results := make([]Result, 0, len(s.hooks))
	root, tmp, environ, prepErr := prepare(env, opt)
	if tmp != "" {
		defer os.RemoveAll(tmp)
	}
	for i, h := range s.hooks {
		switch {
		case h.skip != "":
			results = append(results, Result{Name: h.name, Skipped: h.skip})
		case prepErr != "":
			results = append(results, Result{Name: h.name, Exit: -1, Error: prepErr})
		case ctx.Err() != nil:
			results = append(results, Result{Name: h.name, Exit: -1, Error: "not run: cancelled"})
		default:
			results = append(results, runOne(ctx, h, filepath.Join(tmp, strconv.Itoa(i)), root, environ, opt))
		}
	}
	scrubHostPaths(results, env.Root, tmp, opt)
	return results
}

// scrubHostPaths rewrites the host's paths in what the hooks printed and
// in the reasons they did not run, with the one scrubber (package
// hostpath): the verdict is recorded into a git note, which reaches nika
// log --json and every clone the notes are pushed to, so it holds no
// absolute path of this machine (law 7). The work tree becomes relative,
// the hooks' private directory <tmp>, home <home>, the directories on the
// hook's PATH and any other absolute path <path>.
func scrubHostPaths(results []Result, root, tmp string, opt Options) {
	if root != "" {
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
	}
	s := hostpath.New(root, hostpath.Options{Temp: []string{tmp, opt.TempDir}, Path: filepath.SplitList(DefaultPath)})
	for i := range results {
		results[i].Output = s.Text(results[i].Output)
		results[i].Error = s.Text(results[i].Error)
		results[i].Skipped = s.Text(results[i].Skipped)
	}
}

// prepare resolves the root, makes the private directory and builds the
// environment. A non-empty problem means no hook can run.
func prepare(env Env, opt Options) (root, tmp string, environ []string, problem string) {
	if env.Root == "" {
		return "", "", nil, "not run: no worktree root was given"
	}
	root, err := filepath.Abs(env.Root)
	if err != nil {
		return "", "", nil, "not run: cannot resolve the worktree root"
	}
	environ = env.environ(root)
	for _, kv := range environ {
		if strings.IndexByte(kv, 0) >= 0 {
			return "", "", nil, "not run: the environment would hold a NUL byte"
		}
	}
	tmp, err = os.MkdirTemp(opt.TempDir, "nika-hooks-")
	if err != nil {
		return "", "", nil, fmt.Sprintf("not run: cannot make a private directory: %v", errnoOf(err))
	}
	if inside(tmp, root) {
		return "", tmp, nil, "not run: the temporary directory is inside the worktree · set TMPDIR elsewhere"
	}
	return root, tmp, environ, ""
}

// inside reports whether dir lies within root, symlinks resolved.
func inside(dir, root string) bool {
	d, err1 := filepath.EvalSymlinks(dir)
	r, err2 := filepath.EvalSymlinks(root)
	if err1 != nil || err2 != nil {
		d, r = filepath.Clean(dir), filepath.Clean(root)
	}
	rel, err := filepath.Rel(r, d)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// environ is the whole environment of a hook: nothing of nika's own
// environment but PATH, HOME, LANG and LC_ALL.
func (e Env) environ(root string) []string {
	path, ok := os.LookupEnv("PATH")
	if !ok || path == "" {
		path = DefaultPath
	}
	out := []string{"PATH=" + path}
	for _, k := range []string{"HOME", "LANG", "LC_ALL"} {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	return append(out,
		"PWD="+root,
		"NIKA_PROPOSAL_ID="+e.ProposalID,
		"NIKA_COMMIT="+e.Commit,
		"NIKA_BASE="+e.Base,
		"NIKA_BRANCH="+e.Branch,
		"NIKA_CHANGED_PATHS="+strings.Join(e.Paths, "\n"),
		"NIKA_ROOT="+root,
	)
}

// runOne writes h into its own fresh directory dir and runs it.
func runOne(ctx context.Context, h hook, dir, root string, environ []string, opt Options) Result {
	r := Result{Name: h.name, Exit: -1}
	exe, err := materialize(h, dir)
	if err != nil {
		r.Error = fmt.Sprintf("not run: cannot write the snapshot: %v", errnoOf(err))
		return r
	}
	hctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()

	pr, pw, err := os.Pipe()
	if err != nil {
		r.Error = fmt.Sprintf("not run: %v", errnoOf(err))
		return r
	}
	defer pr.Close()
	out := &capped{limit: opt.OutputLimit}
	drained := make(chan struct{})
	go func() {
		io.Copy(out, pr)
		close(drained)
	}()

	start := time.Now()
	cmd, err := startHook(hctx, exe, root, environ, pw)
	pw.Close() // the hook holds its own copy
	if err != nil {
		<-drained
		r.Error = "could not start: " + startReason(err)
		r.Output = out.String()
		return r
	}
	pid := cmd.Process.Pid
	cmd.Wait()
	// The hook is done: what is left of its group goes with it. The group
	// id cannot have been reused while a member lives; with none left the
	// kill finds no one (a reuse in between would need the pid counter to
	// wrap within microseconds).
	killGroup(pid)
	r.Duration = time.Since(start).Round(time.Millisecond)
	select {
	case <-drained:
	case <-time.After(drainDelay):
		pr.Close()
		<-drained
		out.note("[output cut: a process outside the hook's group kept it open]")
	}
	r.Output = out.String()

	st := cmd.ProcessState
	exited0 := false
	if st != nil {
		ws, _ := st.Sys().(syscall.WaitStatus)
		switch {
		case ws.Signaled():
			r.Signal = int(ws.Signal())
		case ws.Exited():
			r.Exit = ws.ExitStatus()
			exited0 = r.Exit == 0
		}
	}
	switch {
	case ctx.Err() != nil && !exited0:
		r.Error = "stopped: the run was cancelled"
	case errors.Is(hctx.Err(), context.DeadlineExceeded) && !exited0:
		r.TimedOut = true
	}
	return r
}

// materialize writes the snapshot of h as dir/name, mode 0700, in a
// directory it creates itself (so nothing was waiting there).
func materialize(h hook, dir string) (string, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	exe := filepath.Join(dir, h.name)
	f, err := os.OpenFile(exe, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(h.data); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Chmod(0o700); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return exe, nil
}

// startHook starts exe in its own process group. A file just written can be
// briefly "busy" (ETXTBSY) when another goroutine forks while it is open;
// the start is retried a few times then.
func startHook(ctx context.Context, exe, root string, environ []string, w *os.File) (*exec.Cmd, error) {
	var err error
	for attempt := 0; attempt < 8; attempt++ {
		cmd := exec.CommandContext(ctx, exe)
		cmd.Dir = root
		cmd.Env = environ
		cmd.Stdin = nil // /dev/null
		cmd.Stdout = w
		cmd.Stderr = w
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
		if err = cmd.Start(); err == nil {
			return cmd, nil
		}
		if !errors.Is(err, syscall.ETXTBSY) || ctx.Err() != nil {
			return nil, err
		}
		time.Sleep(time.Duration(1<<attempt) * 5 * time.Millisecond)
	}
	return nil, err
}

// startReason says why a hook did not start, without the host's paths.
// The snapshot copy was just written, so ENOENT means the interpreter its
// #! line names is missing.
func startReason(err error) string {
	switch {
	case errors.Is(err, syscall.ENOENT):
		return "the interpreter on its #! line was not found"
	case errors.Is(err, syscall.ENOEXEC):
		return "exec format error (not a program, and no #! line)"
	}
	return errnoOf(err).Error()
}

// killGroup sends SIGKILL to the process group pgid. A group that is
// already gone is not an error.
func killGroup(pgid int) error {
	if pgid <= 1 {
		return nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// capped keeps the first limit bytes written to it and counts the rest, so
// that a hook writing without end never blocks on a full pipe.
type capped struct {
	buf     []byte
	limit   int
	dropped int64
	notes   []string
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.limit - len(c.buf)
	switch {
	case room <= 0:
		c.dropped += int64(len(p))
	case len(p) <= room:
		c.buf = append(c.buf, p...)
	default:
		c.buf = append(c.buf, p[:room]...)
		c.dropped += int64(len(p) - room)
	}
	return len(p), nil
}

func (c *capped) note(s string) { c.notes = append(c.notes, s) }

// String is the kept output, followed by a line saying it was truncated
// when it was.
func (c *capped) String() string {
	var b strings.Builder
	b.Write(c.buf)
	var notes []string
	if c.dropped > 0 {
		notes = append(notes, fmt.Sprintf("[output truncated at %d bytes]", c.limit))
	}
	for _, n := range append(notes, c.notes...) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return b.String()
}
