package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/refusal"
)

// Help, the version, completions and man pages are all drawn from the one
// command tree (commands()), so they cannot disagree with what the verbs
// accept.

func (d *door) helpCommand() *cli.Command {
	return &cli.Command{Name: "help", Usage: "show the verbs, or one verb's flags", ArgsUsage: "[VERB]", Flags: []cli.Flag{jsonFlag}, Action: d.help}
}

// globalOptions are the options of every verb (globals.go), for help.
var globalOptions = [][2]string{
	{"--json", "print one JSON object (see docs/json.md)"},
	{"--no-pager, -P", "do not page long output"},
	{"--color=WHEN", "colour: auto (on a terminal, unless NO_COLOR), always, never"},
	{"--version", "print nika's version and revision"},
	{"--help, -h", "show help; after a verb, that verb's flags"},
}

func (d *door) help(c *cli.Context) error {
	cmds := d.commands()
	if c.NArg() > 1 {
		return refusal.New(refusal.Invalid, "run nika help VERB", "nika help takes at most one verb")
	}
	var only *cli.Command
	if v := c.Args().First(); v != "" {
		for _, cmd := range cmds {
			if cmd.Name == v {
				only = cmd
			}
		}
		if only == nil {
			return &usageError{text: "nika has no verb " + escape(quoteArg(v)), hint: "run nika help to see the verbs"}
		}
	}
	if d.json {
		out := helpJSON{Type: "help", Verbs: []helpVerb{}}
		for _, cmd := range cmds {
			if only == nil || cmd == only {
				out.Verbs = append(out.Verbs, verbHelp(cmd))
			}
		}
		return d.writeJSON(out)
	}
	var b strings.Builder
	if only != nil {
		writeVerbHelp(&b, d.name, only)
	} else {
		fmt.Fprintf(&b, "usage: %s [--json] [--no-pager] [--color=WHEN] [--version] VERB [ARGS]\n\n", d.name)
		b.WriteString("nika stages a model's proposal as a git commit no branch points at, previews\nexactly that commit, and applies it only when you type yes at the terminal.\n\nverbs:\n")
		for _, cmd := range cmds {
			fmt.Fprintf(&b, "   %-10s %s\n", cmd.Name, cmd.Usage)
		}
		b.WriteString("\noptions of every verb:\n")
		for _, o := range globalOptions {
			fmt.Fprintf(&b, "   %-16s %s\n", o[0], o[1])
		}
		fmt.Fprintf(&b, "\nBare %s opens the session on a terminal, and prints a summary of the project on a pipe.\n", d.name)
		fmt.Fprintf(&b, "Run %s help VERB for a verb's arguments and flags; man nika for the whole manual.\n", d.name)
	}
	return d.page([]byte(b.String()))
}

func quoteArg(s string) string { return `"` + s + `"` }

func writeVerbHelp(b *strings.Builder, prog string, cmd *cli.Command) {
	fmt.Fprintf(b, "usage: %s %s", prog, cmd.Name)
	if len(verbFlags(cmd)) > 0 {
		b.WriteString(" [FLAGS]")
	}
	if cmd.ArgsUsage != "" {
		b.WriteString(" " + cmd.ArgsUsage)
	}
	fmt.Fprintf(b, "\n\n%s\n", cmd.Usage)
	if fs := verbFlags(cmd); len(fs) > 0 {
		b.WriteString("\nflags:\n")
		for _, f := range fs {
			fmt.Fprintf(b, "   %-28s %s\n", f.spelling(), f.Usage)
		}
	}
}

// flagInfo is one flag of a verb, as help, completions and man pages show
// it.
type flagInfo struct {
	Name, Alias string
	Value       bool // takes a value
	Usage       string
}

func (f flagInfo) spelling() string {
	s := "--" + f.Name
	if f.Value {
		s += " VALUE"
	}
	if f.Alias != "" {
		s += ", -" + f.Alias
		if f.Value {
			s += " VALUE"
		}
	}
	return s
}

// verbFlags lists a verb's own flags (the global --json excluded), sorted.
func verbFlags(cmd *cli.Command) []flagInfo {
	var out []flagInfo
	for _, f := range cmd.Flags {
		names := f.Names()
		if names[0] == "json" || names[0] == "help" {
			continue
		}
		fi := flagInfo{Name: names[0]}
		for _, n := range names[1:] {
			fi.Alias = n
		}
		if df, ok := f.(cli.DocGenerationFlag); ok {
			fi.Usage = df.GetUsage()
			fi.Value = df.TakesValue()
			if v := df.GetValue(); fi.Value && v != "" && v != "0" && v != `""` && v != "[]" {
				fi.Usage += " (default: " + strings.Trim(v, `"`) + ")"
			}
		}
		out = append(out, fi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func verbHelp(cmd *cli.Command) helpVerb {
	v := helpVerb{Name: cmd.Name, Usage: cmd.Usage, Args: cmd.ArgsUsage, Flags: []helpFlag{}}
	for _, f := range verbFlags(cmd) {
		v.Flags = append(v.Flags, helpFlag{Name: f.Name, Alias: f.Alias, Value: f.Value, Usage: f.Usage})
	}
	return v
}

// verbs are the CLI's verbs, for the session's hallucination guard.
func (d *door) verbs() []string {
	var out []string
	for _, c := range d.commands() {
		out = append(out, c.Name)
	}
	return out
}
