package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nika-dev/nika/gitstage/gittest"
	nikamcp "github.com/nika-dev/nika/mcp"
	"github.com/nika-dev/nika/refusal"
)

// These tests drive the real binary (this test binary re-executed as nika,
// as testscript installs it in $PATH) over stdio with the SDK's own client
// and its CommandTransport, as an agent host does.

const (
	mcpGood = "```yaml path=flows/hello.nika.yaml\nnika: hello\npermits:\n  exec: [echo]\ntasks:\n  greet:\n    exec:\n      command: [echo, hi]\n```\n"
	mcpBad  = "```yaml path=flows/bad.nika.yaml\nnika: bad\ntasks:\n  greet:\n    exec:\n      command: [echo, hi]\n    bogus: true\n```\n"
)

// mcpProject is a repository with a workflow, a supporting file, and the
// human's own uncommitted work: an edited file and an untracked one.
func mcpProject(t *testing.T) *gittest.Repo {
	t.Helper()
	g := gittest.New(t)
	g.Write("daily.nika.yaml", "nika: daily\npermits:\n  exec: [echo]\ntasks:\n  say:\n    exec:\n      command: [echo, daily]\n")
	g.Write("docs/guide.md", "# guide\n")
	g.Write("README.md", "hello\n")
	g.Write("notes.txt", "notes\n")
	g.Commit("first")
	g.Write("notes.txt", "the human's own edit\n")
	g.Write("scratch.txt", "untracked\n")
	return g
}

// startMCP starts nika mcp in dir with the SDK's command transport.
func startMCP(t *testing.T, dir string, args ...string) *mcp.ClientSession {
	t.Helper()
	return startMCPVersion(t, dir, "", args...)
}

