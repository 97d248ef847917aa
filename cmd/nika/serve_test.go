package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	if snap["root"] != "repo" || snap["workflows_total"].(float64) != 1 || h.hello["protocol"].(float64) != 1 {
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
	if got := kinds(h.call(map[string]any{"call": "nonsense"})); got != "refusal:NotAllowed" {
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
