// Package doorwords holds the words each door says for the fixes that
// library refusals name. A library says what the fix is (refusal.Fix) and
// what it applies to (Subject); each door says how its human or host
// carries it out, so that no CLI flag reaches the session or an agent:
// CLI for the command line (cmd/nika), Session for the terminal session and
// its stdio protocol (package protocol), MCP for an agent over nika mcp
// (package mcp). TestEveryDoorWordsEveryFix keeps the tables complete, and
// refusal's TestLibrariesSpeakNoDoorWords keeps such words out of every
// package that is not a door.
//
// The three tables share one package, beside each other so that a new Fix
// is worded by every door at once, and because the session's two doors
// (the terminal session in cmd/nika, the stdio protocol) speak the same
// words. The commands a human runs by hand for a run request
// (SuggestedRun, SuggestedResume) are here too: the CLI and both session
// doors give them.
package doorwords

import (
	"sort"
	"strconv"
	"strings"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
)

// CLI words a fix for the command line.
func CLI(f refusal.Fix, subject string) string {
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
			return "run nika apply " + Short(subject) + " again when you want it"
		}
		return "run nika apply again when you want it"
	case refusal.Rebase:
		if subject != "" {
			return "bring it forward with nika rebase " + Short(subject)
		}
		return "bring it forward with nika rebase"
	case refusal.ChooseFormat:
		return "choose one with --format " + orDefault(subject, "auto, reply, patch, diff or search-replace")
	case refusal.Discard:
		return "discard it with nika discard " + orDefault(Short(subject), "ID") + " (proposed again, the same input then stages a new proposal)"
	case refusal.Verify:
		return "run nika verify " + orDefault(Short(subject), "COMMIT") + " to see why"
	case refusal.ProposeChange:
		return "make the change through nika propose and nika apply"
	case refusal.CheckFile:
		return "nika check " + orDefault(subject, "PATH") + " shows the findings, nika explain CODE the fix"
	case refusal.Push:
		if subject != "" {
			return "push it again with nika push " + Short(subject)
		}
		return "push it again with nika push"
	}
	return ""
}

// Session words a fix for the terminal session and its stdio protocol,
// whose human works with the session's own commands (/allow, /pending,
// /check), and with a shell for what only the CLI does.
func Session(f refusal.Fix, subject string) string {
	switch f {
	case refusal.Repropose:
		return "paste the reply again to rebuild its preview over the project as it is now"
	case refusal.ListProposals:
		return "/pending lists the proposals that wait and their ids"
	case refusal.Recover:
		return "an interrupted apply must be finished or undone first: end the session, and nika recover does it"
	case refusal.AllowFile:
		return "/allow " + orDefault(subject, "PATH") + " allows it for the turns that follow; then paste the reply again"
	case refusal.RaiseInputLimit:
		if subject != "" {
			return "split the reply into smaller ones (the limit is " + subject + " bytes)"
		}
		return "split the reply into smaller ones"
	case refusal.ApplyAgain:
		if subject != "" {
			return "consent to proposal " + Short(subject) + " again when you want it"
		}
		return "consent again when you want it"
	case refusal.Rebase:
		return "paste the reply again to build it over the current HEAD"
	case refusal.ChooseFormat:
		return "paste the reply as fenced blocks that name their paths, an apply_patch payload, a unified diff or search/replace blocks"
	case refusal.Discard:
		return "answer anything but yes while it waits, and it is discarded; the reply pasted again then stages a new proposal"
	case refusal.Verify:
		return "nika verify " + orDefault(Short(subject), "COMMIT") + ", in a shell, says why"
	case refusal.ProposeChange:
		return "paste the change as a reply, and answer yes to apply it"
	case refusal.CheckFile:
		return "/check " + orDefault(subject, "NAME") + " shows the findings, /explain CODE the fix"
	case refusal.Push:
		return "push it again with nika push " + orDefault(Short(subject), "ID") + " in a shell"
	}
	return ""
}

// MCP words a fix for an agent that calls nika mcp's tools: what it can
// do with the tools, and what only its human can do. It names tools, never
// a CLI flag: the agent has none to give.
func MCP(f refusal.Fix, subject string) string {
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
			return "give the human the line nika apply " + Short(subject) + " again; only they can apply it"
		}
		return "give the human the nika apply line again; only they can apply it"
	case refusal.Rebase:
		return "the project moved: call propose again with the change made over the current files"
	case refusal.ChooseFormat:
		return "call the tool again with format set to one of: " + orDefault(subject, "auto, reply, patch, diff, search-replace")
	case refusal.Discard:
		return "call withdraw with its id; proposed again, the same text then stages a new proposal"
	case refusal.Verify:
		return "the human can see why with nika verify " + orDefault(Short(subject), "COMMIT") + " in their terminal"
	case refusal.ProposeChange:
		return "call propose with the change; only the human can apply it"
	case refusal.CheckFile:
		return "call check with " + orDefault(subject, "the file") + "'s text to see the findings, and explain with a finding's code for the fix"
	case refusal.Push:
		return "ask the human to push it again with nika push " + orDefault(Short(subject), "ID") + " in their terminal"
	}
	return ""
}

// MCPHint is a refusal's hint for the MCP door: the library's hint, then
// the fix in the agent's words.
func MCPHint(e *refusal.Error) string { return JoinHint(e.Hint, MCP(e.Fix, e.Subject)) }

// CLIHint is a refusal's hint for the CLI: the library's hint, then the
// fix in the CLI's words.
func CLIHint(e *refusal.Error) string { return JoinHint(e.Hint, CLI(e.Fix, e.Subject)) }

// SessionText is a session refusal's text for the session's doors (the
// terminal, the stdio protocol): the library's text and hint, then the fix
// in the session's words.
func SessionText(r session.Refusal) string {
	w := Session(r.Fix, r.Subject)
	if w == "" || strings.Contains(r.Text, w) {
		return r.Text
	}
	return r.Text + " · " + w
}

// SuggestedRun is the command that runs a run request by hand, when no
// runner is configured: the Nika runtime's nika run, with its flags.
func SuggestedRun(run flow.RunSpec) string {
	parts := []string{"nika", "run", shellQuote(run.Workflow)}
	keys := make([]string, 0, len(run.Vars))
	for k := range run.Vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, "--var", shellQuote(k+"="+run.Vars[k]))
	}
	if run.MaxCostUSD > 0 {
		parts = append(parts, "--max-cost-usd", strconv.FormatFloat(run.MaxCostUSD, 'f', -1, 64))
	}
	return strings.Join(parts, " ")
}

// SuggestedResume is the command that answers a paused run's gate by
// hand, when no resume template is configured.
func SuggestedResume(r flow.ResumeSpec) string {
	return "nika run --resume " + shellQuote(r.Trace) + " --answer " + shellQuote(r.Task+"="+r.Answer)
}

// shellQuote quotes s for a POSIX shell, unless it needs none.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// JoinHint is a hint followed by a fix in a door's words: the fix alone
// when it says the same as the hint, and how.
func JoinHint(hint, fix string) string {
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