func startMCPVersion(t *testing.T, dir, version string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command("nika", append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Stderr = &testWriter{t: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "nika-test-host", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatalf("connect to nika mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(b []byte) (int, error) {
	w.t.Logf("nika mcp stderr: %s", b)
	return len(b), nil
}

// callTool calls a tool and fails the test on a protocol error: every bad
// input must come back as a tool result.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

// decode reads a result's structured content into v.
func decode(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok calls a tool that must succeed, and decodes its output.
func ok(t *testing.T, cs *mcp.ClientSession, name string, args, out any) *mcp.CallToolResult {
	t.Helper()
	res := callTool(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text(res))
	}
	if out != nil {
		decode(t, res, out)
	}
	return res
}

// refused calls a tool that must refuse with class, and returns the refusal.
func refused(t *testing.T, cs *mcp.ClientSession, name string, args any, class refusal.Class) nikamcp.Refusal {
	t.Helper()
	res := callTool(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s: accepted, want a %s refusal: %s", name, class, text(res))
	}
	var r nikamcp.Refusal
	decode(t, res, &r)
	if r.Type != "refusal" || r.Class != class || r.Text == "" || r.Exit != refusal.Code(class) {
		t.Fatalf("%s: refusal %+v, want class %s", name, r, class)
	}
	if !strings.Contains(text(res), "refused ("+string(class)+"): "+r.Text) {
		t.Errorf("%s: the text rendering %q does not carry the refusal", name, text(res))
	}
	if flagRE.MatchString(r.Hint) {
		t.Errorf("%s: the hint names a CLI flag an agent cannot give: %q", name, r.Hint)
	}
	return r
}

// TestMCPTools runs every tool through the binary: check, propose, show,
// list, status, explain and withdraw, with the shapes they document.
func TestMCPTools(t *testing.T) {
	g := mcpProject(t)
	cs := startMCP(t, g.Dir, "--allow", "docs/**")

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: no input or output schema", tl.Name)
		}
		in, _ := json.Marshal(tl.InputSchema)
		if strings.Contains(string(in), `"allow"`) {
			t.Errorf("%s: an input can widen what a proposal may touch: %s", tl.Name, in)
		}
		for _, verb := range []string{"apply", "consent", "answer", "run"} {
			if strings.Contains(tl.Name, verb) {
				t.Errorf("a tool named %s", tl.Name)
			}
		}
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "check explain feedback list propose show status withdraw" {
		t.Errorf("tools %s", got)
	}
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "nika apply <id>") || !strings.Contains(ins, "feedback") {
		t.Errorf("instructions %q", ins)
	}

	// check stages nothing, and says what propose would
	var chk nikamcp.CheckOut
	ok(t, cs, "check", map[string]any{"text": mcpGood}, &chk)
	if chk.Type != "check" || !chk.Clean || len(chk.Changes) != 1 || chk.Changes[0].Path != "flows/hello.nika.yaml" ||
		chk.Changes[0].Kind != "create" || chk.Changes[0].After == nil || len(chk.Audits) != 1 || chk.Format != "reply" {
		t.Fatalf("check %+v", chk)
	}
	if out := g.Git("for-each-ref", "refs/nika"); out != "" {
		t.Errorf("check made refs: %s", out)
	}
	var bad nikamcp.CheckOut
	ok(t, cs, "check", map[string]any{"text": mcpBad}, &bad)
	if bad.Clean || len(bad.Audits) != 1 || bad.Audits[0].Clean || len(bad.Audits[0].Findings) == 0 {
		t.Errorf("check of a bad workflow: %+v", bad)
	}

	// propose: the proposal, its audit, and the line the human runs
	var p nikamcp.ProposeOut
	res := ok(t, cs, "propose", map[string]any{"text": mcpGood, "goal": "say hello"}, &p)
	if p.Type != "proposal" || len(p.ID) != 64 || len(p.Commit) != 40 || p.Base == nil || *p.Base != g.Git("rev-parse", "HEAD") ||
		p.Goal != "say hello" || len(p.Changes) != 1 || len(p.Audits) != 1 || !p.Audits[0].Clean || p.Audits[0].Effects == nil {
		t.Fatalf("propose %+v", p)
	}
	if p.Apply != "nika apply "+p.ID[:12] || !strings.Contains(p.Instruction, p.Apply) || !strings.Contains(text(res), "\n    "+p.Apply+"\n") {
		t.Errorf("apply line %q, instruction %q, text %q", p.Apply, p.Instruction, text(res))
	}
	if js, _ := json.Marshal(chk.Changes); !strings.Contains(string(mustJSON(t, p.Changes)), string(js[1:len(js)-1])) {
		t.Errorf("check's changes %s are not propose's %s", js, mustJSON(t, p.Changes))
	}
	if got := g.Git("cat-file", "-t", p.Commit); got != "commit" {
		t.Errorf("the proposal commit is a %s", got)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, "flows")); err == nil {
		t.Error("propose wrote into the working tree")
	}
	var again nikamcp.ProposeOut
	ok(t, cs, "propose", map[string]any{"text": mcpGood, "goal": "say hello"}, &again)
	if !again.Again || again.ID != p.ID || again.Commit != p.Commit {
		t.Errorf("proposing the same text again: %+v", again)
	}
	// a supporting file the human allowed in the host's configuration
	var doc nikamcp.ProposeOut
	ok(t, cs, "propose", map[string]any{"text": "```md path=docs/guide.md\n# guide\n\nmore\n```\n", "goal": "docs"}, &doc)
	if doc.Changes[0].Class != "supporting" || doc.Changes[0].Kind != "update" {
		t.Errorf("allowed supporting file: %+v", doc.Changes)
	}
	// nothing to propose
	var none nikamcp.ProposeOut
	ok(t, cs, "propose", map[string]any{"text": "```md path=docs/guide.md\n# guide\n```\n"}, &none)
	if none.Type != "nothing" || none.Apply != "" || len(none.Unchanged) != 1 {
		t.Errorf("nothing: %+v", none)
	}

	// show: the same bytes as nika show without colour
	var sh nikamcp.ShowOut
	res = ok(t, cs, "show", map[string]any{"id": p.ID[:8]}, &sh)
	cli := exec.Command("nika", "show", p.ID)
	cli.Dir = g.Dir
	cli.Env = append(os.Environ(), "NO_COLOR=1", "PAGER=cat")
	want, err := cli.Output()
	if err != nil {
		t.Fatal(err)
	}
	if sh.Preview != string(want) || text(res) != string(want) || sh.ID != p.ID || sh.State != "pending" {
		t.Errorf("show's preview differs from nika show:\n%s\n---\n%s", sh.Preview, want)
	}

	// list: pending, ready, with the line
	var ls nikamcp.ListOut
	ok(t, cs, "list", map[string]any{}, &ls)
	if len(ls.Proposals) != 2 {
		t.Fatalf("list %+v", ls)
	}
	for _, it := range ls.Proposals {
		if it.State != "pending" || !it.Ready || it.Apply != "nika apply "+it.ID[:12] || it.Why != nil {
			t.Errorf("list item %+v", it)
		}
	}

	// status
	var st nikamcp.StatusOut
	ok(t, cs, "status", nil, &st)
	if st.Branch != "main" || st.Head == nil || st.WorkflowsTotal != 1 || len(st.Workflows) != 1 || !st.Workflows[0].Clean ||
		st.Pending != 2 || strings.Join(st.Allow, ",") != "docs/**" {
		t.Errorf("status %+v", st)
	}
	dirty := map[string]string{}
	for _, dp := range st.Dirty {
		dirty[dp.Path] = dp.Status
	}
	if dirty["notes.txt"] != " M" || dirty["scratch.txt"] != "??" || len(dirty) != 2 {
		t.Errorf("dirty %v", st.Dirty)
	}

	// explain
	var ex nikamcp.ExplainOut
	ok(t, cs, "explain", map[string]any{"code": "nika-parse-002"}, &ex)
	if ex.Code != "NIKA-PARSE-002" || ex.Text == "" {
		t.Errorf("explain %+v", ex)
	}

	// feedback: the human's word on a proposal, for the agent's next edit;
	// a pending one with no word yet
	var fb nikamcp.FeedbackOut
	ok(t, cs, "feedback", map[string]any{"id": doc.ID}, &fb)
	if fb.Type != "feedback" || fb.Feedback.ID != doc.ID || fb.Feedback.Decision != "pending" || len(fb.Feedback.Comments) != 0 {
		t.Errorf("feedback %+v", fb)
	}
	refused(t, cs, "feedback", map[string]any{"id": "0123456789abcdef"}, refusal.NotFound)

	// withdraw: discarded, touches no project file, once
	var wd nikamcp.WithdrawOut
	ok(t, cs, "withdraw", map[string]any{"id": doc.ID}, &wd)
	if wd.ID != doc.ID || wd.State != "discarded" {
		t.Errorf("withdraw %+v", wd)
	}
	refused(t, cs, "withdraw", map[string]any{"id": doc.ID}, refusal.AlreadyConsumed)
	ok(t, cs, "list", map[string]any{"all": true}, &ls)
	states := map[string]string{}
	for _, it := range ls.Proposals {
		states[it.ID] = it.State
	}
	if states[doc.ID] != "discarded" || states[p.ID] != "pending" {
		t.Errorf("list all %v", states)
	}
	if got := g.Read("docs/guide.md"); got != "# guide\n" {
		t.Errorf("docs/guide.md = %q", got)
	}
}

