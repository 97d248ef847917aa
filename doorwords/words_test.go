package doorwords

import (
	"strings"
	"testing"

	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
)

// TestEveryDoorWordsEveryFix: a fix a library names reaches every human in
// the words of the door they use, with a subject or without one; the
// session's words (its own commands) and the agent's (its tools) name no
// CLI flag.
func TestEveryDoorWordsEveryFix(t *testing.T) {
	for _, f := range refusal.Fixes() {
		for _, subject := range []string{"", "0123456789abcdef0123", "docs/a.md"} {
			if CLI(f, subject) == "" {
				t.Errorf("the CLI has no words for the fix %s (subject %q)", f, subject)
			}
			w := MCP(f, subject)
			if w == "" {
				t.Errorf("the MCP door has no words for the fix %s (subject %q)", f, subject)
			}
			if strings.Contains(w, "--") {
				t.Errorf("the MCP door's words for %s name a CLI flag: %q", f, w)
			}
			w = Session(f, subject)
			if w == "" {
				t.Errorf("the session has no words for the fix %s (subject %q)", f, subject)
			}
			if strings.Contains(w, "--") {
				t.Errorf("the session's words for %s name a CLI flag: %q", f, w)
			}
		}
	}
}

// TestSessionWordsTheFix: a refusal reaches the session's doors (the
// terminal, the stdio protocol) with its Fix worded by the session, after
// the library's text and door-neutral hint.
func TestSessionWordsTheFix(t *testing.T) {
	r := session.Refused(refusal.New(refusal.NotAllowed, "", "path %q is a supporting file that you did not allow", "docs/a.md").WithFix(refusal.AllowFile, "docs/a.md"))
	if got, want := SessionText(r), `path "docs/a.md" is a supporting file that you did not allow · /allow docs/a.md allows it for the turns that follow; then paste the reply again`; got != want {
		t.Errorf("SessionText = %q, want %q", got, want)
	}
	r = session.Refused(refusal.New(refusal.Invalid, "give at least 8 hex characters of the id", "%q is not a proposal id", "ab").WithFix(refusal.ListProposals, ""))
	if got, want := SessionText(r), `"ab" is not a proposal id · give at least 8 hex characters of the id · /pending lists the proposals that wait and their ids`; got != want {
		t.Errorf("SessionText = %q, want %q", got, want)
	}
	if r := (session.Refusal{Class: refusal.Invalid, Text: "bad"}); SessionText(r) != "bad" {
		t.Errorf("a refusal with no fix is worded %q", SessionText(r))
	}
}

// TestMCPWordsTheHint: the MCP door's hint is the library's door-neutral
// words, then the fix in the agent's: nothing is translated from another
// door's words.
func TestMCPWordsTheHint(t *testing.T) {
	e := refusal.New(refusal.NotAllowed, "", "path %q is a supporting file that you did not allow", "docs/a.md").WithFix(refusal.AllowFile, "docs/a.md")
	if h, want := MCPHint(e), MCP(refusal.AllowFile, "docs/a.md"); h != want {
		t.Errorf("MCPHint = %q, want %q", h, want)
	}
	e = refusal.New(refusal.NotFound, "give at least 8 hex characters of the id", "no proposal").WithFix(refusal.ListProposals, "")
	if h, want := MCPHint(e), "give at least 8 hex characters of the id; "+MCP(refusal.ListProposals, ""); h != want {
		t.Errorf("MCPHint = %q, want %q", h, want)
	}
}
