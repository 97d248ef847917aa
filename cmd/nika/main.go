// Command nika stages a model's proposed changes to a git project as a
// commit no branch points at, shows exactly that commit, and applies it
// only when a human types "yes" at the terminal.
//
// This is the door layer: it reads arguments, input and the terminal,
// prints, and maps refusals to exit codes. The logic lives in flow and the
// rooms below it, which every door (this CLI, the terminal session, the
// stdio protocol) shares. There is one file per verb; commands() is the one
// list of them.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/refusal"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	d := &door{stdin: stdin, stdout: stdout, stderr: stderr, name: programName(args)}
	g, rest, err := parseGlobals(args[1:])
	d.globals = g
	if err != nil {
		d.refuse(asRefusal(err))
		return refusal.Code(refusal.Invalid)
	}
	if g.version {
		return d.printVersion()
	}
	app := d.app()
	err = app.Run(reorder(append([]string{d.name}, rest...), valueFlags(app)))
	if err == nil {
		return d.code
	}
	var ee exitErr
	if errors.As(err, &ee) {
		return int(ee)
	}
	ce := asRefusal(err)
	var classified *refusal.Error
	if d.repo != nil && !errors.As(err, &classified) && !isUsageError(err) {
		// Not a refusal nika made: a bug, or a state nobody expected.
		ce.Class = refusal.Internal
	}
	d.refuse(ce)
	return refusal.Code(ce.Class)
}

// programName is "nika", or "git nika" when git runs us as git-nika.
func programName(args []string) string {
	if len(args) > 0 && strings.HasPrefix(filepath.Base(args[0]), "git-nika") {
		return "git nika"
	}
	return "nika"
}

// exitErr ends a command with a code after it printed its own output.
type exitErr int

func (e exitErr) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// jsonFlag is the --json flag every verb takes, also accepted before the
// verb (nika --json list).
var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print one JSON object (see docs/json.md)"}

// commands is the one list of nika's verbs, in the order help shows them.
func (d *door) commands() []*cli.Command {
	return []*cli.Command{
		d.proposeCommand(),
		d.showCommand(),
		d.applyCommand(),
		d.discardCommand(),
		d.listCommand(),
		d.checkCommand(),
		d.explainCommand(),
		d.logCommand(),
		d.verifyCommand(),
		d.revertCommand(),
		d.reviewCommand(),
		d.rebaseCommand(),
		d.pushCommand(),
		d.fetchCommand(),
		d.recoverCommand(),
		d.serveCommand(),
		d.mcpCommand(),
		d.helpCommand(),
		d.completionCommand(),
	}
}

func (d *door) app() *cli.App {
	app := &cli.App{
		Name:                      d.name,
		Usage:                     "stage a model's proposal as a git commit, preview it exactly, apply it on your yes",
		HideHelp:                  true,
		HideHelpCommand:           true,
		DisableSliceFlagSeparator: true,
		Writer:                    d.stdout,
		ErrWriter:                 d.stderr,
		Reader:                    d.stdin,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, sub bool) error {
			return usageProblem("", err)
		},
		Commands: d.commands(),
		Action:   d.bare,
	}
	for _, c := range app.Commands {
		c.HideHelp = true
		c.HideHelpCommand = true
		verb := c.Name
		c.OnUsageError = func(cc *cli.Context, err error, sub bool) error { return usageProblem(verb, err) }
		if c.Flags == nil || !hasFlag(c, "json") {
			c.Flags = append(c.Flags, jsonFlag)
		}
	}
	app.CommandNotFound = func(c *cli.Context, verb string) {}
	return app
}

func hasFlag(c *cli.Command, name string) bool {
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
