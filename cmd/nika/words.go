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

// cliHint is a refusal's hint for the CLI: the library's hint, then the
// fix in the CLI's words.
func cliHint(e *refusal.Error) string { return joinHint(e.Hint, cliFix(e.Fix, e.Subject)) }

// sessionHint is the same for the session's doors.
func sessionHint(e *refusal.Error) string { return joinHint(e.Hint, sessionFix(e.Fix, e.Subject)) }

func joinHint(hint, fix string) string {
	switch {
	case fix == "":
		return hint
	case hint == "":
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
