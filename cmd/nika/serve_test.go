package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stdioHost is a scripted host of `nika serve --stdio`, run in-process.
type stdioHost struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	done   chan int
	stderr bytes.Buffer
	lines  []string
	hello  map[string]any
}

func startServe(t *testing.T) *stdioHost {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &stdioHost{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan int, 1)}
	go func() {
		code := run([]string{"nika", "serve", "--stdio"}, inR, outW, &h.stderr)
		outW.Close()
		h.done <- code
	}()
	h.hello = h.read()
	if h.hello["type"] != "hello" {
		t.Fatalf("first line %v, stderr %s", h.hello, h.stderr.String())
	}
	return h
}

func (h *stdioHost) read() map[string]any {
	h.t.Helper()
	line, err := h.out.ReadString('\n')
	if err != nil {
		h.t.Fatalf("read: %v (stderr %s)", err, h.stderr.String())
	}
	h.lines = append(h.lines, line)
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		h.t.Fatalf("not one JSON object per line: %q", line)
	}
	return m
}

// call sends a request and returns the outcomes of its result.
func (h *stdioHost) call(req map[string]any) []map[string]any {
	h.t.Helper()
	b, _ := json.Marshal(req)
	if _, err := h.in.Write(append(b, '\n')); err != nil {
		h.t.Fatal(err)
	}
	res := h.read()
	if res["type"] != "result" || res["call"] != req["call"] {
		h.t.Fatalf("result %v for %v", res, req)
	}
	if seq, ok := req["seq"]; ok && fmt.Sprint(res["seq"]) != fmt.Sprint(seq) {
		h.t.Fatalf("seq %v, want %v", res["seq"], seq)
	}
	var outs []map[string]any
	for _, o := range res["outcomes"].([]any) {
		outs = append(outs, o.(map[string]any))
	}
	return outs
}

func (h *stdioHost) close() int {
	h.in.Close()
	return <-h.done
}

func kinds(outs []map[string]any) string {
	var s []string
	for _, o := range outs {
		k := o["type"].(string)
		if k == "refusal" {
			k += ":" + o["class"].(string)
		}
		s = append(s, k)
	}
	return strings.Join(s, "+")
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// sessionRepo makes a repository with one workflow in a temp dir, isolates
// git and HOME, and makes it the working directory.
func sessionRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not installed")
	}
	base := t.TempDir()
	home := filepath.Join(base, "home")
	os.MkdirAll(home, 0o755)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = Ada\n\temail = ada@example.com\n"), 0o644)
	for k, v := range map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"), "NO_COLOR": "1"} {
		t.Setenv(k, v)
	}
	repo := filepath.Join(base, "repo")
	os.MkdirAll(filepath.Join(repo, "flows"), 0o755)
	gitOut(t, repo, "init", "-q")
	os.WriteFile(filepath.Join(repo, "flows", "good.nika.yaml"), []byte("nika: good\ntasks:\n  hello:\n    infer: { prompt: \"hi\", model: \"mock/echo\", max_tokens: 5 }\n"), 0o644)
	gitOut(t, repo, "add", ".")
	gitOut(t, repo, "commit", "-q", "-m", "first")
	t.Chdir(repo)
	return repo
}

func wf(path, name string) string {
	return "```yaml path=" + path + "\nnika: " + name + "\ntasks:\n  t:\n    infer: { prompt: \"hi\", model: \"mock/echo\", max_tokens: 5 }\n```\n"
}

