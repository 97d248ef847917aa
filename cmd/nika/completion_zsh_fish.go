package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// The zsh and fish completion scripts, drawn from the command tree as
// bash's is (completion.go).

func zshCompletion(cmds []*cli.Command) string {
	var b strings.Builder
	b.WriteString(`#compdef nika git-nika
# zsh completion for nika (nika completion zsh). Put it in a directory of
# $fpath as _nika, or load it with: source <(nika completion zsh)
_nika() {
	local -a verbs
	verbs=(
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t\t%s\n", zshQuote(c.Name+":"+c.Usage))
	}
	b.WriteString(`	)
	if (( CURRENT == 2 )); then
		_describe -t verbs 'nika verb' verbs
		return
	fi
	local verb=${words[2]}
	case $verb in
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t%s)\n\t\t_arguments", c.Name)
		for _, f := range verbFlags(c) {
			spec := "--" + f.Name
			if f.Value {
				spec += "="
			}
			fmt.Fprintf(&b, " %s", zshQuote(spec+"["+zshBracket(f.Usage)+"]"+valueSpec(f)))
			if f.Alias != "" {
				fmt.Fprintf(&b, " %s", zshQuote("-"+f.Alias+"["+zshBracket(f.Usage)+"]"+valueSpec(f)))
			}
		}
		b.WriteString(" '--json[print one JSON object]'")
		switch {
		case idVerbs[c.Name]:
			b.WriteString(" '1:proposal id:_nika_ids'")
		case c.Name == "help":
			b.WriteString(" '1:verb:(" + strings.Join(verbNames(cmds), " ") + ")'")
		case c.Name == "completion":
			b.WriteString(" '1:shell:(" + strings.Join(shells, " ") + ")'")
		default:
			b.WriteString(" '*:file:_files'")
		}
		b.WriteString(" ;;\n")
	}
	b.WriteString(`	esac
}
_nika_ids() {
	local -a ids
	ids=(${(f)"$(nika list 2>/dev/null | cut -c1-12)"})
	_describe -t ids 'proposal id' ids
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
	_nika "$@"
else
	compdef _nika nika
fi
`)
	return b.String()
}

func valueSpec(f flagInfo) string {
	if f.Value {
		return ":value:"
	}
	return ""
}

func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func zshBracket(s string) string {
	s = strings.ReplaceAll(s, "[", "(")
	s = strings.ReplaceAll(s, "]", ")")
	return strings.ReplaceAll(s, ":", "\\:")
}

func fishCompletion(cmds []*cli.Command) string {
	var b strings.Builder
	b.WriteString("# fish completion for nika (nika completion fish)\n# Load it with: nika completion fish | source\n")
	b.WriteString("complete -c nika -f\n")
	names := strings.Join(verbNames(cmds), " ")
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c nika -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", names, c.Name, fishQuote(c.Usage))
	}
	for _, o := range []string{"json", "no-pager", "version", "help"} {
		fmt.Fprintf(&b, "complete -c nika -l %s\n", o)
	}
	b.WriteString("complete -c nika -l color -x -a 'auto always never'\n")
	for _, c := range cmds {
		cond := fmt.Sprintf("'__fish_seen_subcommand_from %s'", c.Name)
		for _, f := range verbFlags(c) {
			fmt.Fprintf(&b, "complete -c nika -n %s -l %s", cond, f.Name)
			if f.Alias != "" {
				fmt.Fprintf(&b, " -s %s", f.Alias)
			}
			if f.Value {
				b.WriteString(" -r")
			}
			fmt.Fprintf(&b, " -d %s\n", fishQuote(f.Usage))
		}
		switch {
		case idVerbs[c.Name]:
			fmt.Fprintf(&b, "complete -c nika -n %s -a '(nika list 2>/dev/null | cut -c1-12)'\n", cond)
		case c.Name == "help":
			fmt.Fprintf(&b, "complete -c nika -n %s -a %s\n", cond, fishQuote(names))
		case c.Name == "completion":
			fmt.Fprintf(&b, "complete -c nika -n %s -a %s\n", cond, fishQuote(strings.Join(shells, " ")))
		default:
			fmt.Fprintf(&b, "complete -c nika -n %s -F\n", cond)
		}
	}
	return b.String()
}

func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
