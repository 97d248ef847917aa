package main

import (
	"strings"
)

// globals are the options every verb shares, as git has them: they may come
// before the verb (nika --no-pager log) and, since no verb has flags of
// the same names, after it too (nika log --json).
type globals struct {
	json    bool
	noPager bool   // --no-pager, -P
	color   string // --color[=WHEN]: "auto", "always", "never"; "" when not given
	version bool   // --version
}

// parseGlobals takes the global options out of the arguments (the program
// name excluded), and turns --help/-h into the help verb. An unknown flag
// before the verb is a usage error; after the verb the verb's own parser
// judges it. "--" ends the options.
func parseGlobals(args []string) (globals, []string, error) {
	var g globals
	var rest []string
	verb := ""
	help := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		switch {
		case a == "--json" || a == "--json=true":
			g.json = true
			continue
		case a == "--json=false":
			continue
		case a == "--no-pager" || a == "-P":
			g.noPager = true
			continue
		case a == "--color":
			g.color = "always"
			continue
		case a == "--no-color":
			g.color = "never"
			continue
		case strings.HasPrefix(a, "--color="):
			v := strings.TrimPrefix(a, "--color=")
			switch v {
			case "auto", "always", "never":
				g.color = v
			case "true", "yes", "on":
				g.color = "always"
			case "false", "no", "off":
				g.color = "never"
			default:
				return g, nil, &usageError{text: "--color=" + v + " is not auto, always or never", hint: "write --color=auto, --color=always or --color=never"}
			}
			continue
		case a == "--help" || a == "-h":
			help = true
			continue
		}
		if verb == "" {
			switch {
			case a == "--version":
				g.version = true
				continue
			case strings.HasPrefix(a, "-") && a != "-":
				return g, nil, &usageError{text: "unknown flag " + a, hint: "run nika help to see the options and verbs"}
			}
			verb = a
		}
		rest = append(rest, a)
	}
	if help {
		if verb == "" || verb == "help" {
			return g, []string{"help"}, nil
		}
		return g, []string{"help", verb}, nil
	}
	return g, rest, nil
}
