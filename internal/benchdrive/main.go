// Command benchdrive is the benchmark harness of scripts/bench.sh: it builds
// the synthetic repositories, writes change sets, and applies a proposal by
// calling flow.Apply directly. The harness supplies the consent that the
// nika binary reads only from a terminal: it exists for measurement and is
// never built into nika.
//
//	benchdrive synth DIR N [manyfiles] build (or reuse) DIR/repo-N (or DIR/repo-N-manyfiles, with
//	                                   feature.manyFiles), print its path
//	benchdrive change REPO N K SEQ OUT write a change set of K files: OUT.reply (nika's
//	                                   fenced reply), OUT.patch (git apply's patch),
//	                                   OUT.paths (one path a line)
//	benchdrive edit REPO N K SEQ OUT   write a change set of K files that each replace their
//	                                   last line (OUT.reply), for a rebase
//	benchdrive move-head REPO N K SEQ  rewrite the first line of every other target of edit and
//	                                   commit them with git: the HEAD a rebase brings a proposal onto
//	benchdrive apply REPO ID [witnessed] apply a pending proposal (consent by the harness):
//	                                   flow.Load then flow.Apply, or with witnessed the
//	                                   proposal loaded without its bytes (gitstage.LoadWitnessed),
//	                                   which the transaction reads back one file at a time
//	benchdrive propose REPO FILE       propose FILE (a fenced reply) as nika propose --json does
//	                                   (flow.Propose, then the JSON preview), print the id
//	benchdrive propose-apply REPO FILE propose FILE (a fenced reply) and apply it, in one process
//	benchdrive check REPEAT FILE...    run the checker over the files REPEAT times (for profiles of
//	                                   what nika check spends inside the checker), on
//	                                   $BENCH_WORKERS goroutines (1)
//	benchdrive time CMD ARGS...        run CMD (stdout to $BENCH_STDOUT or /dev/null), print
//	                                   "wall_ms cpu_ms peak_rss_kb" (getrusage, µs resolution);
//	                                   with $BENCH_RSS_SPLIT, write there "anon_kb file_kb": the
//	                                   largest RssAnon and RssFile seen (/proc, every 2 ms)
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest/synth"
	"github.com/nika-dev/nika/preview"
)

func main() {
	if p := os.Getenv("BENCH_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	if p := os.Getenv("BENCH_MEMPROFILE"); p != "" {
		defer func() {
			if f, err := os.Create(p); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	if err := run(os.Args[1:]); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "benchdrive:", err)
		os.Exit(1)
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchdrive: not a number:", s)
		os.Exit(2)
	}
	return n
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: benchdrive synth|change|apply|propose-apply ...")
	}
	switch args[0] {
	case "synth":
		if len(args) != 3 && len(args) != 4 {
			return fmt.Errorf("usage: benchdrive synth DIR N [manyfiles]")
		}
		variant := synth.Default
		if len(args) == 4 {
			variant = args[3]
		}
		dir, err := synth.BuildVariant(args[1], atoi(args[2]), variant)
		if err != nil {
			return err
		}
		fmt.Println(dir)
		return nil
	case "change":
		if len(args) != 6 {
			return fmt.Errorf("usage: benchdrive change REPO N K SEQ OUT")
		}
		cs, err := synth.Change(args[1], atoi(args[2]), atoi(args[3]), atoi(args[4]))
		if err != nil {
			return err
		}
		if err := os.WriteFile(args[5]+".reply", cs.Reply, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(args[5]+".patch", cs.Patch, 0o644); err != nil {
			return err
		}
		return os.WriteFile(args[5]+".paths", []byte(strings.Join(cs.Paths, "\n")+"\n"), 0o644)
	case "edit":
		if len(args) != 6 {
			return fmt.Errorf("usage: benchdrive edit REPO N K SEQ OUT")
		}
		cs, err := synth.EditChange(args[1], atoi(args[2]), atoi(args[3]), atoi(args[4]))
		if err != nil {
			return err
		}
		return os.WriteFile(args[5]+".reply", cs.Reply, 0o644)
	case "move-head":
		if len(args) != 5 {
			return fmt.Errorf("usage: benchdrive move-head REPO N K SEQ")
		}
		paths, err := synth.HeadEdit(args[1], atoi(args[2]), atoi(args[3]), atoi(args[4]))
		if err != nil {
			return err
		}
		cmd := exec.Command("git", append([]string{"commit", "-q", "-m", "HEAD moves " + args[4], "--"}, paths...)...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = args[1], os.Stderr, os.Stderr
		return cmd.Run()
	case "apply":
		if len(args) != 3 && !(len(args) == 4 && args[3] == "witnessed") {
			return fmt.Errorf("usage: benchdrive apply REPO ID [witnessed]")
		}
		r, err := gitstage.Open(args[1])
		if err != nil {
			return err
		}
		var p *flow.Proposed
		if len(args) == 4 {
			p, err = loadWitnessed(r, args[2])
		} else {
			p, err = flow.Load(flow.FromGit(r), args[2])
		}
		if err != nil {
			return err
		}
		heapProfile("loaded")
		opt := consent.Options{Sync: syncWanted(r)}
		if os.Getenv("BENCH_HEAPPROFILE") != "" {
			// the live heap at the ends of the transaction's phases
			opt.Fault = func(step string, i int) error {
				switch step {
				case "journaled", "written", "index", "index-written":
					heapProfile(step)
				}
				return nil
			}
		}
		_, err = flow.Apply(flow.FromGit(r), p, opt)
		return err
	case "time":
		return timeCmd(args[1:])
	case "check":
		if len(args) < 3 {
			return fmt.Errorf("usage: benchdrive check REPEAT FILE...")
		}
		var data [][]byte
		for _, f := range args[2:] {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			data = append(data, b)
		}
		// BENCH_WORKERS checks the files on that many goroutines (what a
		// parallel nika check would do).
		workers := 1
		if w := os.Getenv("BENCH_WORKERS"); w != "" {
			workers = atoi(w)
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		findings := 0
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for n := atoi(args[1]); n > 0; n-- {
					for i, f := range args[2:] {
						if i%workers != w {
							continue
						}
						// as nika check judges a file outside a
						// repository: with the disk beside it
						abs, _ := filepath.Abs(f)
						k := len(checker.CheckFS(flow.DiskFS(filepath.Dir(abs)), filepath.Base(abs), data[i]).Findings)
						mu.Lock()
						findings += k
						mu.Unlock()
					}
				}
			}(w)
		}
		wg.Wait()
		fmt.Println(findings)
		return nil
	case "propose":
		if len(args) != 3 {
			return fmt.Errorf("usage: benchdrive propose REPO FILE")
		}
		r, err := gitstage.Open(args[1])
		if err != nil {
			return err
		}
		in, err := os.ReadFile(args[2])
		if err != nil {
			return err
		}
		p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: in, Format: "reply", Allow: []string{"**"}, Goal: "bench"})
		if err != nil {
			return err
		}
		if p.Empty() {
			return fmt.Errorf("nothing to propose: the files already hold these bytes")
		}
		heapProfile("proposed")
		var b bytes.Buffer
		if err := preview.JSON(&b, flow.PreviewInput(p)); err != nil {
			return err
		}
		heapProfile("rendered")
		fmt.Println(p.Proposal.ID)
		return nil
	case "propose-apply":
		if len(args) != 3 {
			return fmt.Errorf("usage: benchdrive propose-apply REPO FILE")
		}
		r, err := gitstage.Open(args[1])
		if err != nil {
			return err
		}
		in, err := os.ReadFile(args[2])
		if err != nil {
			return err
		}
		p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: in, Format: "reply", Allow: []string{"**"}, Goal: "bench"})
		if err != nil {
			return err
		}
		if p.Empty() {
			return fmt.Errorf("nothing to propose: the files already hold these bytes")
		}
		_, err = flow.Apply(flow.FromGit(r), p, consent.Options{Sync: syncWanted(r)})
		return err
	}
	return fmt.Errorf("unknown command %q", args[0])
}