// flagRE finds a flag of nika's own verbs in a text (git's flags, which a
// hint may name for the human, are not nika's).
var flagRE = func() *regexp.Regexp {
	var names []string
	d := &door{}
	for _, c := range d.commands() {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if len(n) > 1 {
					names = append(names, regexp.QuoteMeta(n))
				}
			}
		}
	}
	return regexp.MustCompile(`(^|[\s(])--(` + strings.Join(names, "|") + `)\b`)
}()

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMCPBadInput: every bad input is a typed tool error, and the server
// goes on serving.
func TestMCPBadInput(t *testing.T) {
	g := mcpProject(t)
	cs := startMCP(t, g.Dir)
	huge := strings.Repeat("a", nikamcp.MaxText+1)
	for _, tc := range []struct {
		name  string
		tool  string
		args  any
		class refusal.Class
		text  string
	}{
		{"unknown tool", "apply", map[string]any{"id": "0123456789ab"}, refusal.NotFound, `no tool is named "apply"`},
		{"missing text", "propose", map[string]any{"goal": "g"}, refusal.Invalid, "text"},
		{"text of the wrong type", "propose", map[string]any{"text": 42}, refusal.Invalid, "text"},
		{"an argument that widens the boundary", "propose", map[string]any{"text": mcpGood, "allow": []string{"**"}}, refusal.Invalid, "allow"},
		{"arguments that are not an object", "check", []string{"x"}, refusal.Invalid, "arguments"},
		{"an unknown format", "check", map[string]any{"text": mcpGood, "format": "yaml"}, refusal.Invalid, "format"},
		{"empty text", "propose", map[string]any{"text": "  \n"}, refusal.Invalid, "empty"},
		{"text over 16 MiB", "propose", map[string]any{"text": huge}, refusal.TooLarge, "over the limit of 16777216"},
		{"text over 16 MiB, check", "check", map[string]any{"text": huge}, refusal.TooLarge, "over the limit"},
		{"a supporting file not allowed", "propose", map[string]any{"text": "```md path=README.md\nbye\n```\n"}, refusal.NotAllowed, "did not allow"},
		{"a target with uncommitted changes", "propose", map[string]any{"text": "```txt path=notes.txt\nx\n```\n", "format": "reply"}, refusal.NotAllowed, ""},
		{"a path into .git", "check", map[string]any{"text": "```txt path=.git/hooks/pre-commit\nx\n```\n"}, refusal.NotAllowed, ".git"},
		{"a malformed patch", "propose", map[string]any{"text": "*** Begin Patch\n*** Update File: daily.nika.yaml\n@@\n-nope\n+x\n*** End Patch\n"}, "", ""},
		{"an id that is no id", "show", map[string]any{"id": "zz"}, refusal.Invalid, "prefix"},
		{"an id nobody has", "withdraw", map[string]any{"id": "0123456789abcdef"}, refusal.NotFound, ""},
		{"a missing id", "show", map[string]any{}, refusal.Invalid, "id"},
		{"an unknown code", "explain", map[string]any{"code": "NIKA-NOPE-999"}, refusal.NotFound, "NIKA-NOPE-999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := callTool(t, cs, tc.tool, tc.args)
			if !res.IsError {
				t.Fatalf("accepted: %s", text(res))
			}
			var r nikamcp.Refusal
			decode(t, res, &r)
			if r.Type != "refusal" || (tc.class != "" && r.Class != tc.class) || !strings.Contains(r.Text, tc.text) || r.Exit != refusal.Code(r.Class) {
				t.Errorf("refusal %+v, want %s saying %q", r, tc.class, tc.text)
			}
			if flagRE.MatchString(r.Hint) {
				t.Errorf("the hint names a CLI flag: %q", r.Hint)
			}
			if strings.Contains(text(res), g.Dir) || strings.Contains(string(mustJSON(t, res.StructuredContent)), g.Dir) {
				t.Errorf("a host path in the result: %s", text(res))
			}
			t.Logf("%s", text(res))
		})
	}
	// a target with uncommitted changes, when it is allowed: Dirty
	g.Git("config", "--add", "nika.allow", "notes.txt")
	r := refused(t, cs, "propose", map[string]any{"text": "```txt path=notes.txt\nx\n```\n"}, refusal.Dirty)
	if !strings.Contains(r.Text, "uncommitted") {
		t.Errorf("dirty: %+v", r)
	}
	// a merge, then a rebase, in progress
	head := g.Git("rev-parse", "HEAD")
	for _, state := range []string{"MERGE_HEAD", "rebase-merge"} {
		p := filepath.Join(g.Dir, ".git", state)
		if state == "MERGE_HEAD" {
			os.WriteFile(p, []byte(head+"\n"), 0o644)
		} else {
			os.MkdirAll(p, 0o755)
		}
		r := refused(t, cs, "propose", map[string]any{"text": mcpGood}, refusal.Dirty)
		if !strings.Contains(r.Text, "in progress") {
			t.Errorf("%s: %+v", state, r)
		}
		refused(t, cs, "check", map[string]any{"text": mcpGood}, refusal.Dirty)
		var st nikamcp.StatusOut
		ok(t, cs, "status", nil, &st)
		if st.InProgress == "" {
			t.Errorf("%s: status does not say so", state)
		}
		os.RemoveAll(p)
	}
	// still serving
	ok(t, cs, "propose", map[string]any{"text": mcpGood}, nil)
}

