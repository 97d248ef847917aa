package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Law 7, tested over the whole suite: every machine output that the
// suite's scripts produce (each --json and each nika serve --stdio, of
// every script in testdata/script and testdata/session) is kept aside as
// it is written, and when the script ends it is read: if one holds the
// script's temporary root ($WORK, under which its repository and its HOME
// lie), the script fails, naming the command.

const machineLogVar = "NIKA_TEST_MACHINE_LOG"

var (
	machineLogOnce sync.Once
	machineLogRoot string
	machineLogSeq  atomic.Int64
	// machineOutputs counts the machine outputs read, over the suite.
	machineOutputs atomic.Int64
)

// isMachineOutput: the invocation writes machine output on stdout.
func isMachineOutput(args []string) bool {
	for i, a := range args[1:] {
		if a == "--json" || a == "-json" || (i == 0 && a == "serve") {
			return true
		}
	}
	return false
}

// machineTee is the nika command's stdout in the test binary: when the
// script asked for it, a machine output is also written to a file of its
// own, headed by the command line.
func machineTee(args []string, w *os.File) io.Writer {
	dir := os.Getenv(machineLogVar)
	if dir == "" || !isMachineOutput(args) {
		return w
	}
	f, err := os.CreateTemp(dir, "out-*")
	if err != nil {
		return w
	}
	fmt.Fprintf(f, "%s\n", strings.Join(args, " "))
	return io.MultiWriter(w, f)
}

// watchMachineOutput gives the script a directory for its machine
// outputs, and reads them when it ends.
func watchMachineOutput(env *testscript.Env) error {
	machineLogOnce.Do(func() {
		machineLogRoot, _ = os.MkdirTemp("", "nika-machine-output-")
	})
	if machineLogRoot == "" {
		return fmt.Errorf("no directory for the machine outputs")
	}
	dir := filepath.Join(machineLogRoot, fmt.Sprint(machineLogSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	env.Setenv(machineLogVar, dir)
	roots := []string{env.WorkDir}
	if r, err := filepath.EvalSymlinks(env.WorkDir); err == nil && r != env.WorkDir {
		roots = append(roots, r)
	}
	env.Defer(func() {
		defer os.RemoveAll(dir)
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			machineOutputs.Add(1)
			cmdline, out, _ := strings.Cut(string(b), "\n")
			for _, r := range roots {
				if i := strings.Index(out, r); i >= 0 {
					lo, hi := max(0, i-80), min(len(out), i+len(r)+80)
					env.T().Fatal(fmt.Sprintf("law 7: the machine output of `%s` holds the test's temporary root %s:\n…%s…", cmdline, r, out[lo:hi]))
				}
			}
		}
	})
	return nil
}

// cmdStdio plays a host of `nika serve --stdio` against the built binary:
//
//	stdio SCRIPT
//
// runs nika serve --stdio in the script's directory and follows the
// steps of SCRIPT, one per line:
//
//	send LINE            write LINE (with $NAME of the script's env and
//	                     of earlier saves expanded) and a newline
//	recv                 read the next line from nika (into stdout)
//	save NAME REGEXP     set $NAME to REGEXP's first group in the last line read
//	close                close nika's stdin and wait for it to exit 0
//
// Every line nika wrote becomes the command's stdout.
func cmdStdio(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: stdio SCRIPT")
	}
	cmd := scriptCmd(ts, []string{"nika", "serve", "--stdio"})
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		ts.Fatalf("stdio: %v", err)
	}
	r := bufio.NewReaderSize(outp, 1<<20)
	vars := map[string]string{}
	expand := func(s string) string {
		return os.Expand(s, func(k string) string {
			if v, ok := vars[k]; ok {
				return v
			}
			return ts.Getenv(k)
		})
	}
	var all strings.Builder
	last := ""
	lines := make(chan string)
	go func() {
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	recv := func() {
		select {
		case l, ok := <-lines:
			if !ok {
				ts.Fatalf("stdio: nika ended its output (stderr: %s)", stderr.String())
			}
			last = l
			all.WriteString(l)
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			ts.Fatalf("stdio: no line within 60s")
		}
	}
	recv() // the hello
	for _, step := range strings.Split(ts.ReadFile(args[0]), "\n") {
		verb, arg, _ := strings.Cut(step, " ")
		switch verb {
		case "", "#":
		case "send":
			io.WriteString(in, expand(arg)+"\n")
		case "recv":
			recv()
		case "save":
			name, re, _ := strings.Cut(arg, " ")
			m := regexp.MustCompile(re).FindStringSubmatch(last)
			if m == nil {
				ts.Fatalf("stdio: save %s: no match for %s in %s", name, re, last)
			}
			vars[name] = m[1]
			ts.Setenv(name, m[1])
		case "close":
			in.Close()
			for range lines {
			}
			if err := cmd.Wait(); err != nil && !neg {
				ts.Fatalf("stdio: nika exited: %v (stderr: %s)", err, stderr.String())
			}
			ts.Stdout().Write([]byte(all.String()))
			return
		default:
			ts.Fatalf("stdio: unknown step %q", step)
		}
	}
	ts.Fatalf("stdio: the script must end with close")
}

// cmdFakeChat starts a chat-completions server on loopback inside the
// test, which records every request and answers a fixed reply:
//
//	fakechat start REPLYFILE    sets $CHAT_URL; the reply is REPLYFILE's text
//	fakechat requests           writes each request (method, path, body) to stdout
func cmdFakeChat(ts *testscript.TestScript, neg bool, args []string) {
	type rec struct {
		Method, Path, Auth string
		Body               json.RawMessage
	}
	switch {
	case len(args) == 2 && args[0] == "start":
		reply := ts.ReadFile(args[1])
		var mu sync.Mutex
		var got []rec
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			got = append(got, rec{r.Method, r.URL.Path, r.Header.Get("Authorization"), b})
			mu.Unlock()
			json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": reply}}}})
		}))
		ts.Defer(srv.Close)
		ts.Setenv("CHAT_URL", srv.URL)
		fakeChats.Store(ts, func() []rec { mu.Lock(); defer mu.Unlock(); return append([]rec(nil), got...) })
	case len(args) == 1 && args[0] == "requests":
		f, ok := fakeChats.Load(ts)
		if !ok {
			ts.Fatalf("fakechat: not started")
		}
		for _, r := range f.(func() []rec)() {
			fmt.Fprintf(ts.Stdout(), "%s %s %s\n%s\n", r.Method, r.Path, r.Auth, r.Body)
		}
	default:
		ts.Fatalf("usage: fakechat start REPLYFILE | fakechat requests")
	}
}

var fakeChats sync.Map
