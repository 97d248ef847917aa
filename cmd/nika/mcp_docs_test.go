package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"

	nikamcp "github.com/nika-dev/nika/mcp"
)

// docBlock is a fenced block of docs/agents.md with its info string's
// attributes (```json host=cursor file=.cursor/mcp.json).
type docBlock struct {
	lang  string
	attrs map[string]string
	body  string
}

func agentsDoc(t *testing.T) []docBlock {
	t.Helper()
	b, err := os.ReadFile("../../docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	var cur *docBlock
	for _, l := range strings.SplitAfter(string(b), "\n") {
		trim := strings.TrimRight(l, "\n")
		switch {
		case cur == nil && strings.HasPrefix(trim, "```") && len(trim) > 3:
			f := strings.Fields(trim[3:])
			cur = &docBlock{lang: f[0], attrs: map[string]string{}}
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				cur.attrs[k] = v
			}
		case cur != nil && trim == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += l
		case strings.HasPrefix(trim, "```"):
			cur = &docBlock{attrs: map[string]string{}}
		}
	}
	return out
}

// shellWords splits a shell line as sh does for words, single and double
// quotes included (no expansions: the documented lines use none).
func shellWords(t *testing.T, line string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("unterminated quote in %q", line)
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// serverOf reads the command and arguments a documented snippet launches.
func serverOf(t *testing.T, b docBlock) (string, []string) {
	t.Helper()
	host := b.attrs["host"]
	str := func(v any) string { s, _ := v.(string); return s }
	list := func(v any) []string {
		var out []string
		xs, _ := v.([]any)
		for _, x := range xs {
			out = append(out, str(x))
		}
		return out
	}
	entry := func(m map[string]any, keys ...string) map[string]any {
		for _, k := range keys {
			m, _ = m[k].(map[string]any)
		}
		if m == nil {
			t.Fatalf("%s: no %s in %s", host, strings.Join(keys, "."), b.body)
		}
		return m
	}
	switch b.lang {
	case "sh":
		w := shellWords(t, b.body)
		i := 0
		for i < len(w) && w[i] != "--" {
			i++
		}
		if i+1 >= len(w) || strings.Join(w[:4], " ") != "claude mcp add nika" {
			t.Fatalf("%s: %q is not claude mcp add nika -- COMMAND", host, b.body)
		}
		return w[i+1], w[i+2:]
	case "json":
		var m map[string]any
		if err := json.Unmarshal([]byte(b.body), &m); err != nil {
			t.Fatalf("%s: %s is not JSON: %v", host, b.attrs["file"], err)
		}
		var e map[string]any
		switch host {
		case "claude-code", "cursor", "cline":
			e = entry(m, "mcpServers", "nika")
		case "zed":
			e = entry(m, "context_servers", "nika")
			if str(e["source"]) != "custom" {
				t.Errorf("zed: source %v", e["source"])
			}
		case "vscode":
			e = entry(m, "servers", "nika")
		default:
			t.Fatalf("a JSON snippet for an unknown host %s", host)
		}
		if ty, ok := e["type"]; ok && ty != "stdio" {
			t.Errorf("%s: type %v", host, ty)
		}
		return str(e["command"]), list(e["args"])
	case "toml":
		var m map[string]any
		if _, err := toml.Decode(b.body, &m); err != nil {
			t.Fatalf("%s: not TOML: %v", host, err)
		}
		e := entry(m, "mcp_servers", "nika")
		var args []string
		xs, _ := e["args"].([]any)
		for _, x := range xs {
			args = append(args, str(x))
		}
		return str(e["command"]), args
	case "yaml":
		var m map[string]any
		if err := yaml.Unmarshal([]byte(b.body), &m); err != nil {
			t.Fatalf("%s: not YAML: %v", host, err)
		}
		if m["schema"] != "v1" || m["name"] == nil || m["version"] == nil {
			t.Errorf("%s: a Continue block needs name, version and schema v1: %v", host, m)
		}
		servers, _ := m["mcpServers"].([]any)
		for _, s := range servers {
			e, _ := s.(map[string]any)
			if str(e["name"]) == "nika" {
				return str(e["command"]), list(e["args"])
			}
		}
		t.Fatalf("%s: no mcpServers entry named nika", host)
	}
	t.Fatalf("%s: a %s snippet", host, b.lang)
	return "", nil
}

// TestAgentsDocConfigs: every host's documented configuration parses, and
// launches nika mcp with the documented arguments: the test starts that
// command through the SDK's client and calls status.
func TestAgentsDocConfigs(t *testing.T) {
	g := mcpProject(t)
	seen := map[string]int{}
	for _, b := range agentsDoc(t) {
		host := b.attrs["host"]
		if host == "" {
			continue
		}
		seen[host]++
		t.Run(host+"/"+b.lang, func(t *testing.T) {
			command, args := serverOf(t, b)
			if command != "nika" || len(args) == 0 || args[0] != "mcp" {
				t.Fatalf("launches %s %v, want nika mcp", command, args)
			}
			dir := g.Dir
			for i, a := range args {
				if a == "${workspaceFolder}" || a == "/path/to/project" {
					args[i] = g.Dir
					dir = t.TempDir() // --repo names the project wherever the host starts
				}
			}
			cmd := exec.Command(command, args...)
			cmd.Dir = dir
			cmd.Stderr = &testWriter{t: t}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: host, Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("%s %v: %v", command, args, err)
			}
			defer cs.Close()
			var st nikamcp.StatusOut
			ok(t, cs, "status", nil, &st)
			want := []string{}
			if a := b.attrs["allow"]; a != "" {
				want = strings.Split(a, ",")
			}
			if strings.Join(st.Allow, ",") != strings.Join(want, ",") || st.Branch != "main" {
				t.Errorf("status: branch %s, allow %v, want %v", st.Branch, st.Allow, want)
			}
		})
	}
	for _, h := range []string{"claude-code", "codex", "cursor", "cline", "continue", "zed", "vscode"} {
		if seen[h] == 0 {
			t.Errorf("docs/agents.md has no tested configuration for %s", h)
		}
	}
	if seen["claude-code"] < 2 {
		t.Errorf("Claude Code needs the claude mcp add line and .mcp.json")
	}
}

// TestAgentsDocInstructions: the instructions docs/agents.md quotes are
// the server's, and the server sends them.
func TestAgentsDocInstructions(t *testing.T) {
	found := false
	for _, b := range agentsDoc(t) {
		if _, ok := b.attrs["instructions"]; ok {
			found = true
			if strings.TrimRight(b.body, "\n") != nikamcp.Instructions {
				t.Errorf("docs/agents.md quotes\n%s\nthe server sends\n%s", b.body, nikamcp.Instructions)
			}
		}
	}
	if !found {
		t.Fatal("docs/agents.md quotes no instructions")
	}
	g := mcpProject(t)
	cs := startMCP(t, g.Dir)
	if got := cs.InitializeResult().Instructions; got != nikamcp.Instructions {
		t.Errorf("the server sends %q", got)
	}
}
