package mcp

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nika-dev/nika/refusal"
)

// serveInProcess runs Serve on pipes in dir and connects the SDK's client
// to it; the session ends when the test does, and Serve's result is
// checked then.
func serveInProcess(t *testing.T, dir string) *sdk.ClientSession {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- Serve(Options{Dir: dir, Version: "test", In: toServer, Out: fromServer, Err: &stderr})
		fromServer.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &sdk.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		fromClient.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v (stderr %q)", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("Serve did not end when the host closed its input")
		}
	})
	return cs
}

// TestServeMapsRefusalsToToolErrors: in process, the server lists its
// tools, and a refusal (here: no repository) is a tool error whose
// structured content is the refusal with its class, its code and the hint
// in the agent's words, with no host path in it.
func TestServeMapsRefusalsToToolErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_DIR", "") // restored after the test; unset in it
	os.Unsetenv("GIT_DIR")
	cs := serveInProcess(t, dir)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "check explain feedback list propose show status withdraw" {
		t.Errorf("tools %s", got)
	}
	if got := cs.InitializeResult().Instructions; got != Instructions {
		t.Errorf("instructions %q", got)
	}
	for _, c := range []struct {
		tool  string
		args  any
		class refusal.Class
	}{
		{"status", map[string]any{}, refusal.NotFound},
		{"apply", map[string]any{}, refusal.NotFound},
		{"explain", map[string]any{"code": "NIKA-NOPE-1"}, refusal.NotFound},
		{"propose", map[string]any{"text": 7}, refusal.Invalid},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var r Refusal
		if err := json.Unmarshal(b, &r); err != nil || !res.IsError || r.Type != "refusal" || r.Class != c.class || r.Exit != refusal.Code(c.class) || r.Text == "" {
			t.Errorf("%s: %s (error %v, %v)", c.tool, b, res.IsError, err)
		}
		if strings.Contains(string(b), dir) {
			t.Errorf("%s: a host path in %s", c.tool, b)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "explain", Arguments: map[string]any{"code": "nika-parse-002"}})
	if err != nil || res.IsError {
		t.Fatalf("explain: %v %v", err, res)
	}
}
