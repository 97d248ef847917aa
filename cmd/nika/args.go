package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// valueFlags lists the flags of app's commands that take a value, so that
// reorder knows which token after them is theirs.
func valueFlags(app *cli.App) map[string]bool {
	out := map[string]bool{}
	for _, c := range app.Commands {
		for _, f := range c.Flags {
			if _, isBool := f.(*cli.BoolFlag); isBool {
				continue
			}
			for _, n := range f.Names() {
				if len(n) == 1 {
					out["-"+n] = true
				} else {
					out["--"+n] = true
				}
			}
		}
	}
	return out
}

// reorder lets flags follow the arguments, as git users type them
// (nika apply ID --json): urfave/cli stops at the first argument, so flags
// after the verb are moved before its arguments. "--" ends the flags.
func reorder(args []string, valueFlags map[string]bool) []string {
	if len(args) < 2 {
		return args
	}
	// args[0] is the program; find the verb (the first non-flag).
	v := 1
	for v < len(args) && strings.HasPrefix(args[v], "-") {
		v++
	}
	if v >= len(args) {
		return args
	}
	var flags, rest []string
	for i := v + 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			i = len(args)
		case a != "-" && strings.HasPrefix(a, "-"):
			flags = append(flags, a)
			if valueFlags[a] && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		default:
			rest = append(rest, a)
		}
	}
	out := append([]string{}, args[:v+1]...)
	out = append(out, flags...)
	return append(out, rest...)
}
