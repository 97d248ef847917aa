package project

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/session"
)

// openEngine opens the repository around dir, as the door does.
func openEngine(dir string) (*Engine, error) {
	r, err := gitstage.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Engine{Repo: r, MaxApplied: 5}, nil
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not installed")
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = Ada\n\temail = ada@example.com\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	dir := filepath.Join(t.TempDir(), "proj")
	os.MkdirAll(filepath.Join(dir, "flows"), 0o755)
	git(t, dir, "init", "-q")
	os.WriteFile(filepath.Join(dir, "flows", "good.nika.yaml"), []byte("nika: good\ntasks:\n  hello:\n    infer: { prompt: \"hi\", model: \"mock/echo\", max_tokens: 5 }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "flows", "bad.nika.yaml"), []byte("nika: bad\nschedule: daily\ntasks:\n  a:\n    invoke: { tool: \"nika:teleport\" }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("password: hunter22hunter\n"), 0o644)
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "first")
	os.WriteFile(filepath.Join(filepath.Dir(dir), "outside.nika.yaml"), []byte("nika: outside\n"), 0o644)
	return dir
}

// tree hashes every file and symlink beneath dir, .git included, with its
// mode and size: the repository, byte for byte.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		h := ""
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			s := sha256.Sum256(b)
			h = hex.EncodeToString(s[:])
		}
		lines = append(lines, rel+" "+info.Mode().String()+" "+h+" "+info.ModTime().String())
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

type echo struct{ got []session.Bundle }

func (e *echo) Where() string { return "test" }
func (e *echo) Reason(_ context.Context, b session.Bundle) (string, error) {
	e.got = append(e.got, b)
	return "flows/bad.nika.yaml uses nika:teleport and NIKA-FAKE-001", nil
}

// TestTurnWritesNothing: opening a session, questions and facts leave the
// repository byte-identical (the working tree and .git).
func TestTurnWritesNothing(t *testing.T) {
	dir := repo(t)
	before := tree(t, dir)
	eng, err := openEngine(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &echo{}
	m, err := session.New(eng, r, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, turn := range []string{"what is wrong with flows/bad.nika.yaml and notes.txt?", "/workflows", "/check flows/bad.nika.yaml", "/pending", "/log", "/explain NIKA-PARSE-005", "/help", "and ../outside.nika.yaml?"} {
		for _, o := range m.Turn(turn) {
			if rf, ok := o.(session.Refusal); ok {
				t.Errorf("%s: %v", turn, rf)
			}
		}
	}
	if after := tree(t, dir); after != before {
		t.Fatalf("a turn wrote to the repository:\n%s\n----\n%s", before, after)
	}
	b := r.got[0]
	if len(b.Files) != 1 || b.Files[0].Path != "flows/bad.nika.yaml" {
		t.Fatalf("files sent %+v", b.Files)
	}
	if strings.Contains(b.Prompt(), "hunter22") || strings.Contains(b.Prompt(), dir) {
		t.Fatal("the bundle holds a file that was not named, or the root's absolute path")
	}
	if !strings.Contains(b.Prompt(), "NIKA-BUILTIN-001") {
		t.Fatal("the diagnostics on the named file are missing")
	}
}

func TestSnapshotAndNamedFiles(t *testing.T) {
	dir := repo(t)
	eng, err := openEngine(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := eng.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if s.Root != "proj" || s.Branch != "main" || s.WorkflowsTotal != 2 || s.Truncated || len(s.Workflows) != 2 {
		t.Fatalf("%+v", s)
	}
	if s.Workflows[0].Path != "flows/bad.nika.yaml" || s.Workflows[0].Clean || !s.Workflows[1].Clean {
		t.Fatalf("%+v", s.Workflows)
	}
	if strings.Contains(s.Summary(), dir) {
		t.Fatal("the summary holds the absolute root")
	}
	for _, p := range []string{"notes.txt", "../outside.nika.yaml", "/etc/passwd", ".git/config", "flows/good.nika"} {
		if _, err := eng.ReadNamed(p); session.ClassOf(err) != session.NotAllowed {
			t.Errorf("%s: %v", p, err)
		}
	}
	// a workflow that is not there is NotFound, as nika check says
	for _, p := range []string{"flows/none.nika.yaml", "none/none.nika.yaml"} {
		if _, err := eng.ReadNamed(p); session.ClassOf(err) != session.NotFound {
			t.Errorf("%s: %v", p, err)
		}
	}
	os.Symlink(filepath.Join(filepath.Dir(dir), "outside.nika.yaml"), filepath.Join(dir, "flows", "link.nika.yaml"))
	if _, err := eng.ReadNamed("flows/link.nika.yaml"); err == nil {
		t.Error("a symlink was followed")
	}
	if b, err := eng.ReadNamed("./flows/good.nika.yaml"); err != nil || !strings.HasPrefix(string(b), "nika: good") {
		t.Error(err)
	}
}

func TestSnapshotTruncates(t *testing.T) {
	dir := repo(t)
	for i := 0; i < session.MaxWorkflows+3; i++ {
		os.WriteFile(filepath.Join(dir, "flows", "w"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26))+".nika.yaml"), []byte("nika: w\ntasks: {}\n"), 0o644)
	}
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "many")
	eng, _ := openEngine(dir)
	s, err := eng.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !s.Truncated || len(s.Workflows) != session.MaxWorkflows || s.WorkflowsTotal != session.MaxWorkflows+5 {
		t.Fatalf("truncated %v listed %d total %d", s.Truncated, len(s.Workflows), s.WorkflowsTotal)
	}
	if !strings.Contains(s.Summary(), "… 5 more not listed") {
		t.Fatal(s.Summary())
	}
}

// TestLastRunReadsTheLatestTrace: the journal whose name sorts last is
// read; no traces is no run; a symlinked traces directory is refused,
// never followed.
func TestLastRunReadsTheLatestTrace(t *testing.T) {
	dir := repo(t)
	e, err := openEngine(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := e.LastRun(); r != nil || err != nil {
		t.Fatalf("no traces: %+v %v", r, err)
	}
	traces := filepath.Join(dir, ".nika", "traces")
	os.MkdirAll(traces, 0o755)
	os.WriteFile(filepath.Join(traces, "20260101T000000Z-a.ndjson"), []byte(`{"kind":"workflow_started","fields":[{"key":"workflow","value":"old"}]}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(traces, "20260301T000000Z-c.ndjson"), []byte(`{"kind":"workflow_started","fields":[{"key":"workflow","value":"new"}]}`+"\n"+`{"kind":"workflow_failed","fields":[]}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(traces, "notes.txt"), []byte("zzz"), 0o644)
	r, err := e.LastRun()
	if err != nil || r == nil || r.Workflow != "new" || r.Status != "failed" || r.Trace != ".nika/traces/20260301T000000Z-c.ndjson" {
		t.Fatalf("%+v %v", r, err)
	}
	os.RemoveAll(filepath.Join(dir, ".nika"))
	elsewhere := t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "20990101T000000Z-x.ndjson"), []byte(`{"kind":"workflow_completed"}`+"\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, ".nika"), 0o755)
	os.Symlink(elsewhere, traces)
	if _, err := e.LastRun(); session.ClassOf(err) != session.NotAllowed || strings.Contains(err.Error(), elsewhere) {
		t.Fatalf("through a symlink: %v", err)
	}
}
