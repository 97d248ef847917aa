package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/refusal"
)

func (d *door) completionCommand() *cli.Command {
	return &cli.Command{Name: "completion", Usage: "print a shell completion script for nika and git nika: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish", Flags: []cli.Flag{jsonFlag}, Action: d.completion}
}

// shells that completion writes scripts for.
var shells = []string{"bash", "zsh", "fish"}

func (d *door) completion(c *cli.Context) error {
	shell := c.Args().First()
	if c.NArg() != 1 {
		return refusal.New(refusal.Invalid, "write nika completion bash, zsh or fish",
			"nika completion takes one shell")
	}
	var script string
	switch shell {
	case "bash":
		script = bashCompletion(d.commands())
	case "zsh":
		script = zshCompletion(d.commands())
	case "fish":
		script = fishCompletion(d.commands())
	default:
		return refusal.New(refusal.Invalid, "write nika completion bash, zsh or fish",
			"nika completion knows no shell %s", escape(quoteArg(shell)))
	}
	if d.json {
		return d.writeJSON(completionJSON{Type: "completion", Shell: shell, Script: script})
	}
	_, err := fmt.Fprint(d.stdout, script)
	return err
}

// idVerbs take a proposal id as their argument; completion offers the
// pending ones.
var idVerbs = map[string]bool{"show": true, "apply": true, "discard": true, "push": true, "revert": true}

func globalFlagWords() []string {
	return []string{"--json", "--no-pager", "-P", "--color=auto", "--color=always", "--color=never", "--version", "--help"}
}

func flagWords(cmd *cli.Command) []string {
	var out []string
	for _, f := range verbFlags(cmd) {
		out = append(out, "--"+f.Name)
		if f.Alias != "" {
			out = append(out, "-"+f.Alias)
		}
	}
	return append(out, "--json", "--help")
}

func verbNames(cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.Name)
	}
	return out
}

func bashCompletion(cmds []*cli.Command) string {
	var b strings.Builder
	b.WriteString(`# bash completion for nika and git nika (nika completion bash)
# Load it with: source <(nika completion bash)
_nika() {
	local cur verb i flags
	COMPREPLY=()
	cur="${COMP_WORDS[COMP_CWORD]}"
	verb=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		case "${COMP_WORDS[i]}" in
		-*) ;;
		*) verb="${COMP_WORDS[i]}"; break ;;
		esac
	done
	if [[ -z "$verb" ]]; then
		COMPREPLY=($(compgen -W "` + strings.Join(verbNames(cmds), " ") + " " + strings.Join(globalFlagWords(), " ") + `" -- "$cur"))
		return 0
	fi
	case "$verb" in
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t%s) flags=%q ;;\n", c.Name, strings.Join(flagWords(c), " "))
	}
	b.WriteString(`	*) flags="" ;;
	esac
	if [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
		return 0
	fi
	case "$verb" in
	` + strings.Join(idKeys(), "|") + `)
		COMPREPLY=($(compgen -W "$(nika list 2>/dev/null | cut -c1-12)" -- "$cur")) ;;
	help)
		COMPREPLY=($(compgen -W "` + strings.Join(verbNames(cmds), " ") + `" -- "$cur")) ;;
	completion)
		COMPREPLY=($(compgen -W "` + strings.Join(shells, " ") + `" -- "$cur")) ;;
	*)
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
	return 0
}
complete -F _nika nika
# git nika VERB: git's completion calls _git_nika.
_git_nika() {
	local COMP_WORDS=(nika "${COMP_WORDS[@]:2}")
	local COMP_CWORD=$((COMP_CWORD - 1))
	_nika
}
`)
	return b.String()
}

func idKeys() []string {
	var out []string
	for v := range idVerbs {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
