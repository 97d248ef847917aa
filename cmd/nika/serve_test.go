package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/nika-dev/nika/protocol"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/reasoner"
)

// stdioHost is a scripted host of `nika serve --stdio`: it drives the
// built binary (the test binary that testscript.RunMain installs on PATH
// as nika) over its standard input and output.
type stdioHost struct {
	t      *testing.T
	in     io.WriteCloser
	out    *bufio.Reader
	cmd    *exec.Cmd
	stderr bytes.Buffer
	lines  []string
	hello  map[string]any
}

func startServe(t *testing.T) *stdioHost {
	t.Helper()
	wd, _ := os.Getwd()
	h := &stdioHost{t: t}
	h.cmd = exec.Command("nika", "serve", "--stdio")
	h.cmd.Dir = wd
	h.cmd.Stderr = &h.stderr
	in, err := h.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("the built binary does not start: %v", err)
	}
	t.Cleanup(func() { h.cmd.Process.Kill(); h.cmd.Wait() })
	h.in, h.out = in, bufio.NewReaderSize(out, 1<<20)
	h.hello = h.read()
	if h.hello["type"] != "hello" {
		t.Fatalf("first line %v, stderr %s", h.hello, h.stderr.String())
	}
	return h
}

// send writes raw bytes (a line, or anything a host might send).
func (h *stdioHost) send(raw string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, raw); err != nil {
		h.t.Fatal(err)
	}
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
	err := h.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return 0
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

