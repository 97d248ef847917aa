package main

import (
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/refusal"
)

// A speed bump for agents at the consent door: nika apply refuses when its
// environment carries a marker that an agent host sets for the commands
// its agent runs. It stops an agent that reaches for nika apply through its
// host's shell tool, and tells the human why. It is not a wall: an agent
// that runs as the same user, with a shell and a pseudo-terminal of its own,
// can unset the variable and type yes (SECURITY.md says so). Only markers
// whose source we read are listed; docs/agents.md lists them with where
// each comes from.

// agentMarker is an environment variable that an agent host sets.
type agentMarker struct {
	name string // the variable; it marks when set and not empty
	host string // who sets it
}

var agentMarkers = []agentMarker{
	// Claude Code sets CLAUDECODE=1 in the environment of every command
	// its Bash tool runs (and of the MCP servers it starts).
	{"CLAUDECODE", "Claude Code"},
	// Claude Code sets AI_AGENT=claude-code_<version>_agent for the
	// commands its agent runs; other tools take up the same name.
	{"AI_AGENT", "an agent host"},
	// Gemini CLI sets GEMINI_CLI=1 for run_shell_command and ! commands.
	{"GEMINI_CLI", "Gemini CLI"},
	// Codex CLI sets CODEX_SANDBOX (seatbelt, on macOS) for a command it
	// runs in its sandbox, and CODEX_SANDBOX_NETWORK_DISABLED=1 for one it
	// runs without the network.
	{"CODEX_SANDBOX", "Codex CLI"},
	{"CODEX_SANDBOX_NETWORK_DISABLED", "Codex CLI"},
}

// refuseUnderAgent refuses a consent asked for in an agent host's command
// environment. lookup is os.LookupEnv.
func refuseUnderAgent(lookup func(string) (string, bool)) error {
	var set []string
	host := ""
	for _, m := range agentMarkers {
		if v, ok := lookup(m.name); ok && strings.TrimSpace(v) != "" {
			set = append(set, m.name)
			if host == "" {
				host = m.host
			}
		}
	}
	if len(set) == 0 {
		return nil
	}
	return refusal.New(refusal.NoConsent,
		"only a human applies: run nika apply in a terminal of your own, outside the agent; "+
			"an agent proposes, and hands the human the nika apply line",
		"nika was started from an agent's command environment (%s set: %s sets it for the commands it runs), where no consent is taken · nothing was applied",
		strings.Join(set, ", "), host)
}

// humansOnly wraps the action of a door that takes consent (apply, and
// serve, whose host answers for a human): it refuses before anything is
// read or drawn when an agent host's marker is in the environment.
func humansOnly(action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if err := refuseUnderAgent(os.LookupEnv); err != nil {
			return err
		}
		return action(c)
	}
}
