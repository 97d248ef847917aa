package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMCP is an agent host in a script: it starts nika mcp in the current
// directory (with the flags before the tool, as a host's configuration
// gives them), calls one tool with the SDK's client, and ends the session.
//
//	mcp [--allow GLOB]... TOOL [KEY=VALUE | KEY=@FILE | KEY:=JSON]...
//
// stdout is the result's structured content as indented JSON (so id finds
// a proposal's id); stderr is its text rendering. A tool error fails the
// command (use ! mcp to expect one).
func cmdMCP(ts *testscript.TestScript, neg bool, args []string) {
	var flags []string
	for len(args) > 1 && strings.HasPrefix(args[0], "--") {
		flags, args = append(flags, args[0], args[1]), args[2:]
	}
	if len(args) == 0 {
		ts.Fatalf("usage: mcp [--allow GLOB]... TOOL [KEY=VALUE|KEY=@FILE|KEY:=JSON]...")
	}
	tool, arguments := args[0], map[string]any{}
	for _, a := range args[1:] {
		if k, v, ok := strings.Cut(a, ":="); ok {
			var raw any
			if err := json.Unmarshal([]byte(v), &raw); err != nil {
				ts.Fatalf("mcp: %s is not JSON: %v", a, err)
			}
			arguments[k] = raw
			continue
		}
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("mcp: %s is not KEY=VALUE", a)
		}
		if f, isFile := strings.CutPrefix(v, "@"); isFile {
			v = ts.ReadFile(f)
		}
		arguments[k] = v
	}
	cmd := exec.Command("nika", append([]string{"mcp"}, flags...)...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range scriptEnvKeys {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TESTSCRIPT_") || strings.HasPrefix(kv, "GOCOVERDIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "nika-script-host", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		ts.Fatalf("mcp: connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: arguments})
	if err != nil {
		ts.Fatalf("mcp: %s: protocol error: %v", tool, err)
	}
	b, err := json.MarshalIndent(res.StructuredContent, "", "  ")
	if err != nil {
		ts.Fatalf("mcp: %v", err)
	}
	ts.Stdout().Write(append(b, '\n'))
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			ts.Stderr().Write([]byte(tc.Text))
		}
	}
	if res.IsError && !neg {
		ts.Fatalf("mcp: %s: tool error", tool)
	}
	if !res.IsError && neg {
		ts.Fatalf("mcp: %s: unexpected success", tool)
	}
}
