package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	os.Exit(testscript.RunMain(m, map[string]func() int{
		"nika": func() int { return run(os.Args, os.Stdin, machineTee(os.Args, os.Stdout), os.Stderr) },
	}))
}

// TestScripts runs the CLI specifications in testdata/script, each in a
// fresh git repository, checked with the real git CLI.
func TestScripts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not installed: the CLI scripts check nika against it")
	}
	testscript.Run(t, testscript.Params{
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Dir:                 "testdata/script",
		Setup:               setupGit,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"pty":      cmdPty,
			"notty":    cmdNoTTY,
			"id":       cmdID,
			"expect":   cmdExpect,
			"stdio":    cmdStdio,
			"fakechat": cmdFakeChat,
			"mcp":      cmdMCP,
		},
	})
}

// setupGit isolates git from the host's configuration and gives it an
// identity, then makes $WORK/repo a repository on branch main.
func setupGit(env *testscript.Env) error {
	home := env.WorkDir + "/home"
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	// A script that signs with gpg or gpgsm keeps its keys in $WORK/gnupg
	// (env GNUPGHOME=$WORK/gnupg); the agent gpg starts there is stopped
	// when the script ends, passed or failed.
	env.Defer(func() {
		if _, err := os.Stat(env.WorkDir + "/gnupg"); err == nil {
			exec.Command("gpgconf", "--homedir", env.WorkDir+"/gnupg", "--kill", "all").Run()
		}
	})
	for k, v := range map[string]string{
		"HOME":                home,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL":   home + "/.gitconfig",
		"GIT_AUTHOR_NAME":     "Ada Tester",
		"GIT_AUTHOR_EMAIL":    "ada@example.com",
		"GIT_COMMITTER_NAME":  "Ada Tester",
		"GIT_COMMITTER_EMAIL": "ada@example.com",
		"GIT_AUTHOR_DATE":     "1767225600 +0000",
		"GIT_COMMITTER_DATE":  "1767225600 +0000",
		"NO_COLOR":            "1",
		"TERM":                "dumb",
		"PAGER":               "cat",
	} {
		env.Setenv(k, v)
	}
	if err := watchMachineOutput(env); err != nil {
		return err
	}
	return os.WriteFile(home+"/.gitconfig", []byte("[init]\n\tdefaultBranch = main\n"), 0o644)
}

var scriptEnvKeys = []string{"PATH", "HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "NO_COLOR", "TERM", "PAGER", "GIT_PAGER", "LESS",
	"GNUPGHOME", "NIKA_PAGER", "NIKA_COLOR",
	"WORK", machineLogVar,
	// the session_boundary script's planted secret and its API key
	"NIKA_PLANTED", "NIKA_KEY"}

func scriptCmd(ts *testscript.TestScript, args []string) *exec.Cmd {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range scriptEnvKeys {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	// testscript's registered commands find themselves through this.
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TESTSCRIPT_") || strings.HasPrefix(kv, "GOCOVERDIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

// cmdPty runs a command on a fresh pseudo-terminal that is its controlling
// terminal, as a human's shell would, and plays the answer script at the
// consent prompts (see runAnswers: typed keys, pastes, bursts, typing
// ahead, Ctrl-D):
//
//	pty [-rows N | -size COLSxROWS] ANSWER nika apply $ID
//	pty -size 80x24 ANSWER nika review $ID
//
// The terminal is 200 × 500 (so nothing pages) unless -rows or -size names
// another height or size. An empty ANSWER answers nothing: the command runs
// to its end. The whole terminal transcript becomes stdout.
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	cols, rows := uint16(200), uint16(500)
	switch {
	case len(args) > 2 && args[0] == "-size":
		if _, err := fmt.Sscanf(args[1], "%dx%d", &cols, &rows); err != nil {
			ts.Fatalf("pty: -size %s is not COLSxROWS", args[1])
		}
		args = args[2:]
	case len(args) > 2 && args[0] == "-rows":
		n, err := strconv.Atoi(args[1])
		if err != nil {
			ts.Fatalf("pty: -rows %s: %v", args[1], err)
		}
		rows, args = uint16(n), args[2:]
	}
	if len(args) < 2 {
		ts.Fatalf("usage: pty [-rows N | -size COLSxROWS] ANSWER command [args...]")
	}
	cmd := scriptCmd(ts, args[1:])
	out, err := runPtySize(cmd, args[0], 60*time.Second, cols, rows)
	if errors.Is(err, errNoPrompt) {
		ts.Fatalf("pty: no consent prompt within 60s; output so far:\n%s", out)
	}
	ts.Stdout().Write([]byte(out))
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// Scripts check the code: stderr 'exit status 12'.
		fmt.Fprintf(ts.Stderr(), "exit status %d\n", ee.ExitCode())
	}
	if err != nil && !neg {
		ts.Fatalf("pty: %v", err)
	}
	if err == nil && neg {
		ts.Fatalf("pty: unexpected success")
	}
}

// cmdNoTTY runs a command in a new session, so it has no controlling
// terminal whatever the test runner has.
func cmdNoTTY(ts *testscript.TestScript, neg bool, args []string) {
	cmd := scriptCmd(ts, args)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdin = strings.NewReader("yes\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	ts.Stdout().Write(stdout.Bytes())
	ts.Stderr().Write(stderr.Bytes())
	if err != nil && !neg {
		ts.Fatalf("notty: %v", err)
	}
	if err == nil && neg {
		ts.Fatalf("notty: unexpected success")
	}
}

var (
	idRE     = regexp.MustCompile(`(?m)(?:^proposal +|"id": ")([0-9a-f]{64})`)
	commitRE = regexp.MustCompile(`(?m)(?:^commit +|"commit": ")([0-9a-f]{40})`)
)

// cmdID reads the proposal id from the last command's stdout and sets
// $ID (64 hex), $ID12 and $ID8, and its commit as $COMMIT.
func cmdID(ts *testscript.TestScript, neg bool, args []string) {
	m := idRE.FindStringSubmatch(ts.ReadFile("stdout"))
	if m == nil {
		ts.Fatalf("id: no proposal id in stdout")
	}
	ts.Setenv("ID", m[1])
	ts.Setenv("ID12", m[1][:12])
	ts.Setenv("ID8", m[1][:8])
	if c := commitRE.FindStringSubmatch(ts.ReadFile("stdout")); c != nil {
		ts.Setenv("COMMIT", c[1])
	}
}