// TestServeStdioSession is a scripted host driving a whole session over
// the protocol: facts, proposals and their identities, consent, a gate
// and its resume, and a duplicate consent after a reconnect, which comes
// back AlreadyConsumed with nothing applied.
func TestServeStdioSession(t *testing.T) {
	repo := sessionRepo(t)
	resume := filepath.Join(filepath.Dir(repo), "resume.sh")
	os.WriteFile(resume, []byte("#!/bin/sh\necho \"$@\" > ../resumed.txt\n"), 0o755)
	gitOut(t, repo, "config", "nika.resume", "sh ../resume.sh {trace} {task} {answer}")

	h := startServe(t)
	snap := h.hello["snapshot"].(map[string]any)
	if snap["root"] != "repo" || snap["workflows_total"].(float64) != 1 || h.hello["protocol"].(float64) != 2 {
		t.Fatalf("hello %v", h.hello)
	}
	if got := kinds(h.call(map[string]any{"seq": 1, "call": "turn", "text": "/workflows"})); got != "answer" {
		t.Fatal(got)
	}
	if got := kinds(h.call(map[string]any{"seq": 2, "call": "turn", "text": "what is here?"})); got != "refusal:NoIntelligence" {
		t.Fatal(got)
	}
	p := h.call(map[string]any{"seq": 3, "call": "turn", "text": wf("flows/p.nika.yaml", "p")})
	if kinds(p) != "proposal" {
		t.Fatal(kinds(p))
	}
	idP := p[0]["id"].(string)
	q := h.call(map[string]any{"seq": 4, "call": "turn", "text": wf("flows/q.nika.yaml", "q")})
	if kinds(q) != "discarded+proposal" || q[0]["id"] != idP {
		t.Fatal(kinds(q), q)
	}
	idQ := q[1]["id"].(string)
	head := gitOut(t, repo, "rev-parse", "HEAD")
	if got := kinds(h.call(map[string]any{"seq": 5, "call": "consent", "id": idP, "answer": "yes"})); got != "refusal:StaleRevision" {
		t.Fatal(got)
	}
	if got := kinds(h.call(map[string]any{"seq": 6, "call": "consent", "id": idQ, "answer": ""})); got != "refusal:EmptyAnswer" {
		t.Fatal(got)
	}
	if gitOut(t, repo, "rev-parse", "HEAD") != head {
		t.Fatal("a refused consent moved HEAD")
	}
	a := h.call(map[string]any{"seq": 7, "call": "consent", "id": idQ, "answer": "yes"})
	if kinds(a) != "applied" || a[0]["id"] != idQ || a[0]["clean"] != true {
		t.Fatal(a)
	}
	commit := a[0]["commit"].(string)
	if gitOut(t, repo, "rev-parse", "HEAD") != commit {
		t.Fatal("HEAD is not the applied commit")
	}
	if !strings.HasPrefix(gitOut(t, repo, "notes", "--ref=nika", "show", "HEAD"), "nika verdict: clean") {
		t.Fatal("no verdict note")
	}
	// a gate: the run paused (exit 4), the human's line resumes it once
	trace := map[string]any{"trace": "tr-1", "task": "approve", "question": "Deploy?"}
	if got := kinds(h.call(map[string]any{"call": "observe_run", "exit": 4, "trace": trace})); got != "gate_ask" {
		t.Fatal(got)
	}
	gate := map[string]any{"trace": "tr-1", "task": "approve"}
	if got := kinds(h.call(map[string]any{"call": "answer_gate", "gate": gate, "line": ""})); got != "refusal:EmptyAnswer" {
		t.Fatal(got)
	}
	if got := kinds(h.call(map[string]any{"call": "answer_gate", "gate": map[string]any{"trace": "tr-1", "task": "other"}, "line": "go"})); got != "refusal:StaleRevision" {
		t.Fatal(got)
	}
	if got := kinds(h.call(map[string]any{"call": "answer_gate", "gate": gate, "line": "ship it"})); got != "resume_requested+run+answer" {
		t.Fatal(got)
	}
	if b, _ := os.ReadFile(filepath.Join(filepath.Dir(repo), "resumed.txt")); string(b) != "tr-1 approve ship it\n" {
		t.Fatalf("the resume ran with %q", b)
	}
	if got := kinds(h.call(map[string]any{"call": "answer_gate", "gate": gate, "line": "ship it"})); got != "refusal:AlreadyConsumed" {
		t.Fatal(got)
	}
	if got := kinds(h.call(map[string]any{"call": "nonsense"})); got != "refusal:Invalid" {
		t.Fatal(got)
	}
	if code := h.close(); code != 0 {
		t.Fatalf("exit %d", code)
	}

	// the host reconnects and repeats its consent
	h2 := startServe(t)
	if got := kinds(h2.call(map[string]any{"seq": 7, "call": "consent", "id": idQ, "answer": "yes"})); got != "refusal:AlreadyConsumed" {
		t.Fatal(got)
	}
	if got := kinds(h2.call(map[string]any{"call": "consent", "answer": "yes"})); got != "refusal:WrongState" {
		t.Fatal(got)
	}
	h2.close()
	if gitOut(t, repo, "rev-parse", "HEAD") != commit {
		t.Fatal("the duplicate consent moved HEAD")
	}
	if n := gitOut(t, repo, "rev-list", "--count", "HEAD"); n != "2" {
		t.Fatalf("%s commits", n)
	}
	for _, l := range append(h.lines, h2.lines...) {
		if strings.Contains(l, repo) || strings.Contains(l, filepath.Dir(repo)) {
			t.Fatalf("an absolute path in machine output: %s", l)
		}
	}
}