// TestMCPOutsideARepository: the server starts, and every tool says why it
// cannot serve.
func TestMCPOutsideARepository(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	cs := startMCP(t, dir)
	r := refused(t, cs, "status", nil, refusal.NotFound)
	if !strings.Contains(r.Text, "not a git repository") {
		t.Errorf("%+v", r)
	}
	refused(t, cs, "propose", map[string]any{"text": mcpGood}, refusal.NotFound)
	ok(t, cs, "explain", map[string]any{"code": "NIKA-PARSE-002"}, nil)
}

// TestMCPProtocolVersions: the server speaks every revision the SDK
// supports.
func TestMCPProtocolVersions(t *testing.T) {
	g := mcpProject(t)
	for _, v := range mcp.SupportedProtocolVersions() {
		t.Run(v, func(t *testing.T) {
			cs := startMCPVersion(t, g.Dir, v)
			if ir := cs.InitializeResult(); ir != nil && ir.ProtocolVersion != v {
				t.Errorf("negotiated %s, asked for %s", ir.ProtocolVersion, v)
			}
			var ls nikamcp.ListOut
			ok(t, cs, "list", map[string]any{}, &ls)
			if ls.Type != "list" {
				t.Errorf("list %+v", ls)
			}
			refused(t, cs, "nope", map[string]any{}, refusal.NotFound)
		})
	}
}

