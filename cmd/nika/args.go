package main

import "strings"

// valueFlags are the flags that take a value, so that reorder knows which
// token after them is theirs.
var valueFlags = map[string]bool{
	"--goal": true, "-m": true, "--allow": true, "--format": true, "--max-input": true,
	"--run": true, "--only": true, "--exclude": true,
}

// reorder lets flags follow the arguments, as git users type them
// (nika apply ID --json): urfave/cli stops at the first argument, so flags
// after the verb are moved before its arguments. "--" ends the flags.
func reorder(args []string) []string {
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