// ghToken is shaped as a GitHub token (built here, so that no file holds
// one whole).
var ghToken = "ghp_" + "R8mKq2ZtVx7LpN4sWc9Yb3HdJf6Ga1Ue5Qo0"

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
	out := h.call(map[string]any{"call": "turn", "text": "fix flows/good.nika.yaml, my token is " + ghToken})
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
	for _, leak := range []string{"env-secret-value-4242", ghToken, repo} {
		if strings.Contains(string(prompt), leak) {
			t.Fatalf("the program received %q", leak)
		}
	}
	if !strings.Contains(string(prompt), "## File flows/good.nika.yaml") || !strings.Contains(string(prompt), "[redacted github-pat]") {
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

// recorded is one request the fake chat-completions server received.
type recorded struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// fakeChat is a chat-completions server on loopback that records every
// request it gets and answers reply.
func fakeChat(t *testing.T, reply string) (*httptest.Server, *[]recorded) {
	var mu sync.Mutex
	var got []recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, recorded{r.Method, r.URL.Path, r.Header.Clone(), b})
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": reply}}}})
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServeBoundary: with secrets planted in the environment, in the file
// the human names, in a workflow and a .env file the human did not name,
// a question over the protocol sends the fake server exactly one request,
// whose body is byte for byte the bundle (the named file redacted, kind
// and line reported), with the key the human named and nothing else.
func TestServeBoundary(t *testing.T) {
	repo := sessionRepo(t)
	glpat := "glpat-" + "Zk3Qw9Lm2Xv7Np4Rs8Tb"
	dbPass := "hunter" + "22hunter" // low in entropy: nika's own rule finds it
	envSecret := "env-" + "planted-9f8e7d6c5b4a"
	unnamed := "UNNAMED-" + "7Hs2Kd9Lq4"
	dotenv := "sk_" + "live_" + "51HxQmR2kLpV8nTzW4yB6cJd"
	apiKey := "test-key-" + "3c2b1a"
	t.Setenv("NIKA_TEST_PLANTED", envSecret)
	t.Setenv("NIKA_TEST_API_KEY", apiKey)
	named := "nika: a\n# deploy token " + glpat + "\ntasks:\n  t:\n    infer: { prompt: \"hi\", model: \"mock/echo\", max_tokens: 5 }\n# db_password: " + dbPass + "\n"
	writeFile(t, filepath.Join(repo, "flows", "a.nika.yaml"), named)
	writeFile(t, filepath.Join(repo, "flows", "other.nika.yaml"), "nika: other\n# "+unnamed+"\ntasks:\n  t:\n    infer: { prompt: \"hi\", model: \"mock/echo\", max_tokens: 5 }\n")
	writeFile(t, filepath.Join(repo, ".env"), "STRIPE="+dotenv+"\n")
	gitOut(t, repo, "add", ".")
	gitOut(t, repo, "commit", "-q", "-m", "flows")
	head := gitOut(t, repo, "rev-parse", "HEAD")

	srv, got := fakeChat(t, "flows/a.nika.yaml reads one secret.")
	h := startServe(t)
	if r := h.call(map[string]any{"call": "intelligence", "choice": map[string]any{"kind": "api", "url": srv.URL, "model": "m-1", "key_env": "NIKA_TEST_API_KEY"}}); kinds(r) != "answer" ||
		!strings.Contains(r[0]["text"].(string), reasonerOrigin(srv.URL)) {
		t.Fatalf("%v", r)
	}
	question := "why does flows/a.nika.yaml fail? (NIKA_TEST_PLANTED is set)"
	out := h.call(map[string]any{"call": "turn", "text": question})
	if kinds(out) != "answer" {
		t.Fatalf("%v", out)
	}
	h.close()

	if len(*got) != 1 {
		t.Fatalf("the server got %d requests, want exactly 1", len(*got))
	}
	req := (*got)[0]
	if req.Method != "POST" || req.Path != "/v1/chat/completions" {
		t.Fatalf("%s %s", req.Method, req.Path)
	}
	var hdrs []string
	for k := range req.Header {
		hdrs = append(hdrs, k)
	}
	sort.Strings(hdrs)
	if strings.Join(hdrs, " ") != "Accept-Encoding Authorization Content-Length Content-Type User-Agent" || req.Header.Get("Authorization") != "Bearer "+apiKey {
		t.Fatalf("headers %v", req.Header)
	}
	redactedFile := "nika: a\n# deploy token [redacted gitlab-pat]\ntasks:\n  t:\n    infer: { prompt: \"hi\", model: \"mock/echo\", max_tokens: 5 }\n# db_password: [redacted secret-field]\n"
	user := "## The project\n" +
		"project repo · branch main · " + head[:12] + "\n" +
		"project file: none (nika.yaml)\n" +
		"workflows: 3\n" +
		"  flows/a.nika.yaml  clean\n" +
		"  flows/good.nika.yaml  clean\n" +
		"  flows/other.nika.yaml  clean\n" +
		"pending proposals: 0\n" +
		"last applied: 0\n" +
		"\n## File flows/a.nika.yaml\n```yaml\n" + redactedFile + "```\n" +
		"\n## Question\n" + question + "\n"
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	want, _ := json.Marshal(struct {
		Model    string `json:"model"`
		Messages []msg  `json:"messages"`
	}{"m-1", []msg{{"system", session.Identity + "\n\n" + session.LanguageDigest()}, {"user", user}}})
	if string(req.Body) != string(want) {
		t.Fatalf("the body that left:\n%s\nwant byte for byte:\n%s", req.Body, want)
	}
	all := string(req.Body) + fmt.Sprint(req.Header)
	for _, leak := range []string{glpat, dbPass, envSecret, unnamed, dotenv, repo, filepath.Dir(repo)} {
		if strings.Contains(all, leak) {
			t.Errorf("%q left the machine", leak)
		}
	}
	var reds []string
	for _, r := range out[0]["redacted"].([]any) {
		m := r.(map[string]any)
		reds = append(reds, fmt.Sprintf("%s:%v:%s", m["where"], m["line"], m["kind"]))
	}
	if strings.Join(reds, " ") != "file flows/a.nika.yaml:2:gitlab-pat file flows/a.nika.yaml:6:secret-field" {
		t.Fatalf("redacted %v", reds)
	}
	for _, l := range h.lines {
		if strings.Contains(l, glpat) || strings.Contains(l, dbPass) {
			t.Fatalf("the protocol output holds a secret: %s", l)
		}
	}
}

func reasonerOrigin(u string) string { return reasoner.Origin(u) }

// TestServeNoRedirect: an endpoint that redirects to another origin gets
// the one request; the other origin gets none; the refusal names it.
func TestServeNoRedirect(t *testing.T) {
	sessionRepo(t)
	t.Setenv("NIKA_TEST_API_KEY", "k-1")
	other, otherGot := fakeChat(t, "stolen")
	var first int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first++
		http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	h := startServe(t)
	defer h.close()
	if r := h.call(map[string]any{"call": "intelligence", "choice": map[string]any{"kind": "api", "url": srv.URL, "model": "m", "key_env": "NIKA_TEST_API_KEY"}}); kinds(r) != "answer" {
		t.Fatal(r)
	}
	out := h.call(map[string]any{"call": "turn", "text": "what is in flows/good.nika.yaml?"})
	if kinds(out) != "refusal:IntelligenceRefused" || !strings.Contains(out[0]["text"].(string), reasonerOrigin(other.URL)) || out[0]["exit"].(float64) != 31 {
		t.Fatalf("%v", out)
	}
	if first != 1 || len(*otherGot) != 0 {
		t.Fatalf("the endpoint got %d, the other origin %d requests", first, len(*otherGot))
	}
}

// TestServeStrict: the protocol is as strict as its document. Unknown and
// differently-cased fields, a second object or garbage on the line, an
// empty line, a missing field and a field of the wrong type are refused
// as Invalid; a line over the limit is refused as TooLarge; none of them
// ends the session, which answers the next request.
func TestServeStrict(t *testing.T) {
	sessionRepo(t)
	h := startServe(t)
	if l := h.hello["limits"].(map[string]any); l["line_bytes"].(float64) != protocol.MaxRequest {
		t.Fatalf("limits %v", l)
	}
	for _, c := range []struct{ line, class, says string }{
		{`{"call":"snapshot","extra":1}`, "Invalid", `has no field "extra"`},
		{`{"Call":"snapshot"}`, "Invalid", "names no call"},
		{`{"call":"turn","Text":"/help"}`, "Invalid", `has no field "Text"`},
		{`{"call":"SNAPSHOT"}`, "Invalid", `unknown call "SNAPSHOT"`},
		{`{"call":"snapshot"} {"call":"snapshot"}`, "Invalid", "one object per line"},
		{`{"call":"snapshot"}garbage`, "Invalid", "one object per line"},
		{`{"call":"snapshot","call":"turn"}`, "Invalid", "appears twice"},
		{``, "Invalid", "an empty line is not a request"},
		{`   `, "Invalid", "an empty line is not a request"},
		{`[1,2]`, "Invalid", "not one JSON object"},
		{`{"call":"consent","id":"abc"}`, "Invalid", `needs the field "answer"`},
		{`{"call":"observe_run","exit":"4"}`, "Invalid", `"exit" must be a JSON number`},
		{`{"call":"answer_gate","gate":{"trace":"t","Task":"x"},"line":"ok"}`, "Invalid", `"gate" has no field "Task"`},
		{`{"call":"intelligence","choice":{"kind":"none","key":"x"}}`, "Invalid", `"choice" has no field "key"`},
	} {
		h.send(c.line + "\n")
		res := h.read()
		outs := res["outcomes"].([]any)
		o := outs[0].(map[string]any)
		if res["type"] != "result" || len(outs) != 1 || o["type"] != "refusal" || o["class"] != c.class || !strings.Contains(o["text"].(string), c.says) || o["exit"].(float64) != 4 {
			t.Errorf("%q: %v", c.line, res)
		}
	}
	// seq is echoed even on a refused request
	h.send(`{"seq":"s-1","call":"nope"}` + "\n")
	if res := h.read(); res["seq"] != "s-1" {
		t.Errorf("%v", res)
	}
	// a line over the limit: refused, skipped, the session goes on
	big := `{"call":"turn","text":"` + strings.Repeat("x", protocol.MaxRequest) + `"}` + "\n"
	go h.send(big)
	res := h.read()
	o := res["outcomes"].([]any)[0].(map[string]any)
	if o["class"] != "TooLarge" || o["exit"].(float64) != 14 || !strings.Contains(o["text"].(string), fmt.Sprint(protocol.MaxRequest)) {
		t.Fatalf("%v", o)
	}
	if got := kinds(h.call(map[string]any{"seq": 9, "call": "turn", "text": "/help"})); got != "answer" {
		t.Fatalf("after the long line: %s", got)
	}
	if code := h.close(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestServeClasses: the protocol's refusal classes are the CLI's, from
// the one table, with its exit codes: a host tells Dirty, Invalid and
// NotFound apart.
func TestServeClasses(t *testing.T) {
	repo := sessionRepo(t)
	writeFile(t, filepath.Join(repo, "flows", "good.nika.yaml"), "nika: good\n# edited, not committed\ntasks:\n  hello:\n    infer: { prompt: \"hi\", model: \"mock/echo\", max_tokens: 5 }\n")
	h := startServe(t)
	defer h.close()
	for _, c := range []struct {
		req   map[string]any
		class string
		exit  float64
	}{
		{map[string]any{"call": "turn", "text": wf("flows/good.nika.yaml", "good")}, "Dirty", 6},
		{map[string]any{"call": "turn", "text": wf("flows/x.nika.yaml", "x") + wf("flows/x.nika.yaml", "y")}, "Invalid", 4},
		{map[string]any{"call": "turn", "text": "```yaml path=../x.nika.yaml\nnika: x\n```\n"}, "NotAllowed", 5},
		{map[string]any{"call": "turn", "text": "```md path=docs/notes.md\nhi\n```\n"}, "NotAllowed", 5},
		{map[string]any{"call": "turn", "text": "/explain NIKA-NOPE-999"}, "NotFound", 10},
		{map[string]any{"call": "turn", "text": "what is here?"}, "NoIntelligence", 30},
		{map[string]any{"call": "consent", "answer": "yes"}, "WrongState", 32},
		{map[string]any{"call": "consent", "id": "0123456789ab", "answer": ""}, "WrongState", 32},
	} {
		out := h.call(c.req)
		if len(out) != 1 || out[0]["class"] != c.class || out[0]["exit"].(float64) != c.exit {
			t.Errorf("%v: %v, want %s (%v)", c.req["text"], out, c.class, c.exit)
		}
		if txt, _ := out[0]["text"].(string); strings.Contains(txt, "--allow") || strings.Contains(txt, "nika propose") {
			t.Errorf("a session refusal names a CLI word: %s", txt)
		}
	}
	out := h.call(map[string]any{"call": "turn", "text": "```md path=docs/notes.md\nhi\n```\n"})
	if !strings.Contains(out[0]["text"].(string), "· /allow docs/notes.md allows it for the turns that follow") || out[0]["fix"] != "allow-file" {
		t.Errorf("the fix is not the session's own: %v", out)
	}
}

// TestServeCheckOfNothingIsNotFound: /check of a workflow that does not
// exist (in an existing directory or not) is NotFound over the protocol,
// as nika check of the same path is at the CLI: every door gives one class.
func TestServeCheckOfNothingIsNotFound(t *testing.T) {
	repo := sessionRepo(t)
	h := startServe(t)
	defer h.close()
	for _, p := range []string{"flows/missing.nika.yaml", "nope/missing.nika.yaml"} {
		out := h.call(map[string]any{"call": "turn", "text": "/check " + p})
		if len(out) != 1 || out[0]["class"] != "NotFound" || out[0]["exit"].(float64) != 10 {
			t.Errorf("/check %s: %v, want NotFound (10)", p, out)
		}
		cmd := exec.Command("nika", "check", "--json", p)
		cmd.Dir = repo
		b, err := cmd.Output()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 10 || !strings.Contains(string(b), `"class": "NotFound"`) {
			t.Errorf("nika check %s: %v %s, want NotFound (10)", p, err, b)
		}
	}
}

// TestServeRefusesUnderAnAgent: nika serve takes consents for a human, so
// an agent host's command environment is refused before the hello, with
// NoConsent (12), as docs/protocol.md says: on stderr, or as the refusal
// object on stdout with --json.
func TestServeRefusesUnderAnAgent(t *testing.T) {
	repo := sessionRepo(t)
	for _, withJSON := range []bool{false, true} {
		args := []string{"serve", "--stdio"}
		if withJSON {
			args = append(args, "--json")
		}
		cmd := exec.Command("nika", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "CLAUDECODE=1")
		cmd.Stdin = strings.NewReader(`{"call":"snapshot"}` + "\n")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 12 {
			t.Errorf("--json %v: %v, want exit 12", withJSON, err)
		}
		switch {
		case strings.Contains(stdout.String(), "hello"):
			t.Errorf("--json %v: a hello under an agent: %s", withJSON, stdout.String())
		case withJSON && !strings.Contains(stdout.String(), `"class": "NoConsent"`):
			t.Errorf("--json: stdout %q", stdout.String())
		case !withJSON && !strings.Contains(stderr.String(), "refused (NoConsent)"):
			t.Errorf("stderr %q", stderr.String())
		}
	}
}

// TestServeAllow: /allow in the session lets a supporting file be
// proposed in the turns that follow; the preview says so.
func TestServeAllow(t *testing.T) {
	repo := sessionRepo(t)
	h := startServe(t)
	defer h.close()
	if got := kinds(h.call(map[string]any{"call": "turn", "text": "/allow docs/*.md"})); got != "answer" {
		t.Fatal(got)
	}
	out := h.call(map[string]any{"call": "turn", "text": "```md path=docs/notes.md\nhi\n```\n"})
	if kinds(out) != "proposal" || !strings.Contains(out[0]["preview"].(string), "allowed in this session (/allow): docs/*.md") || fmt.Sprint(out[0]["allowed"]) != "[docs/*.md]" {
		t.Fatalf("%v", out)
	}
	if got := kinds(h.call(map[string]any{"call": "consent", "id": out[0]["id"], "answer": "yes"})); got != "applied" {
		t.Fatal(got)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "docs", "notes.md")); string(b) != "hi\n" {
		t.Fatalf("%q", b)
	}
	if st := gitOut(t, repo, "status", "--porcelain"); st != "" {
		t.Fatalf("git status: %s", st)
	}
}

// TestServeGatesAcrossReconnects: a gate answered once is never re-armed,
// in the same session or after a reconnect; a gate asked before a
// reconnect is answered after it, once; the resume runs once per gate.
func TestServeGatesAcrossReconnects(t *testing.T) {
	repo := sessionRepo(t)
	log := filepath.Join(filepath.Dir(repo), "resumed.txt")
	writeFile(t, filepath.Join(filepath.Dir(repo), "resume.sh"), "#!/bin/sh\necho \"$@\" >> ../resumed.txt\n")
	gitOut(t, repo, "config", "nika.resume", "sh ../resume.sh {trace} {task} {answer}")
	trace := map[string]any{"trace": "tr-1", "task": "approve", "question": "Deploy?"}
	gate := map[string]any{"trace": "tr-1", "task": "approve"}

	h := startServe(t)
	if got := kinds(h.call(map[string]any{"call": "observe_run", "exit": 4, "trace": trace})); got != "gate_ask" {
		t.Fatal(got)
	}
	if got := kinds(h.call(map[string]any{"call": "answer_gate", "gate": gate, "line": "ship it"})); got != "resume_requested+run+answer" {
		t.Fatal(got)
	}
	if got := kinds(h.call(map[string]any{"call": "observe_run", "exit": 4, "trace": trace})); got != "refusal:AlreadyConsumed" {
		t.Fatalf("re-armed in the same session: %s", got)
	}
	if got := kinds(h.call(map[string]any{"call": "observe_run", "exit": 4, "trace": map[string]any{"trace": "tr-2", "task": "approve", "question": "Again?"}})); got != "gate_ask" {
		t.Fatal(got)
	}
	h.close()

	h2 := startServe(t) // the host reconnects
	if g := h2.hello["gates"].([]any); len(g) != 1 || g[0].(map[string]any)["question"] != "Again?" {
		t.Fatalf("hello gates %v", h2.hello["gates"])
	}
	if got := kinds(h2.call(map[string]any{"call": "observe_run", "exit": 4, "trace": trace})); got != "refusal:AlreadyConsumed" {
		t.Fatalf("re-armed after a reconnect: %s", got)
	}
	if got := kinds(h2.call(map[string]any{"call": "answer_gate", "gate": gate, "line": "ship it"})); got != "refusal:AlreadyConsumed" {
		t.Fatalf("answered again after a reconnect: %s", got)
	}
	if got := kinds(h2.call(map[string]any{"call": "answer_gate", "gate": map[string]any{"trace": "tr-2", "task": "approve"}, "line": "go"})); got != "resume_requested+run+answer" {
		t.Fatalf("the gate asked before the reconnect: %s", got)
	}
	if got := kinds(h2.call(map[string]any{"call": "gates"})); got != "gates" {
		t.Fatal(got)
	}
	h2.close()
	b, _ := os.ReadFile(log)
	if string(b) != "tr-1 approve ship it\ntr-2 approve go\n" {
		t.Fatalf("the resumes that ran:\n%s", b)
	}
}

// TestServeConsentAfterReconnect: hello lists a pending proposal, and the
// new process consents to it by its id: loaded from the registry, checked,
// applied once, through the same accept path.
func TestServeConsentAfterReconnect(t *testing.T) {
	repo := sessionRepo(t)
	h := startServe(t)
	p := h.call(map[string]any{"call": "turn", "text": wf("flows/p.nika.yaml", "p")})
	id := p[0]["id"].(string)
	h.close()

	h2 := startServe(t)
	pend := h2.hello["snapshot"].(map[string]any)["pending"].([]any)
	if len(pend) != 1 || pend[0].(map[string]any)["id"] != id {
		t.Fatalf("hello pending %v", pend)
	}
	a := h2.call(map[string]any{"call": "consent", "id": id[:12], "answer": "yes"})
	if kinds(a) != "applied" || a[0]["id"] != id {
		t.Fatalf("%v", a)
	}
	h2.close()
	if gitOut(t, repo, "rev-parse", "HEAD") != a[0]["commit"] {
		t.Fatal("HEAD is not the applied commit")
	}
	if out := gitOut(t, repo, "fsck", "--strict"); strings.Contains(out, "error") {
		t.Fatal(out)
	}
	h3 := startServe(t)
	if got := kinds(h3.call(map[string]any{"call": "consent", "id": id, "answer": "yes"})); got != "refusal:AlreadyConsumed" {
		t.Fatal(got)
	}
	h3.close()
	// a stale one is refused before anything is written
	h4 := startServe(t)
	q := h4.call(map[string]any{"call": "turn", "text": wf("flows/q.nika.yaml", "q")})
	h4.close()
	writeFile(t, filepath.Join(repo, "flows", "r.nika.yaml"), "nika: r\ntasks:\n  t:\n    infer: { prompt: \"hi\", model: \"mock/echo\", max_tokens: 5 }\n")
	gitOut(t, repo, "add", ".")
	gitOut(t, repo, "commit", "-q", "-m", "moved")
	head := gitOut(t, repo, "rev-parse", "HEAD")
	h5 := startServe(t)
	if got := kinds(h5.call(map[string]any{"call": "consent", "id": q[0]["id"], "answer": "yes"})); got != "refusal:StaleRevision" {
		t.Fatal(got)
	}
	h5.close()
	if gitOut(t, repo, "rev-parse", "HEAD") != head {
		t.Fatal("a stale consent moved HEAD")
	}
}

// TestServeFacts: builtins, providers and the last run answer with no
// intelligence, over the calls and over /commands alike.
func TestServeFacts(t *testing.T) {
	repo := sessionRepo(t)
	j := "{\"chain\":\"x\",\"kind\":\"workflow_started\",\"fields\":[{\"key\":\"workflow\",\"value\":\"good\"}]}\n" +
		"{\"chain\":\"y\",\"kind\":\"task_completed\",\"fields\":[{\"key\":\"task\",\"value\":\"hello\"},{\"key\":\"output\",\"value\":\"hi there\"}]}\n"
	writeFile(t, filepath.Join(repo, ".nika", "traces", "20260101T000000Z-aaaa.ndjson"), "{\"kind\":\"workflow_started\",\"fields\":[{\"key\":\"workflow\",\"value\":\"old\"}]}\n")
	writeFile(t, filepath.Join(repo, ".nika", "traces", "20260102T000000Z-bbbb.ndjson"), j)
	h := startServe(t)
	defer h.close()
	b := h.call(map[string]any{"call": "builtins"})
	if kinds(b) != "builtins" || !strings.Contains(fmt.Sprint(b[0]["builtins"]), "nika:read") {
		t.Fatal(b)
	}
	if got := kinds(h.call(map[string]any{"call": "turn", "text": "/builtins"})); got != "builtins" {
		t.Fatal(got)
	}
	p := h.call(map[string]any{"call": "providers"})
	if kinds(p) != "providers" || !strings.Contains(fmt.Sprint(p[0]["providers"]), "openai") {
		t.Fatal(p)
	}
	l := h.call(map[string]any{"call": "last_run"})
	run := l[0]["run"].(map[string]any)
	if kinds(l) != "last_run" || run["workflow"] != "good" || run["status"] != "incomplete" || run["trace"] != ".nika/traces/20260102T000000Z-bbbb.ndjson" ||
		fmt.Sprint(run["tasks"]) != "[map[output:hi there status:completed task:hello]]" {
		t.Fatalf("%v", l)
	}
	if got := kinds(h.call(map[string]any{"call": "turn", "text": "/last-run"})); got != "last_run" {
		t.Fatal(got)
	}
}
