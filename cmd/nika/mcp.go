package main

// `nika mcp`: the agents' door, a Model Context Protocol server on stdin
// and stdout (the official Go SDK; every protocol revision it supports).
// An agent may propose, check, show, list, read the status, explain a
// code and withdraw a pending proposal. No tool applies, consents, answers
// a gate or runs a workflow: agent hosts can approve tool calls on their
// own, so no tool may move the branch, the index or the working tree. The
// boundary of what a proposal may touch is the human's: the project's
// nika.allow, and the --allow flags written in the host's configuration;
// no tool argument widens it. The server only translates: the logic is
// flow's, the same for every door. docs/agents.md is its manual.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/terminal"
)

// mcpMaxText is the largest text propose and check read: the CLI's
// default --max-input.
const mcpMaxText = 16 << 20

// mcpMaxFrame bounds one JSON-RPC message: room for a text at the limit
// whose every byte JSON escapes as \u00XX, so that a text over the limit
// reaches the tool (and its TooLarge refusal) instead of closing the
// connection. A message larger still ends the session, writing nothing.
const mcpMaxFrame = 6*mcpMaxText + 1<<20

// mcpInstructions are the server's instructions to the agent (the
// initialize result's instructions), quoted in docs/agents.md.
const mcpInstructions = `nika stages your proposed edits to this git project as a proposal: a commit that no branch points at, which the human previews and applies by typing yes in their own terminal. You can never apply, and you need not ask to.

How to work:
1. Call check with your edit (a reply with fenced blocks that name a path, an apply_patch payload, a unified diff, or search/replace blocks). It stages nothing and returns the refusals and checker findings that propose would give. Fix what it reports.
2. Call propose with the same text and a one-line goal. It returns the proposal's id, its changes, the checker's findings and effect rows, and the line the human runs: nika apply <id>.
3. Then stop. Give the human that exact line to run in their own terminal, and wait for them. Do not run nika apply yourself, and do not propose the same change again while it is pending.
4. Later, call list (with all: true) to see whether the human applied or discarded it, and call feedback to read what the human said about it.

A refusal is a tool error with a class, a text and a hint: follow the hint. What a proposal may touch beyond workflows (*.nika.yaml) and nika.yaml is the human's choice (their allow list); ask them, never work around it. status shows the branch, the workflows with their verdicts, the dirty paths and the allow list; explain explains a finding code; withdraw discards a pending proposal of yours that you no longer want.`

func (d *door) mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve agents over MCP on stdin and stdout: they propose, check, show, list and withdraw; only you apply (see docs/agents.md)",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "allow", Usage: "let proposals touch a supporting file (a path or a glob), as propose --allow; repeatable; the human writes it in the host's configuration"},
			&cli.StringFlag{Name: "repo", Usage: "the project's directory (default: the directory the host starts nika mcp in)"},
			jsonFlag,
		},
		Action: d.mcp,
	}
}

// mcpServer is one run of nika mcp: the project it serves, the human's
// allow list, and the lock that runs one tool call at a time (the
// repository handle is not safe for concurrent use, and a call sees the
// records the call before it left).
type mcpServer struct {
	d      *door
	dir    string   // where the project is looked for
	allow  []string // the human's --allow flags
	mu     sync.Mutex
	closed bool // the session ended: no call starts any more
	tools  map[string]bool
}

func (d *door) mcp(c *cli.Context) error {
	if c.NArg() > 0 {
		return refusal.New(refusal.Invalid, "run nika mcp with no arguments, from the host's configuration (see docs/agents.md)",
			"nika mcp takes no arguments, got %s", strings.Join(c.Args().Slice(), " "))
	}
	dir := c.String("repo")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return refusal.New(refusal.Io, "", "could not read the working directory: %v", unwrapPath(err))
		}
		dir = wd
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	d.json = true
	if terminal.IsTerminal(d.stdin) {
		fmt.Fprintln(d.stderr, "nika mcp speaks the Model Context Protocol on stdin and stdout: an agent host starts it (see docs/agents.md); end it with Ctrl-D")
	}
	s := &mcpServer{d: d, dir: dir, allow: c.StringSlice("allow"), tools: map[string]bool{}}
	// The project is opened by each call, not here: a directory that is no
	// repository (yet) is not fatal, and every tool answers why.
	srv := mcp.NewServer(&mcp.Implementation{Name: "nika", Title: "nika: propose changes for a human to apply", Version: version().Version},
		&mcp.ServerOptions{Instructions: mcpInstructions, Capabilities: &mcp.ServerCapabilities{}})
	s.register(srv)
	srv.AddReceivingMiddleware(s.middleware)
	t := &mcp.IOTransport{Reader: readCloser{d.stdin}, Writer: writeCloser{d.stdout}, MaxLineLength: mcpMaxFrame}
	err := srv.Run(context.Background(), t)
	// A call still running finishes before the process ends, and none
	// starts after: nothing is left half-written when the host closes
	// stdin mid-call. The lock is kept until the process exits.
	s.mu.Lock()
	s.closed = true
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(d.stderr, "nika mcp: the session ended: %s\n", d.scrub(err.Error()))
		return exitErr(refusal.Code(refusal.Io))
	}
	return nil
}