// worldState is what no tool may change: HEAD, every ref outside
// refs/nika/, the index, the working tree (bytes, modes, symlinks, empty
// directories) and the config, each as bytes or their hash.
func worldState(t *testing.T, g *gittest.Repo) map[string]string {
	t.Helper()
	m := map[string]string{}
	read := func(name string) {
		b, err := os.ReadFile(filepath.Join(g.Dir, ".git", name))
		if err == nil {
			m[".git/"+name] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
	}
	read("HEAD")
	read("index")
	read("config")
	read("packed-refs")
	m["rev-parse HEAD"] = g.Git("rev-parse", "HEAD")
	for _, l := range strings.Split(g.Git("for-each-ref", "--format=%(refname) %(objectname)"), "\n") {
		if !strings.HasPrefix(l, "refs/nika/") {
			m["ref "+l] = "present"
		}
	}
	filepath.WalkDir(g.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(g.Dir, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		fi, _ := d.Info()
		switch {
		case d.IsDir():
			m["dir "+rel] = fi.Mode().String()
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m["link "+rel] = target
		default:
			b, _ := os.ReadFile(p)
			m["file "+rel] = fmt.Sprintf("%s %x", fi.Mode(), sha256.Sum256(b))
		}
		return nil
	})
	return m
}

func sameWorld(t *testing.T, before, after map[string]string) {
	t.Helper()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("changed: %s: %q -> %q", k, v, after[k])
		}
	}
	for k, v := range after {
		if _, had := before[k]; !had {
			t.Errorf("new: %s: %q", k, v)
		}
	}
}

