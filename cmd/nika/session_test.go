package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"

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
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Dir:                 "testdata/session",
		Setup:               setupGit,
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
//	send TEXT     type TEXT, one key at a time, and Enter ("send" alone:
//	              an empty line)
//	paste TEXT    paste TEXT and Enter as a bracketing terminal does
//	              (\n in TEXT is a newline)
//	burst TEXT    write TEXT and Enter at once (\n is a newline)
//	key ^D        press Ctrl-D (or ^C)
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
	d, err := startTTY(cmd)
	if err != nil {
		ts.Fatalf("expect: %v", err)
	}
	defer d.f.Close()
	fail := func(format string, a ...any) {
		cmd.Process.Kill()
		d.wait(10 * time.Second)
		ts.Logf("transcript:\n%s", d.transcript())
		ts.Fatalf(format, a...)
	}
	for _, step := range steps {
		verb, arg, _ := strings.Cut(step, " ")
		nl := strings.ReplaceAll(arg, `\n`, "\n")
		switch verb {
		case "", "#":
		case "expect":
			if err := d.expect(arg, 30*time.Second); err != nil {
				fail("expect: %q did not appear (%v)", arg, err)
			}
		case "send":
			d.line(arg)
		case "paste":
			d.paste(nl + "\n")
		case "burst":
			d.burst(nl + "\n")
		case "key":
			switch arg {
			case "^D":
				d.f.Write([]byte{4})
			case "^C":
				d.f.Write([]byte{3})
			default:
				ts.Fatalf("expect: unknown key %q", arg)
			}
		case "eof":
			err := d.wait(30 * time.Second)
			if err == errTimeout {
				fail("expect: the command did not end")
			}
			ts.Stdout().Write([]byte(d.transcript()))
			if err != nil && !neg {
				ts.Fatalf("expect: %v", err)
			}
			if err == nil && neg {
				ts.Fatalf("expect: unexpected success")
			}
			return
		default:
			ts.Fatalf("expect: unknown step %q", step)
		}
	}
	fail("expect: the script must end with eof")
}
