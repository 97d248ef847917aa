package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/refusal"
)

// The test process itself may run under an agent host (a developer's
// Claude Code, say): its markers are cleared here, so that the suite runs
// as it does in CI. The test binary re-executed as nika keeps what a test
// gives it, so the speed bump is tested through the binary.
func init() {
	if filepath.Base(os.Args[0]) != "nika" {
		for _, m := range agentMarkers {
			os.Unsetenv(m.name)
		}
	}
}

func TestRefuseUnderAgent(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string // "" for no refusal
	}{
		{map[string]string{}, ""},
		{map[string]string{"CLAUDECODE": ""}, ""},
		{map[string]string{"CLAUDECODE": " "}, ""},
		{map[string]string{"TERM_PROGRAM": "vscode", "CURSOR_TRACE_ID": "x", "CODEX_HOME": "/x"}, ""},
		{map[string]string{"CLAUDECODE": "1"}, "CLAUDECODE set: Claude Code"},
		{map[string]string{"AI_AGENT": "claude-code_2.1.197_agent"}, "AI_AGENT set: an agent host"},
		{map[string]string{"GEMINI_CLI": "1"}, "GEMINI_CLI set: Gemini CLI"},
		{map[string]string{"CODEX_SANDBOX": "seatbelt"}, "CODEX_SANDBOX set: Codex CLI"},
		{map[string]string{"CODEX_SANDBOX_NETWORK_DISABLED": "1"}, "CODEX_SANDBOX_NETWORK_DISABLED set: Codex CLI"},
		{map[string]string{"CLAUDECODE": "1", "AI_AGENT": "claude-code_x_agent"}, "CLAUDECODE, AI_AGENT set: Claude Code"},
	} {
		err := refuseUnderAgent(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: refused: %v", tc.env, err)
		case tc.want != "" && err == nil:
			t.Errorf("%v: not refused", tc.env)
		case err != nil:
			if refusal.ClassOf(err) != refusal.NoConsent || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was applied") {
				t.Errorf("%v: %v, want NoConsent saying %q", tc.env, err, tc.want)
			}
		}
	}
}
