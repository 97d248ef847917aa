package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nika-dev/nika/checker"
)

func sample() Verdict {
	return Verdict{
		Reports: []checker.Report{
			{Path: "a.nika.yaml", Kind: "workflow", Findings: []checker.Finding{
				{Code: "NIKA-YAML-004", Severity: checker.SeverityError, Message: "duplicate key prompt", Line: 4, Col: 26},
				{Code: "NIKA-SEC-002", Severity: checker.SeverityWarning, Message: "a warning\nspanning lines", Line: 1, Col: 1},
			}},
			{Path: "flows/b.nika.yaml", Kind: "workflow"},
		},
		Hooks: []Result{
			{Name: "10-lint", Exit: 0, Output: "all good\n\x1b[31mred\x1b[0m\n", Duration: 1234 * time.Millisecond},
			{Name: "20-test", Exit: 1, Output: "FAIL x\n", Duration: 5 * time.Millisecond},
			{Name: "30-slow", Exit: -1, Signal: 9, TimedOut: true, Duration: 30 * time.Second},
			{Name: "40-notes", Skipped: "not executable"},
			{Name: "50-odd", Exit: -1, Error: "could not start: exec format error"},
			{Name: "60-sig", Exit: -1, Signal: 15},
		},
		Problems: []string{"link/c.nika.yaml was not checked: its path passes through a symlink"},
	}
}