// TestMCPWritesNothingElse runs every tool, in many orders, with good and
// bad input, and then finds HEAD, every ref outside refs/nika/, the index,
// the working tree and the config byte for byte as they were.
func TestMCPWritesNothingElse(t *testing.T) {
	g := mcpProject(t)
	for _, allow := range []string{"README.md", "notes.txt", "scratch.txt", "readme-link"} {
		g.Git("config", "--add", "nika.allow", allow)
	}
	os.Symlink("README.md", filepath.Join(g.Dir, "readme-link"))
	os.MkdirAll(filepath.Join(g.Dir, "empty-dir"), 0o755)
	// stale stat data: a git status allowed to write would refresh the index
	old := time.Unix(1500000000, 0)
	os.Chtimes(filepath.Join(g.Dir, "README.md"), old, old)
	before := worldState(t, g)

	type move struct {
		name string
		run  func(cs *mcp.ClientSession, last *string)
	}
	call := func(tool string, args func(last string) any) func(*mcp.ClientSession, *string) {
		return func(cs *mcp.ClientSession, last *string) {
			res := callTool(t, cs, tool, args(*last))
			if !res.IsError && (tool == "propose") {
				var p nikamcp.ProposeOut
				decode(t, res, &p)
				if p.ID != "" {
					*last = p.ID
				}
			}
		}
	}
	fixed := func(v any) func(string) any { return func(string) any { return v } }
	byID := func(last string) any { return map[string]any{"id": last} }
	moves := []move{
		{"check good", call("check", fixed(map[string]any{"text": mcpGood}))},
		{"check bad", call("check", fixed(map[string]any{"text": mcpBad}))},
		{"check dirty", call("check", fixed(map[string]any{"text": "```txt path=notes.txt\nx\n```\n"}))},
		{"propose good", call("propose", fixed(map[string]any{"text": mcpGood, "goal": "hello"}))},
		{"propose bad", call("propose", fixed(map[string]any{"text": mcpBad, "goal": "bad"}))},
		{"propose an update of an allowed file", call("propose", fixed(map[string]any{"text": "```md path=README.md\nbye\n```\n"}))},
		{"propose a delete", call("propose", fixed(map[string]any{"text": "*** Begin Patch\n*** Delete File: daily.nika.yaml\n*** End Patch\n", "format": "patch"}))},
		{"propose a move", call("propose", fixed(map[string]any{"text": "*** Begin Patch\n*** Update File: daily.nika.yaml\n*** Move to: moved.nika.yaml\n*** End Patch\n"}))},
		{"propose a diff", call("propose", fixed(map[string]any{"text": "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-hello\n+hello, diff\n", "format": "diff"}))},
		{"propose not allowed", call("propose", fixed(map[string]any{"text": "```txt path=docs/guide.md\nx\n```\n"}))},
		{"propose into .git", call("propose", fixed(map[string]any{"text": "```txt path=.git/config\n[core]\n```\n"}))},
		{"propose through a symlink", call("propose", fixed(map[string]any{"text": "```txt path=readme-link\nx\n```\n"}))},
		{"propose the dirty file", call("propose", fixed(map[string]any{"text": "```txt path=notes.txt\nx\n```\n"}))},
		{"propose over the untracked file", call("propose", fixed(map[string]any{"text": "```txt path=scratch.txt\nx\n```\n"}))},
		{"propose with allow", call("propose", fixed(map[string]any{"text": mcpGood, "allow": "**"}))},
		{"show", call("show", byID)},
		{"show bad", call("show", fixed(map[string]any{"id": "nope"}))},
		{"list", call("list", fixed(map[string]any{}))},
		{"list all", call("list", fixed(map[string]any{"all": true}))},
		{"status", call("status", fixed(map[string]any{}))},
		{"explain", call("explain", fixed(map[string]any{"code": "NIKA-PARSE-002"}))},
		{"explain bad", call("explain", fixed(map[string]any{"code": 7}))},
		{"feedback", call("feedback", byID)},
		{"feedback bad", call("feedback", fixed(map[string]any{"id": "nope"}))},
		{"withdraw", call("withdraw", byID)},
		{"withdraw bad", call("withdraw", fixed(map[string]any{"id": "ffffffffffff"}))},
		{"unknown tool", call("apply", byID)},
		{"consent", call("consent", fixed(map[string]any{"answer": "yes"}))},
	}
	for seed := int64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewSource(seed))
		order := rng.Perm(len(moves))
		cs := startMCP(t, g.Dir)
		last := "0000000000000000"
		var names []string
		for _, i := range order {
			moves[i].run(cs, &last)
			names = append(names, moves[i].name)
		}
		// the same moves again, in reverse, in the same session
		for j := len(order) - 1; j >= 0; j-- {
			moves[order[j]].run(cs, &last)
		}
		cs.Close()
		t.Logf("order %d: %s", seed, strings.Join(names, ", "))
		sameWorld(t, before, worldState(t, g))
	}
	g.Git("fsck", "--strict")
	if out := g.Git("for-each-ref", "refs/nika"); out != "" {
		t.Errorf("a tool made a ref: %s", out)
	}
}

