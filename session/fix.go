package session

import (
	"errors"
	"regexp"
	"strings"

	"github.com/nika-dev/nika/refusal"
)

// The session is a door: a refusal that reaches it from the rooms carries
// a Fix (refusal/fix.go) that the session words in its own terms, with its
// own commands, never a CLI flag or verb. The CLI has its words for the
// same Fix; a human in the session never reads "run again with --allow".

// FixWords is the session's wording of a remedy; subject is what it
// applies to (a path, a proposal id, a limit).
func FixWords(f refusal.Fix, subject string) string {
	switch f {
	case refusal.Repropose:
		return "paste the reply again to rebuild its preview over the project as it is now"
	case refusal.ListProposals:
		return "/pending lists the proposals that wait and their ids"
	case refusal.Recover:
		return "an interrupted apply must be finished or undone first: end the session, and nika recover does it"
	case refusal.AllowFile:
		if subject == "" {
			subject = "PATH"
		}
		return "/allow " + subject + " allows it for the turns that follow; then paste the reply again"
	case refusal.RaiseInputLimit:
		if subject != "" {
			return "split the reply into smaller ones (the limit is " + subject + " bytes)"
		}
		return "split the reply into smaller ones"
	case refusal.ApplyAgain:
		if subject != "" {
			return "consent to proposal " + short(subject) + " again when you want it"
		}
		return "consent again when you want it"
	case refusal.Rebase:
		return "paste the reply again to build it over the current HEAD"
	case refusal.ChooseFormat:
		return "paste the reply as fenced blocks that name their paths, an apply_patch payload, a unified diff or search/replace blocks"
	}
	return ""
}

// legacyHints are hints of the rooms that still name a CLI verb or flag
// instead of carrying a Fix; each is read as the Fix it means, so that
// the session words it. A hint that names a CLI word and is not here is
// dropped rather than shown.
var legacyHints = []struct {
	re  *regexp.Regexp
	fix refusal.Fix
}{
	{regexp.MustCompile(`run again with --allow (\S+)`), refusal.AllowFile},
	{regexp.MustCompile(`rebuild the preview with nika propose`), refusal.Repropose},
	{regexp.MustCompile(`as nika list shows it|run nika list`), refusal.ListProposals},
	{regexp.MustCompile(`nika recover`), refusal.Recover},
	{regexp.MustCompile(`run nika apply again`), refusal.ApplyAgain},
	{regexp.MustCompile(`nika rebase`), refusal.Rebase},
	{regexp.MustCompile(`--format`), refusal.ChooseFormat},
}

// cliWordRe finds a CLI flag or a nika verb in a hint.
var cliWordRe = regexp.MustCompile(`(?:^|\s)--[a-z]|\bnika (?:propose|show|apply|review|rebase|discard|list|log|verify|check|explain|recover|push|fetch|revert|serve|mcp)\b|\bgit nika\b`)

// Refused words a refusal of the rooms for the session: its text, and the
// fix in the session's terms. Its class passes through unchanged.
func Refused(err error) Refusal {
	var e *refusal.Error
	if !errors.As(err, &e) {
		return Refusal{Class: ClassOf(err), Text: err.Error()}
	}
	return Refusal{Class: e.Class, Text: joinHint(e.Text, hintFor(e))}
}

func hintFor(e *refusal.Error) string {
	if e.Fix != "" {
		if w := FixWords(e.Fix, e.Subject); w != "" {
			return w
		}
	}
	for _, l := range legacyHints {
		if m := l.re.FindStringSubmatch(e.Hint); m != nil {
			subject := e.Subject
			if len(m) > 1 {
				subject = m[1]
			}
			return FixWords(l.fix, subject)
		}
	}
	if cliWordRe.MatchString(e.Hint) {
		return ""
	}
	return e.Hint
}

func joinHint(text, hint string) string {
	if hint == "" || strings.Contains(text, hint) {
		return text
	}
	return text + " · " + hint
}