func TestVerdictTextIsACompactNote(t *testing.T) {
	want := `nika verdict: 1 error, 1 warning, 1 file not checked, 4 hooks failed
a.nika.yaml:4:26 NIKA-YAML-004 duplicate key prompt
a.nika.yaml:1:1 NIKA-SEC-002 warning: a warning\nspanning lines
not checked: link/c.nika.yaml was not checked: its path passes through a symlink
hook 10-lint: exit 0
    all good
    \x1b[31mred\x1b[0m
hook 20-test: exit 1
    FAIL x
hook 30-slow: timed out
hook 40-notes: skipped (not executable)
hook 50-odd: could not start: exec format error
hook 60-sig: killed by signal 15
`
	if got := sample().Text(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestVerdictTextLeavesOutDurations(t *testing.T) {
	a, b := sample(), sample()
	for i := range b.Hooks {
		b.Hooks[i].Duration = time.Duration(i+1) * 7777 * time.Millisecond
	}
	if a.Text() != b.Text() {
		t.Fatalf("durations changed the note:\n%s\n%s", a.Text(), b.Text())
	}
}

func TestVerdictClean(t *testing.T) {
	warn := checker.Report{Path: "w.nika.yaml", Findings: []checker.Finding{{Code: "W", Severity: checker.SeverityWarning, Line: 1, Col: 1}}}
	bad := checker.Report{Path: "e.nika.yaml", Findings: []checker.Finding{{Code: "E", Severity: checker.SeverityError, Line: 1, Col: 1}}}
	cases := []struct {
		name  string
		v     Verdict
		clean bool
		head  string
	}{
		{"nothing at all", Verdict{}, true, "nika verdict: clean"},
		{"warnings only", Verdict{Reports: []checker.Report{warn}}, true, "nika verdict: clean, 1 warning"},
		{"an error finding", Verdict{Reports: []checker.Report{warn, bad}}, false, "nika verdict: 1 error, 1 warning"},
		{"hooks pass, some skipped", Verdict{Hooks: []Result{{Name: "a"}, {Name: "b", Skipped: "a directory"}}}, true, "nika verdict: clean"},
		{"a hook exits 2", Verdict{Hooks: []Result{{Name: "a"}, {Name: "b", Exit: 2}}}, false, "nika verdict: 1 hook failed"},
		{"a hook timed out", Verdict{Hooks: []Result{{Name: "a", Exit: -1, TimedOut: true}}}, false, "nika verdict: 1 hook failed"},
		{"a hook could not start", Verdict{Hooks: []Result{{Name: "a", Exit: -1, Error: "x"}}}, false, "nika verdict: 1 hook failed"},
		{"a file not checked", Verdict{Problems: []string{"x"}}, false, "nika verdict: 1 file not checked"},
	}
	for _, c := range cases {
		if c.v.Clean() != c.clean {
			t.Errorf("%s: Clean() = %v", c.name, !c.clean)
		}
		if head, _, _ := strings.Cut(c.v.Text(), "\n"); head != c.head {
			t.Errorf("%s: %q, want %q", c.name, head, c.head)
		}
		if (c.v.Advice("abc123") == "") != c.clean {
			t.Errorf("%s: advice %q", c.name, c.v.Advice("abc123"))
		}
	}
}

func TestAdviceSaysWhatFailedAndHowToRevert(t *testing.T) {
	got := sample().Advice("abc123")
	want := `the post-apply checks failed: 1 error, 1 warning, 1 file not checked, 4 hooks failed
  a.nika.yaml: 1 error (NIKA-YAML-004)
  not checked: link/c.nika.yaml was not checked: its path passes through a symlink
  hook 20-test: exit 1
  hook 30-slow: timed out
  hook 50-odd: could not start: exec format error
  hook 60-sig: killed by signal 15
the apply stays: it was made with your consent, and a failed check does not undo it
to undo the apply: git revert abc123
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestVerdictJSON(t *testing.T) {
	b, err := json.Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	if top["type"] != "verdict" || top["clean"] != false || top["summary"] != "1 error, 1 warning, 1 file not checked, 4 hooks failed" {
		t.Fatalf("%s", b)
	}
	hooks := top["hooks"].([]any)
	first := hooks[0].(map[string]any)
	if first["name"] != "10-lint" || first["duration_ms"] != float64(1234) || first["exit"] != float64(0) || first["timed_out"] != false {
		t.Fatalf("%v", first)
	}
	var back Verdict
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Text() != sample().Text() || back.Hooks[0].Duration != 1234*time.Millisecond {
		t.Fatalf("round trip changed the verdict:\n%s", back.Text())
	}
	empty, _ := json.Marshal(Verdict{})
	if string(empty) != `{"type":"verdict","clean":true,"summary":"clean","reports":[],"hooks":[]}` {
		t.Fatalf("%s", empty)
	}
}

func TestJudgeChecksThenRunsTheHooks(t *testing.T) {
	root := repo(t)
	writeFile(t, root, "a.nika.yaml", dupKey)
	writeFile(t, root, "b.nika.yaml", cleanWorkflow)
	if err := os.Symlink("b.nika.yaml", filepath.Join(root, "c.nika.yaml")); err != nil {
		t.Fatal(err)
	}
	hookFile(t, root, "10-ok", sh("echo ok"), 0o755)
	hookFile(t, root, "20-no", sh(`echo "$NIKA_CHANGED_PATHS"`, "exit 1"), 0o755)
	set, err := Snapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	e := Env{Commit: "abc", Branch: "main", Root: root, Paths: []string{"b.nika.yaml", "a.nika.yaml", "c.nika.yaml", "notes.txt"}}
	v := Judge(context.Background(), set, e, Options{})
	want := `nika verdict: 1 error, 1 file not checked, 1 hook failed
a.nika.yaml:4:26 NIKA-YAML-004 `
	if !strings.HasPrefix(v.Text(), want) {
		t.Fatalf("got\n%s", v.Text())
	}
	tail := `not checked: c.nika.yaml was not checked: its path passes through a symlink, which nika never follows · replace the symlink with the file itself, then check the file again
hook 10-ok: exit 0
    ok
hook 20-no: exit 1
    b.nika.yaml
    a.nika.yaml
    c.nika.yaml
    notes.txt
`
	if !strings.HasSuffix(v.Text(), tail) {
		t.Fatalf("got\n%s", v.Text())
	}
	if strings.Contains(v.Text(), root) {
		t.Fatalf("the note names the host path %s:\n%s", root, v.Text())
	}
}