// heapProfile writes the live heap to $BENCH_HEAPPROFILE.at (after a
// collection) when BENCH_HEAPPROFILE is set: what a process holds at that
// point.
func heapProfile(at string) {
	p := os.Getenv("BENCH_HEAPPROFILE")
	if p == "" {
		return
	}
	runtime.GC()
	if f, err := os.Create(p + "." + at); err == nil {
		pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
}

// loadWitnessed is flow.Load's path for a proposal of this repository's
// registry (the record, the commit re-derived, the ids compared) through
// gitstage.LoadWitnessed: the proposal the transaction needs, without the
// bytes a preview needs.
func loadWitnessed(r *gitstage.Repo, id string) (*flow.Proposed, error) {
	rec, err := r.Find(id)
	if err != nil {
		return nil, err
	}
	l, err := r.LoadWitnessed(plumbing.NewHash(rec.Commit), preview.ID)
	if err != nil {
		return nil, err
	}
	if l.Proposal.ID != rec.ID || l.ClaimedID != rec.ID {
		return nil, fmt.Errorf("the proposal %s no longer matches its commit %s", rec.ID, rec.Commit)
	}
	l.Proposal.Set.Branch, l.Proposal.Set.Root = rec.Branch, r.Root
	return &flow.Proposed{Proposal: l.Proposal, Record: rec}, nil
}

// syncWanted reads git's fsync settings as nika apply does.
func syncWanted(r *gitstage.Repo) bool {
	_, a := r.Config.Get("core.fsync")
	_, b := r.Config.Get("core.fsyncMethod")
	return a || b || r.Config.Bool("core.fsyncObjectFiles", false)
}

// timeCmd runs a command and prints its wall time, CPU time (user+system)
// and peak resident memory.
func timeCmd(argv []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("usage: benchdrive time CMD ARGS...")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	if p := os.Getenv("BENCH_STDOUT"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		cmd.Stdout = f
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	var split chan [2]int
	if p := os.Getenv("BENCH_RSS_SPLIT"); p != "" {
		split = make(chan [2]int, 1)
		go func() { split <- pollRSS(cmd.Process.Pid) }()
		defer func() {
			m := <-split
			os.WriteFile(p, []byte(fmt.Sprintf("%d %d\n", m[0], m[1])), 0o644)
		}()
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("%.2f %.2f %d\n", float64(wall.Microseconds())/1000, float64(cpu.Microseconds())/1000, ru.Maxrss)
	return nil
}

// pollRSS samples /proc/PID/status every 2 ms until the process is gone
// and returns the largest RssAnon and RssFile it saw, in KiB: which part
// of a peak is the heap and which is mapped files (the index, packs, the
// binary). A sample can miss a peak shorter than the interval.
func pollRSS(pid int) [2]int {
	var m [2]int
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil || bytes.Contains(b, []byte("State:\tZ")) {
			return m
		}
		for i, key := range []string{"RssAnon:", "RssFile:"} {
			if j := bytes.Index(b, []byte(key)); j >= 0 {
				var kb int
				fmt.Sscan(string(b[j+len(key):]), &kb)
				m[i] = max(m[i], kb)
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
}
