package main

import (
	"strings"

	"github.com/nika-dev/nika/refusal"
)

// The doors' words for the fixes that library refusals name. A library says
// what the fix is (refusal.Fix) and what it applies to (Subject); each door
// says how its human or host carries it out, so that no CLI flag reaches
// the session or an agent. TestEveryDoorWordsEveryFix keeps the tables
// complete.

// cliFix words a fix for the command line.
func cliFix(f refusal.Fix, subject string) string {
	switch f {
	case refusal.Repropose:
		return "rebuild the preview with nika propose"
	case refusal.ListProposals:
		return "run nika list to see the proposals"
	case refusal.Recover:
		return "run nika recover to finish or undo it"
	case refusal.AllowFile:
		if subject != "" {
			return "allow it with --allow " + subject + ", or git config --add nika.allow " + subject
		}
		return "allow it with --allow PATH, or git config --add nika.allow PATH"
	case refusal.RaiseInputLimit:
		return "split the proposal, or raise the limit with --max-input"
	case refusal.ApplyAgain:
		if subject != "" {
			return "run nika apply " + short(subject) + " again when you want it"
		}
		return "run nika apply again when you want it"
	case refusal.Rebase:
		if subject != "" {
			return "bring it forward with nika rebase " + short(subject)
		}
		return "bring it forward with nika rebase"
	case refusal.ChooseFormat:
		return "choose one with --format " + orDefault(subject, "auto, reply, patch, diff or search-replace")
	}
	return ""
}

// sessionFix words a fix for the terminal session and its stdio protocol,
// whose human works with the session's own commands.
func sessionFix(f refusal.Fix, subject string) string {
	switch f {
	case refusal.Repropose:
		return "paste the reply again, or ask the model again"
	case refusal.ListProposals:
		return "type /pending to see the proposals"
	case refusal.Recover:
		return "run nika recover in a shell to finish or undo it"
	case refusal.AllowFile:
		return "allow it with /allow " + orDefault(subject, "PATH")
	case refusal.RaiseInputLimit:
		return "split the proposal into smaller ones"
	case refusal.ApplyAgain:
		return "answer yes at the next prompt when you want it"
	case refusal.Rebase:
		return "ask the model for the change again over the current files"
	case refusal.ChooseFormat:
		return "paste the reply as the model wrote it"
	}
	return ""
}

// mcpFix words a fix for an agent that calls nika mcp's tools: what it can
// do with the tools, and what only its human can do. It names tools, never
// a CLI flag: the agent has none to give.
func mcpFix(f refusal.Fix, subject string) string {
	switch f {
	case refusal.Repropose:
		return "call propose again with the same text: it is resolved over the current HEAD and files"
	case refusal.ListProposals:
		return "call list to see the proposals and their ids"
	case refusal.Recover:
		return "an apply was interrupted: ask the human to finish or undo it with nika recover in their terminal"
	case refusal.AllowFile:
		return "only the human can allow " + orDefault(subject, "it") + " (the project's nika.allow, or the allow list in nika mcp's configuration): ask them, or propose without it"
	case refusal.RaiseInputLimit:
		return "split the change into smaller proposals, each under the limit"
	case refusal.ApplyAgain:
		if subject != "" {
			return "give the human the line nika apply " + short(subject) + " again; only they can apply it"
		}
		return "give the human the nika apply line again; only they can apply it"
	case refusal.Rebase:
		return "the project moved: call propose again with the change made over the current files"
	case refusal.ChooseFormat:
		return "call the tool again with format set to one of: " + orDefault(subject, "auto, reply, patch, diff, search-replace")
	}
	return ""
}

// mcpLegacy maps hints that library refusals still word for the CLI (a
// flag, a verb) to the Fix they mean, so that an agent is never told to
// use a flag it cannot give. A library that sets Fix needs no entry.
var mcpLegacy = []struct {
	prefix string
	fix    refusal.Fix
}{
	{"if you want it, run again with --allow ", refusal.AllowFile},
	{"split the proposal, or raise the limit with --max-input", refusal.RaiseInputLimit},
	{"use --format auto", refusal.ChooseFormat},
	{"run nika list to see", refusal.ListProposals},
	{"give at least 8 hex characters of the id, as nika list shows it", refusal.ListProposals},
	{"rebuild the preview with nika propose", refusal.Repropose},
	{"discard it and rebuild the preview with nika propose", refusal.Repropose},
}

// mcpHint is a refusal's hint for the MCP door: the library's hint, then
// the fix in the agent's words.
func mcpHint(e *refusal.Error) string {
	hint, fix, subject := e.Hint, e.Fix, e.Subject
	if fix == "" {
		for _, l := range mcpLegacy {
			if strings.HasPrefix(hint, l.prefix) {
				if l.fix == refusal.AllowFile {
					subject = strings.TrimPrefix(hint, l.prefix)
				}
				hint, fix = "", l.fix
				break
			}
		}
	}
	return joinHint(hint, mcpFix(fix, subject))
}

// cliHint is a refusal's hint for the CLI: the library's hint, then the
// fix in the CLI's words.
func cliHint(e *refusal.Error) string { return joinHint(e.Hint, cliFix(e.Fix, e.Subject)) }

// sessionHint is the same for the session's doors.
func sessionHint(e *refusal.Error) string { return joinHint(e.Hint, sessionFix(e.Fix, e.Subject)) }

func joinHint(hint, fix string) string {
	switch {
	case fix == "":
		return hint
	case hint == "" || strings.HasPrefix(fix, strings.TrimSuffix(hint, ".")):
		// The door's words say the same, and how.
		return fix
	case strings.HasSuffix(hint, "."):
		return hint + " " + fix
	}
	return hint + "; " + fix
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