// open opens the project afresh for one call, so that every call sees the
// project, its configuration and the records as they are now.
func (s *mcpServer) open() (*flow.Repo, error) {
	r, err := flow.Open(s.dir)
	if err != nil {
		return nil, err
	}
	s.d.repo = r
	return r, nil
}

// middleware runs one tool call at a time, answers an unknown tool and
// arguments the SDK rejects with a typed refusal, turns a panic into an
// Internal refusal, and keeps host paths out of every result.
func (s *mcpServer) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return nil, mcp.ErrConnectionClosed
		}
		if ctr, ok := req.(*mcp.CallToolRequest); ok && !s.tools[ctr.Params.Name] {
			names := make([]string, 0, len(s.tools))
			for n := range s.tools {
				names = append(names, n)
			}
			sort.Strings(names)
			return s.toolError(refusal.New(refusal.NotFound, "the tools are "+strings.Join(names, ", "),
				"no tool is named %s", changeset.Quote(ctr.Params.Name))), nil
		}
		defer func() {
			if p := recover(); p != nil {
				res, err = s.toolError(refusal.New(refusal.Internal, "this is a bug in nika: please report it",
					"the tool failed unexpectedly: %v", p)), nil
			}
		}()
		res, err = next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || r == nil {
			return res, err
		}
		if r.IsError && r.StructuredContent == nil {
			// The SDK refused the arguments before the tool ran (they do not
			// fit the input schema, or are not an object), or the tool
			// returned an error that is not a refusal.
			cause := r.GetError()
			var re *refusal.Error
			if !errors.As(cause, &re) {
				text := "the arguments do not fit the tool's input schema"
				if cause != nil {
					text += ": " + cause.Error()
				} else if len(r.Content) > 0 {
					if tc, ok := r.Content[0].(*mcp.TextContent); ok {
						text += ": " + tc.Text
					}
				}
				re = refusal.New(refusal.Invalid, "call the tool again with arguments that match its input schema (tools/list shows it)", "%s", text)
			}
			return s.toolError(re), nil
		}
		s.scrubResult(r)
		return r, nil
	}
}

// mcpRefusal is a refusal as a tool error's structured content.
type mcpRefusal struct {
	Type  string        `json:"type" jsonschema:"refusal"`
	Class refusal.Class `json:"class" jsonschema:"the refusal class (docs/exit-codes.md)"`
	Text  string        `json:"text" jsonschema:"what was refused and why"`
	Hint  string        `json:"hint" jsonschema:"the fix, in the words of this door"`
	Fix   refusal.Fix   `json:"fix,omitempty" jsonschema:"the remedy the refusal names, if any"`
	Exit  int           `json:"exit" jsonschema:"the exit code the CLI gives this class"`
}

// toolError is a tool error: isError, the refusal as structured content, and
// its text rendering.
func (s *mcpServer) toolError(e *refusal.Error) *mcp.CallToolResult {
	text, hint := s.d.scrub(e.Text), s.d.scrub(doorwords.MCPHint(e))
	out := mcpRefusal{Type: "refusal", Class: e.Class, Text: text, Hint: hint, Fix: e.Fix, Exit: refusal.Code(e.Class)}
	b, _ := marshalNoHTML(out)
	rendering := "refused (" + string(e.Class) + "): " + text
	if hint != "" {
		rendering += "\nhint: " + hint
	}
	return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: rendering}}}
}

// scrubResult keeps the host's absolute paths out of a result (law 7).
func (s *mcpServer) scrubResult(r *mcp.CallToolResult) {
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			tc.Text = s.d.scrub(tc.Text)
		}
	}
	var raw []byte
	switch v := r.StructuredContent.(type) {
	case nil:
		return
	case json.RawMessage:
		raw = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		raw = b
	}
	r.StructuredContent = json.RawMessage(s.scrubJSON(string(raw)))
}

// scrubJSON is scrub over JSON text, where a path may also appear with
// JSON's escapes.
func (s *mcpServer) scrubJSON(js string) string {
	js = s.d.scrub(js)
	if s.d.repo == nil {
		return js
	}
	root := s.d.repo.Root()
	q, _ := json.Marshal(root)
	if esc := string(q[1 : len(q)-1]); esc != root {
		js = strings.ReplaceAll(js, esc, ".")
	}
	return js
}

func marshalNoHTML(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// readCloser and writeCloser give the SDK's transport the door's streams;
// closing them is the process's business, not the transport's.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
