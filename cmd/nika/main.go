// Command nika stages a model's proposed changes to a git project as a
// commit no branch points at, shows exactly that commit, and applies it
// only when a human types "yes" at the terminal.
//
// This is the door: it reads arguments, input and the terminal, prints,
// and maps refusals to exit codes. The logic lives in the packages under
// flow/.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/nika-dev/nika/refusal"
	"github.com/urfave/cli/v2"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	d := &door{stdin: stdin, stdout: stdout, stderr: stderr}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "--json" || a == "-json" || a == "--json=true" {
			d.json = true
		}
	}
	app := d.app()
	err := app.Run(reorder(args, valueFlags(app)))
	if err == nil {
		return d.code
	}
	var ee exitErr
	if errors.As(err, &ee) {
		return int(ee)
	}
	var ce *refusal.Error
	if !errors.As(err, &ce) {
		// urfave/cli usage errors and anything unclassified.
		ce = &refusal.Error{Class: refusal.Invalid, Text: err.Error(), Hint: "run nika help"}
		if d.repo != nil {
			ce.Class = refusal.Internal
		}
	}
	d.refuse(ce)
	return exitCode(ce.Class)
}

// exitErr ends a command with a code after it printed its own output.
type exitErr int

func (e exitErr) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// moreCommands lets verbs defined in other files of this package register
// themselves (func init() { moreCommands = append(moreCommands, ...) }),
// each built for a door.
var moreCommands []func(d *door) *cli.Command

// bareAction, when set (by the session's file), runs bare `nika` with no
// verb: the session on a terminal, the project summary on a pipe.
var bareAction func(d *door) cli.ActionFunc

// jsonFlag is the --json flag every verb takes.
var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print one JSON object (see docs/json.md)"}

func (d *door) app() *cli.App {
	app := &cli.App{
		Name:                      "nika",
		Usage:                     "stage a model's proposal as a git commit, preview it exactly, apply it on your yes",
		HideHelpCommand:           true,
		DisableSliceFlagSeparator: true,
		Flags:                     []cli.Flag{jsonFlag},
		Writer:                    d.stdout,
		ErrWriter:                 d.stderr,
		Reader:                    d.stdin,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, sub bool) error {
			return refusal.New(refusal.Invalid, "run nika help "+c.Command.Name, "%v", err)
		},
		Commands: []*cli.Command{
			{
				Name:      "propose",
				Usage:     "stage a proposal from a model's reply (a file, or - for stdin) and print its preview",
				ArgsUsage: "[FILE|-]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "goal", Aliases: []string{"m"}, Usage: "what the proposal is for; it becomes the commit message"},
					&cli.StringSliceFlag{Name: "allow", Usage: "allow a supporting file (a path or a glob); repeatable"},
					&cli.StringFlag{Name: "format", Value: "auto", Usage: "the input's format: auto, reply, patch, diff or search-replace"},
					&cli.IntFlag{Name: "max-input", Value: 16 << 20, Usage: "refuse inputs larger than this many bytes"},
					&cli.StringFlag{Name: "run", Usage: "after a clean apply, request a run of this workflow"},
					&cli.StringSliceFlag{Name: "var", Usage: "a variable of the run request, NAME=VALUE; repeatable"},
					&cli.Float64Flag{Name: "max-cost-usd", Usage: "the run request's cost ceiling in US dollars"},
					jsonFlag,
				},
				Action: d.propose,
			},
			{Name: "show", Usage: "print a proposal's preview again, byte for byte", ArgsUsage: "ID", Flags: []cli.Flag{jsonFlag}, Action: d.show},
			{Name: "apply", Usage: "show the preview, ask for yes on the terminal, and apply", ArgsUsage: "ID", Flags: []cli.Flag{jsonFlag,
				&cli.StringSliceFlag{Name: "only", Usage: "apply only the changes to these paths (or globs), as a derived proposal; repeatable"},
				&cli.StringSliceFlag{Name: "exclude", Usage: "apply all but the changes to these paths (or globs), as a derived proposal; repeatable"},
			}, Action: d.apply},
			{Name: "discard", Usage: "discard a pending proposal", ArgsUsage: "ID", Flags: []cli.Flag{jsonFlag}, Action: d.discard},
			{Name: "list", Usage: "list pending proposals", Flags: []cli.Flag{jsonFlag, &cli.BoolFlag{Name: "all", Usage: "also list applied, discarded and stale ones"}}, Action: d.list},
		},
	}
	for _, mk := range moreCommands {
		app.Commands = append(app.Commands, mk(d))
	}
	if bareAction != nil {
		app.Action = bareAction(d)
	}
	return app
}