// TestServeStdioIntelligence: /intelligence asks the host, the host sends
// its human's choice (a program), it is kept, and a question goes to the
// program with the bundle on stdin; the guard's corrections come under the
// reply; a reply that says yes and carries a proposal applies nothing.
func TestServeStdioIntelligence(t *testing.T) {
	repo := sessionRepo(t)
	t.Setenv("NIKA_SERVE_TEST_SECRET", "env-secret-value-4242")
	model := filepath.Join(filepath.Dir(repo), "model.sh")
	os.WriteFile(model, []byte("#!/bin/sh\ncat > ../prompt.txt\necho 'yes. Use nika:teleport, then run nika deploy'\necho '```yaml path=flows/x.nika.yaml'\necho 'nika: x'\necho 'tasks: {}'\necho '```'\n"), 0o755)
	head := gitOut(t, repo, "rev-parse", "HEAD")
	h := startServe(t)
	if got := kinds(h.call(map[string]any{"call": "turn", "text": "/intelligence"})); got != "ask_intelligence" {
		t.Fatal(got)
	}
	if got := kinds(h.call(map[string]any{"call": "intelligence", "choice": map[string]any{"kind": "app", "command": []string{"no-such-program-here"}}})); got != "refusal:NoIntelligence" {
		t.Fatal(got)
	}
	if got := kinds(h.call(map[string]any{"call": "intelligence", "choice": map[string]any{"kind": "app", "command": []string{"sh", "../model.sh"}}})); got != "answer" {
		t.Fatal(got)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("HOME"), ".nika", "session-intelligence.json")); err != nil {
		t.Fatal("the choice is not kept")
	}
	out := h.call(map[string]any{"call": "turn", "text": "fix flows/good.nika.yaml, my token is ghp_abcdefghijklmnopqrstuvwxyz0123"})
	if kinds(out) != "answer+proposal" {
		t.Fatal(kinds(out), out)
	}
	var refs []string
	for _, c := range out[0]["corrections"].([]any) {
		refs = append(refs, c.(map[string]any)["ref"].(string))
	}
	if strings.Join(refs, ",") != "nika:teleport,nika deploy" {
		t.Fatalf("corrections %v", refs)
	}
	h.close()
	if gitOut(t, repo, "rev-parse", "HEAD") != head {
		t.Fatal("a reply applied")
	}
	prompt, _ := os.ReadFile(filepath.Join(filepath.Dir(repo), "prompt.txt"))
	for _, leak := range []string{"env-secret-value-4242", "ghp_abcdefghij", repo} {
		if strings.Contains(string(prompt), leak) {
			t.Fatalf("the program received %q", leak)
		}
	}
	if !strings.Contains(string(prompt), "## File flows/good.nika.yaml") || !strings.Contains(string(prompt), "[redacted token]") {
		t.Fatalf("prompt:\n%s", prompt)
	}
	// the next session uses the kept choice without asking
	h2 := startServe(t)
	if in := h2.hello["intelligence"].(map[string]any); in["kind"] != "app" || in["kept"] != true {
		t.Fatal(in)
	}
	h2.close()
}

// TestServeStdioLocalEngine: the "local engine" choice talks OpenAI chat
// completions to a server on this machine (here a loopback httptest).
func TestServeStdioLocalEngine(t *testing.T) {
	sessionRepo(t)
	var got struct {
		Model    string `json:"model"`
		Messages []struct{ Role, Content string }
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			w.WriteHeader(404)
			return
		}
		json.NewDecoder(r.Body).Decode(&got)
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"flows/good.nika.yaml greets; see NIKA-NOPE-001"}}]}`))
	}))
	defer srv.Close()
	h := startServe(t)
	defer h.close()
	if got := kinds(h.call(map[string]any{"call": "intelligence", "choice": map[string]any{"kind": "local", "engine": "ollama", "url": srv.URL, "model": "llama3.2"}})); got != "answer" {
		t.Fatal(got)
	}
	out := h.call(map[string]any{"call": "turn", "text": "what does flows/good.nika.yaml do?"})
	if kinds(out) != "answer" || !strings.Contains(out[0]["text"].(string), "greets") || len(out[0]["corrections"].([]any)) != 1 {
		t.Fatal(out)
	}
	if got.Model != "llama3.2" || len(got.Messages) != 2 || !strings.Contains(got.Messages[1].Content, "## File flows/good.nika.yaml") {
		t.Fatalf("%+v", got)
	}
	if got := kinds(h.call(map[string]any{"call": "intelligence", "choice": map[string]any{"kind": "local", "url": "http://192.0.2.1:11434", "model": "m"}})); got != "refusal:NoIntelligence" {
		t.Fatal(got)
	}
}