// TestMCPClosedStdin: a host that closes stdin, at once or in the middle
// of a call, ends the server with exit 0 and nothing half-written.
func TestMCPClosedStdin(t *testing.T) {
	g := mcpProject(t)
	before := worldState(t, g)
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"propose","arguments":{"text":` + string(mustJSON(t, mcpGood)) + `}}}`,
	}
	for n := 0; n <= len(lines); n++ {
		cmd := exec.Command("nika", "mcp")
		cmd.Dir = g.Dir
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go bufio.NewReader(out).WriteTo(discard{})
		for _, l := range lines[:n] {
			fmt.Fprintln(in, l)
		}
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("after %d lines and a closed stdin: %v", n, err)
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("after %d lines and a closed stdin the server did not end", n)
		}
		sameWorld(t, before, worldState(t, g))
		g.Git("fsck", "--strict")
	}
	// whatever was staged is whole: every record names a commit git has
	for _, l := range strings.Split(g.Git("for-each-ref"), "\n") {
		if strings.Contains(l, "refs/nika") {
			t.Errorf("a ref: %s", l)
		}
	}
}

// TestMCPGarbage: a line that is not JSON ends the session (JSON-RPC over
// stdio cannot resynchronise), without a crash and without a write.
func TestMCPGarbage(t *testing.T) {
	g := mcpProject(t)
	before := worldState(t, g)
	cmd := exec.Command("nika", "mcp")
	cmd.Dir = g.Dir
	cmd.Stdin = strings.NewReader("this is not JSON-RPC\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == refusal.Code(refusal.Io)) {
		t.Errorf("exit %v, want 0 or %d", err, refusal.Code(refusal.Io))
	}
	if strings.Contains(stderr.String(), "panic") || strings.Contains(stderr.String(), "goroutine") {
		t.Errorf("a crash: %s", stderr.String())
	}
	t.Logf("stderr: %s", stderr.String())
	sameWorld(t, before, worldState(t, g))
}

// TestWorldStateSees: the write-set snapshot notices each kind of change
// it guards, so that the invariant above can fail.
func TestWorldStateSees(t *testing.T) {
	g := mcpProject(t)
	for _, change := range []func(){
		func() { g.Write("notes.txt", "changed again\n") },
		func() { os.Chmod(filepath.Join(g.Dir, "README.md"), 0o755) },
		func() { g.Write("new/file.txt", "x") },
		func() { os.MkdirAll(filepath.Join(g.Dir, "another-empty"), 0o755) },
		func() { g.Git("add", "notes.txt") },
		func() { g.Git("config", "user.name", "Someone") },
		func() { g.Git("branch", "topic") },
		func() { g.Git("commit", "-q", "--allow-empty", "-m", "moved") },
		func() { g.Git("symbolic-ref", "HEAD", "refs/heads/topic") },
	} {
		before := worldState(t, g)
		change()
		after := worldState(t, g)
		same := len(before) == len(after)
		for k, v := range before {
			same = same && after[k] == v
		}
		if same {
			t.Errorf("a change went unseen: %d entries", len(after))
		}
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
