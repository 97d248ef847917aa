package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/hostpath"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/terminal"
)

// MaxText is the largest text propose and check read: the CLI's
// default --max-input.
const MaxText = 16 << 20

// maxFrame bounds one JSON-RPC message: room for a text at the limit
// whose every byte JSON escapes as \u00XX, so that a text over the limit
// reaches the tool (and its TooLarge refusal) instead of closing the
// connection. A message larger still ends the session, writing nothing.
const maxFrame = 6*MaxText + 1<<20

// Instructions are the server's instructions to the agent (the
// initialize result's instructions), quoted in docs/agents.md.
const Instructions = `nika stages your proposed edits to this git project as a proposal: a commit that no branch points at, which the human previews and applies by typing yes in their own terminal. You can never apply, and you need not ask to.

How to work:
1. Call check with your edit (a reply with fenced blocks that name a path, an apply_patch payload, a unified diff, or search/replace blocks). It stages nothing and returns the refusals and checker findings that propose would give. Fix what it reports.
2. Call propose with the same text and a one-line goal. It returns the proposal's id, its changes, the checker's findings and effect rows, and the line the human runs: nika apply <id>.
3. Then stop. Give the human that exact line to run in their own terminal, and wait for them. Do not run nika apply yourself, and do not propose the same change again while it is pending.
4. Later, call list (with all: true) to see whether the human applied or discarded it, and call feedback to read what the human said about it.

A refusal is a tool error with a class, a text and a hint: follow the hint. What a proposal may touch beyond workflows (*.nika.yaml) and nika.yaml is the human's choice (their allow list); ask them, never work around it. status shows the branch, the workflows with their verdicts, the dirty paths and the allow list; explain explains a finding code; withdraw discards a pending proposal of yours that you no longer want.`

// server is one run of nika mcp: the project it serves, the human's
// allow list, and the lock that runs one tool call at a time (the
// repository handle is not safe for concurrent use, and a call sees the
// records the call before it left).
type server struct {
	dir    string     // where the project is looked for
	allow  []string   // the human's --allow flags
	repo   *flow.Repo // the project the last call opened, for the scrubber
	mu     sync.Mutex
	closed bool // the session ended: no call starts any more
	tools  map[string]bool
}

// Options are what the CLI hands the server.
type Options struct {
	// Dir is where the project is looked for, absolute: each call opens it
	// afresh, and a directory that is no repository (yet) is not fatal.
	Dir string
	// Allow are the human's --allow flags, written in the host's
	// configuration: what proposals may touch beyond workflows and
	// nika.yaml, besides the project's nika.allow.
	Allow []string
	// Version is nika's version, for the initialize result.
	Version string
	// In and Out carry the protocol; Err gets the words for a human.
	In       io.Reader
	Out, Err io.Writer
}

// ErrEnded is what Serve returns when the session ended on an error of the
// transport (a message that is not JSON-RPC, a read that failed), after it
// said so on Err. The CLI exits with the code of an Io refusal.
var ErrEnded = errors.New("the MCP session ended on an error")

// Serve runs the server on o.In and o.Out until the host ends the session.
// A call still running finishes before it returns, and none starts after:
// nothing is left half-written when the host closes stdin mid-call.
func Serve(o Options) error {
	if terminal.IsTerminal(o.In) {
		fmt.Fprintln(o.Err, "nika mcp speaks the Model Context Protocol on stdin and stdout: an agent host starts it (see docs/agents.md); end it with Ctrl-D")
	}
	s := &server{dir: o.Dir, allow: o.Allow, tools: map[string]bool{}}
	// The project is opened by each call, not here: a directory that is no
	// repository (yet) is not fatal, and every tool answers why.
	srv := sdk.NewServer(&sdk.Implementation{Name: "nika", Title: "nika: propose changes for a human to apply", Version: o.Version},
		&sdk.ServerOptions{Instructions: Instructions, Capabilities: &sdk.ServerCapabilities{}})
	s.register(srv)
	srv.AddReceivingMiddleware(s.middleware)
	t := &sdk.IOTransport{Reader: readCloser{o.In}, Writer: writeCloser{o.Out}, MaxLineLength: maxFrame}
	err := srv.Run(context.Background(), t)
	// A call still running finishes before the process ends, and none
	// starts after. The lock is kept until the process exits.
	s.mu.Lock()
	s.closed = true
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, sdk.ErrConnectionClosed) && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(o.Err, "nika mcp: the session ended: %s\n", s.scrub(err.Error()))
		return ErrEnded
	}
	return nil
}

// open opens the project afresh for one call, so that every call sees the
// project, its configuration and the records as they are now.
func (s *server) open() (*flow.Repo, error) {
	r, err := flow.Open(s.dir)
	if err != nil {
		return nil, err
	}
	s.repo = r
	return r, nil
}

// middleware runs one tool call at a time, answers an unknown tool and
// arguments the SDK rejects with a typed refusal, turns a panic into an
// Internal refusal, and keeps host paths out of every result.
func (s *server) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return nil, sdk.ErrConnectionClosed
		}
		if ctr, ok := req.(*sdk.CallToolRequest); ok && !s.tools[ctr.Params.Name] {
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
		r, ok := res.(*sdk.CallToolResult)
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
					if tc, ok := r.Content[0].(*sdk.TextContent); ok {
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

// Refusal is a refusal as a tool error's structured content.
type Refusal struct {
	Type  string        `json:"type" jsonschema:"refusal"`
	Class refusal.Class `json:"class" jsonschema:"the refusal class (docs/exit-codes.md)"`
	Text  string        `json:"text" jsonschema:"what was refused and why"`
	Hint  string        `json:"hint" jsonschema:"the fix, in the words of this door"`
	Fix   refusal.Fix   `json:"fix,omitempty" jsonschema:"the remedy the refusal names, if any"`
	Exit  int           `json:"exit" jsonschema:"the exit code the CLI gives this class"`
}

// toolError is a tool error: isError, the refusal as structured content, and
// its text rendering.
func (s *server) toolError(e *refusal.Error) *sdk.CallToolResult {
	text, hint := s.scrub(e.Text), s.scrub(doorwords.MCPHint(e))
	out := Refusal{Type: "refusal", Class: e.Class, Text: text, Hint: hint, Fix: e.Fix, Exit: refusal.Code(e.Class)}
	b, _ := marshalNoHTML(out)
	rendering := "refused (" + string(e.Class) + "): " + text
	if hint != "" {
		rendering += "\nhint: " + hint
	}
	return &sdk.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b), Content: []sdk.Content{&sdk.TextContent{Text: rendering}}}
}

// scrubResult keeps the host's absolute paths out of a result (law 7).
func (s *server) scrubResult(r *sdk.CallToolResult) {
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			tc.Text = s.scrub(tc.Text)
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
func (s *server) scrubJSON(js string) string {
	js = s.scrub(js)
	if s.repo == nil {
		return js
	}
	root := s.repo.Root()
	q, _ := json.Marshal(root)
	if esc := string(q[1 : len(q)-1]); esc != root {
		js = strings.ReplaceAll(js, esc, ".")
	}
	return js
}

// scrub rewrites the known host places in machine output (law 7): the
// project's, once a call opened it.
func (s *server) scrub(t string) string {
	if s.repo == nil {
		return hostpath.New("", hostpath.Options{}).Known(t)
	}
	return s.repo.Scrubber().Known(t)
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
