package main

import (
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestSessionScripts runs the session's door specifications in
// testdata/session (session_*.txtar): the pipe summary, and the terminal
// session through a real pseudo-terminal with an expect script.
func TestSessionScripts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not installed: the session scripts check nika against it")
	}
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/session",
		Setup: setupGit,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"pty":    cmdPty,
			"id":     cmdID,
			"expect": cmdExpect,
		},
	})
}

// cmdExpect runs a command on a fresh pseudo-terminal (its controlling
// terminal) and follows a script of steps, one per line:
//
//	expect TEXT   wait until TEXT appears after the previous match
//	send TEXT     type TEXT and a newline ("send" alone: an empty line)
//	eof           wait for the command to end
//
// The terminal transcript (CRLF turned to LF) becomes stdout.
//
//	expect SCRIPT command [args...]
func cmdExpect(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: expect SCRIPT command [args...]")
	}
	steps := strings.Split(ts.ReadFile(args[0]), "\n")
	cmd := scriptCmd(ts, args[1:])
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 500, Cols: 200})
	if err != nil {
		ts.Fatalf("expect: %v", err)
	}
	defer f.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	transcript := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.ReplaceAll(out.String(), "\r\n", "\n")
	}
	fail := func(format string, a ...any) {
		cmd.Process.Kill()
		cmd.Wait()
		ts.Logf("transcript:\n%s", transcript())
		ts.Fatalf(format, a...)
	}
	pos := 0
	for _, step := range steps {
		verb, arg, _ := strings.Cut(step, " ")
		switch verb {
		case "", "#":
		case "expect":
			deadline := time.Now().Add(30 * time.Second)
			for {
				s := transcript()
				if i := strings.Index(s[pos:], arg); i >= 0 {
					pos += i + len(arg)
					break
				}
				if time.Now().After(deadline) {
					fail("expect: %q did not appear", arg)
				}
				time.Sleep(10 * time.Millisecond)
			}
		case "send":
			f.Write([]byte(arg + "\n"))
		case "eof":
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			select {
			case err := <-waited:
				<-done
				ts.Stdout().Write([]byte(transcript()))
				if err != nil && !neg {
					ts.Fatalf("expect: %v", err)
				}
				if err == nil && neg {
					ts.Fatalf("expect: unexpected success")
				}
				return
			case <-time.After(30 * time.Second):
				fail("expect: the command did not end")
			}
		default:
			ts.Fatalf("expect: unknown step %q", step)
		}
	}
	fail("expect: the script must end with eof")
}
