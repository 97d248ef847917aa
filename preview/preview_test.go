package preview

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// fakeHex is a stable stand-in for a git object id.
func fakeHex(seed string) string {
	w := changeset.WitnessOf([]byte("fake:" + seed))
	return hex.EncodeToString(w[:])[:40]
}

// mustPath is ParsePath for the constants of these tests.
func mustPath(s string) changeset.Path {
	p, err := changeset.ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

func mkSide(content string) *changeset.Side {
	return changeset.NewSide([]byte(content), changeset.ModeFile, fakeHex(content))
}

func create(path, content string) changeset.Change {
	p := mustPath(path)
	return changeset.Change{Kind: changeset.Create, Path: p, Class: changeset.Classify(p), After: mkSide(content)}
}

func upd(path, before, after string) changeset.Change {
	p := mustPath(path)
	return changeset.Change{Kind: changeset.Update, Path: p, Class: changeset.Classify(p), Before: mkSide(before), After: mkSide(after)}
}

func del(path, before string) changeset.Change {
	p := mustPath(path)
	return changeset.Change{Kind: changeset.Delete, Path: p, Class: changeset.Classify(p), Before: mkSide(before)}
}

func move(from, to, before, after string) changeset.Change {
	p := mustPath(to)
	return changeset.Change{Kind: changeset.Move, Path: p, From: mustPath(from), Class: changeset.Classify(p), Before: mkSide(before), After: mkSide(after)}
}

func proposal(goal, base string, cs ...changeset.Change) *changeset.Proposal {
	pr := &changeset.Proposal{
		Commit: fakeHex("commit:" + goal),
		Tree:   fakeHex("tree:" + goal),
		Set: changeset.Set{
			Root:    "/home/alice/secret-project",
			Goal:    goal,
			Base:    base,
			Branch:  "refs/heads/main",
			Changes: cs,
		},
	}
	pr.ID = ID(pr)
	return pr
}

func numbered(n int, edit map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := edit[i]; ok {
			b.WriteString(s)
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

const hello = `nika: hello
model: ollama/qwen3.5:4b
permits: {}
tasks:
  greet:
    infer:
      prompt: "Say hello to {{ inputs.name }}"
      max_tokens: 64
`

// cleanAudit is a hand-built clean report with every effect row used.
var cleanAudit = checker.Report{
	Path: "flows/hello.nika.yaml",
	Kind: checker.KindWorkflow,
	Effects: &checker.Effects{
		Reads:    []string{"docs/*.md"},
		Writes:   []string{"out/greeting.txt"},
		Network:  []string{"api.example.com:443"},
		Programs: []string{"git"},
		Tools:    []string{"nika:read", "nika:write"},
		Pauses:   []string{"confirm"},
		Env:      []string{"LANG"},
		Models:   []string{"ollama/qwen3.5:4b"},
		Secrets:  []string{"EXAMPLE_TOKEN"},
		Spend:    "bounded: 1 model call, at most 64 tokens",
	},
}

// dirtyAudit has an error and a warning, and no effects (a file that does
// not parse far enough).
var dirtyAudit = checker.Report{
	Path: "flows/b.nika.yaml",
	Kind: checker.KindWorkflow,
	Findings: []checker.Finding{
		{Code: "NIKA-PARSE-002", Category: "validation_error", Severity: checker.SeverityError, Message: "the nika: key is missing; without it this is not a Nika file", Line: 1, Col: 1, Fix: "add a first line nika: <kebab-case-name>"},
		{Code: "NIKA-PARSE-022", Category: "validation_error", Severity: checker.SeverityWarning, Message: "tasks: is a list; it is a map keyed by task id", Line: 2, Col: 1},
	},
}

var base = fakeHex("base")

// cases are the golden previews: name → input.
func cases() map[string]Input {
	mixed := proposal("Add a greeting workflow and tidy the docs", base,
		create("flows/hello.nika.yaml", hello),
		upd("README.md", numbered(20, nil), numbered(20, map[int]string{2: "line two\n", 18: "line eighteen\n"})),
		del("old/notes.txt", "first\nsecond\n"),
		move("flows/a.nika.yaml", "flows/b.nika.yaml", "schema: nika/workflow@0.1\ntasks: []\n", "schema: nika/workflow@0.1\ntasks:\n  - id: x\n"),
	)
	mixed.Set.Run = &changeset.RunRequest{Workflow: "flows/hello.nika.yaml", Vars: map[string]string{"name": "Ada", "lang": "en"}, MaxCostUSD: 0.5}
	mixed.ID = ID(mixed)
	return map[string]Input{
		"create": {Proposal: proposal("Create a workflow", base, create("flows/hello.nika.yaml", hello))},
		"update_two_hunks": {Proposal: proposal("Edit two places", base,
			upd("README.md", numbered(20, nil), numbered(20, map[int]string{2: "line two\n", 18: "line eighteen\n"})))},
		"delete": {Proposal: proposal("Remove notes", base, del("old/notes.txt", "first\nsecond\nthird\n"))},
		"move_edit": {Proposal: proposal("Rename and edit", base,
			move("flows/a.nika.yaml", "flows/b.nika.yaml", numbered(8, nil), numbered(8, map[int]string{4: "line four\n"})))},
		"move_pure": {Proposal: proposal("Rename only", base, move("a.txt", "b/a.txt", "same\n", "same\n"))},
		"no_final_newline": {Proposal: proposal("Newlines", base,
			create("a.txt", "one\ntwo"),
			upd("b.txt", "x\ny", "x\ny\nz\n"),
			upd("c.txt", "p\nq\n", "p\nq"))},
		"hidden": {Proposal: proposal("Hidden \x1b[31mred\x1b[m goal\nsecond line", base,
			create("evil.txt", "plain \\x1b text\nclear\x1b[2J\x1b]0;pwned\x07screen\n\xff\xfe bad utf8 \\ slash\nbidi \u202eevil\u202c end\nzero\u200bwidth\ncrlf\r\n"),
			upd("x.txt", "a\x00b\n", "a\x00c\n")),
			Audits: []checker.Report{{Path: "evil.nika.yaml", Kind: checker.KindWorkflow, Findings: []checker.Finding{
				{Code: "NIKA-X\x1b[2J", Severity: checker.SeverityError, Message: "bad \x1b]0;title\x07 value", Line: 1, Col: 2, Fix: "fix \u202e it"}},
				Effects: &checker.Effects{Network: []string{"evil\x1b[31m.example"}, Spend: "unbounded: \r\x1b[K"}}}},
		"crlf": {Proposal: proposal("CRLF endings", base,
			upd("win.nika.yaml", "a\r\nb\r\nc\r\nd\r\n", "a\r\nB\r\nplain\nc\r\nd\r"))},
		"empty": {
			Proposal:  proposal("Nothing to do", base),
			Unchanged: []changeset.Path{"docs/same.md"},
		},
		"unborn": {Proposal: proposal("First commit", "", create("nika.yaml", "name: demo\n"))},
		"mixed": {Proposal: mixed, Unchanged: []changeset.Path{"z.txt", "docs/same.md"},
			Audits:  []checker.Report{dirtyAudit, cleanAudit},
			Repairs: map[changeset.Path][]checker.RepairStep{"flows/hello.nika.yaml": {{Rule: "needs-to-after", Line: 6, Description: "renamed needs: to after:"}}}},
		"audit_missing": {Proposal: proposal("Unaudited", base, create("flows/hello.nika.yaml", hello), create("nika.yaml", "name: demo\n"), create("notes.txt", "x\n")),
			Audits: []checker.Report{{Path: "nika.yaml", Kind: checker.KindProject}}},
		"empty_file": {Proposal: proposal("Empty files", base, create("empty.txt", ""), del("gone.txt", ""))},
		"mode_change": {Proposal: func() *changeset.Proposal {
			c := upd("run.sh", "#!/bin/sh\n", "#!/bin/sh\n")
			c.After.Mode = changeset.ModeExecutable
			return proposal("Make executable", base, c)
		}()},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./preview -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden (run go test ./preview -update and review the diff)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func render(t *testing.T, in Input, color bool) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Human(&b, in, Options{Color: color}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func renderJSON(t *testing.T, in Input) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := JSON(&b, in); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for name, in := range cases() {
		t.Run(name, func(t *testing.T) {
			golden(t, name, render(t, in, false))
			golden(t, name+".json", renderJSON(t, in))
		})
	}
	for _, name := range []string{"mixed", "hidden"} {
		t.Run(name+"/color", func(t *testing.T) {
			golden(t, name+".color", render(t, cases()[name], true))
		})
	}
}

func TestDeterministic(t *testing.T) {
	for name, in := range cases() {
		for _, color := range []bool{false, true} {
			a, b := render(t, in, color), render(t, cases()[name], color)
			if !bytes.Equal(a, b) {
				t.Errorf("%s (color %v): two renders differ", name, color)
			}
		}
		if a, b := renderJSON(t, in), renderJSON(t, cases()[name]); !bytes.Equal(a, b) {
			t.Errorf("%s: two JSON renders differ", name)
		}
	}
}

// knownSGR is every escape sequence the renderer itself emits.
var knownSGR = regexp.MustCompile(`\x1b\[(m|1m|7m|27m|31m|32m|33m|36m|31m\x1b\[1m)`)

func TestNoRawControlBytes(t *testing.T) {
	for name, in := range cases() {
		plain := render(t, in, false)
		if i := bytes.IndexFunc(plain, func(r rune) bool { return isControl(r) && r != '\n' || r == 0xfffd || isInvisible(r) }); i >= 0 {
			t.Errorf("%s: plain text has a raw hidden character at byte %d: %q", name, i, plain[max(0, i-20):min(len(plain), i+20)])
		}
		colored := knownSGR.ReplaceAll(render(t, in, true), nil)
		if i := bytes.IndexByte(colored, 0x1b); i >= 0 {
			t.Errorf("%s: colored text has a raw ESC not of our own at byte %d: %q", name, i, colored[max(0, i-20):min(len(colored), i+20)])
		}
		if !bytes.Equal(knownSGR.ReplaceAll(render(t, in, true), nil), plain) {
			t.Errorf("%s: colored text minus its colors is not the plain text", name)
		}
	}
}

func TestNoColorCodesWhenOff(t *testing.T) {
	out := render(t, cases()["mixed"], false)
	if bytes.Contains(out, []byte("\x1b")) {
		t.Fatal("color off, but the text has an ESC")
	}
	if !bytes.Contains(render(t, cases()["mixed"], true), []byte(cGreen+"+")) {
		t.Fatal("color on, but added lines are not green")
	}
}

func TestNoRootNoBytesInOutput(t *testing.T) {
	in := cases()["mixed"]
	js := renderJSON(t, in)
	for _, out := range [][]byte{render(t, in, false), js} {
		if bytes.Contains(out, []byte("/home/alice")) {
			t.Fatalf("output contains Set.Root:\n%s", out)
		}
	}
	if bytes.Contains(js, []byte("Say hello")) || bytes.Contains(js, []byte("line two")) {
		t.Fatal("JSON contains file bytes")
	}
	var v map[string]any
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatal(err)
	}
	if v["type"] != "proposal" || !bytes.HasSuffix(js, []byte("}\n")) || bytes.Count(js, []byte("\n")) != 1 {
		t.Fatalf("JSON is not one proposal object and a newline: %s", js)
	}
}

func TestInconsistentWritesNothing(t *testing.T) {
	bad := func() *changeset.Proposal {
		c := create("a.txt", "x\n")
		c.After.Bytes = []byte("y\n") // witness no longer binds the bytes
		return proposal("bad", base, c)
	}
	noSide := proposal("bad", base, changeset.Change{Kind: changeset.Update, Path: "a.txt", After: mkSide("x")})
	wrongID := proposal("ok", base, create("a.txt", "x\n"))
	wrongID.Set.Goal = "changed after staging"
	for _, pr := range []*changeset.Proposal{bad(), noSide, wrongID, nil} {
		var b bytes.Buffer
		if err := Human(&b, Input{Proposal: pr}, Options{}); !errors.Is(err, ErrInconsistent) || b.Len() > 0 {
			t.Errorf("Human: err %v, wrote %d bytes; want ErrInconsistent and nothing", err, b.Len())
		}
		if err := JSON(&b, Input{Proposal: pr}); !errors.Is(err, ErrInconsistent) || b.Len() > 0 {
			t.Errorf("JSON: err %v, wrote %d bytes; want ErrInconsistent and nothing", err, b.Len())
		}
	}
}

// TestDiffReplays checks on random edits that every diff reproduces the
// proposed bytes (unified proves it with replay, and returns an error if not).
func TestDiffReplays(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	gen := func() []byte {
		var b []byte
		for i, n := 0, r.Intn(30); i < n; i++ {
			b = append(b, "abcde"[r.Intn(5)])
			if r.Intn(3) > 0 {
				b = append(b, '\n')
			}
		}
		return b
	}
	for i := 0; i < 2000; i++ {
		before, after := gen(), gen()
		hs, err := unified(before, after)
		if err != nil {
			t.Fatalf("%q → %q: %v", before, after, err)
		}
		if (len(hs) == 0) != bytes.Equal(before, after) {
			t.Fatalf("%q → %q: %d hunks", before, after, len(hs))
		}
	}
}

func TestManifestBindsEveryField(t *testing.T) {
	basePr := func() *changeset.Proposal {
		pr := cases()["mixed"].Proposal
		// deep-copy the sides so that edits below do not leak between cases
		cs := make([]changeset.Change, len(pr.Set.Changes))
		for i, c := range pr.Set.Changes {
			if c.Before != nil {
				b := *c.Before
				c.Before = &b
			}
			if c.After != nil {
				a := *c.After
				c.After = &a
			}
			cs[i] = c
		}
		pr.Set.Changes = cs
		return pr
	}
	ref := basePr()
	id := ID(ref)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(id) {
		t.Fatalf("ID %q is not 64 hex", id)
	}
	if ID(basePr()) != id {
		t.Fatal("ID is not stable")
	}
	edits := map[string]func(*changeset.Proposal){
		"goal":    func(p *changeset.Proposal) { p.Set.Goal += "!" },
		"tree":    func(p *changeset.Proposal) { p.Tree = fakeHex("other tree") },
		"base":    func(p *changeset.Proposal) { p.Set.Base = "" },
		"run":     func(p *changeset.Proposal) { p.Set.Run.MaxCostUSD = 1 },
		"run var": func(p *changeset.Proposal) { p.Set.Run.Vars = map[string]string{"name": "Bob"} },
		"witness": func(p *changeset.Proposal) { p.Set.Changes[0].After.Witness = changeset.WitnessOf([]byte("other")) },
		"before witness": func(p *changeset.Proposal) {
			p.Set.Changes[1].Before.Witness = changeset.WitnessOf([]byte("other"))
		},
		"mode":  func(p *changeset.Proposal) { p.Set.Changes[0].After.Mode = changeset.ModeExecutable },
		"blob":  func(p *changeset.Proposal) { p.Set.Changes[0].After.Blob = fakeHex("other blob") },
		"path":  func(p *changeset.Proposal) { p.Set.Changes[0].Path = "flows/hello2.nika.yaml" },
		"from":  func(p *changeset.Proposal) { p.Set.Changes[3].From = "flows/c.nika.yaml" },
		"kind":  func(p *changeset.Proposal) { p.Set.Changes[1].Kind = changeset.Move },
		"drop":  func(p *changeset.Proposal) { p.Set.Changes = p.Set.Changes[1:] },
		"after": func(p *changeset.Proposal) { p.Set.Changes[1].After = nil },
	}
	for name, edit := range edits {
		p := basePr()
		edit(p)
		if ID(p) == id {
			t.Errorf("changing the %s does not change the ID", name)
		}
	}
	// Root is not part of the identity: the same proposal in another clone.
	p := basePr()
	p.Set.Root = "/elsewhere"
	if ID(p) != id {
		t.Error("the worktree root changes the ID")
	}
}

// FuzzHumanHidesNothing: whatever the bytes, the plain text renders without
// error, holds no raw control, invalid or invisible character (newline
// apart), and colored text holds no ESC but our own.
func FuzzHumanHidesNothing(f *testing.F) {
	f.Add([]byte("a\nb\n"), []byte("a\x1b[2Jb\n\xff"))
	f.Add([]byte("\r\n\u202e\n"), []byte(""))
	f.Add([]byte("x"), []byte("x\n\x00\x7f\u0085\U000e0041"))
	f.Fuzz(func(t *testing.T, before, after []byte) {
		in := Input{Proposal: proposal(string(after), base,
			create("new.txt", string(after)),
			upd("old.txt", string(before), string(after)+"!"),
		)}
		var b bytes.Buffer
		if err := Human(&b, in, Options{}); err != nil {
			t.Fatal(err)
		}
		if h := scan(strings.ReplaceAll(b.String(), "\n", "")); h.any() {
			t.Fatalf("raw hidden characters (%s) in:\n%q", h, b.String())
		}
		b.Reset()
		if err := Human(&b, in, Options{Color: true}); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(knownSGR.ReplaceAll(b.Bytes(), nil), []byte{0x1b}) {
			t.Fatalf("raw ESC in colored text:\n%q", b.String())
		}
	})
}

// TestRealChecker renders the checker's own report of the proposed bytes
// (not golden: the checker's messages evolve on their own).
func TestRealChecker(t *testing.T) {
	pr := proposal("Create a workflow", base, create("flows/hello.nika.yaml", hello))
	c := pr.Set.Changes[0]
	in := Input{Proposal: pr, Audits: []checker.Report{checker.Check(string(c.Path), c.After.Bytes)}}
	out := string(render(t, in, false))
	if !strings.Contains(out, "\naudit flows/hello.nika.yaml (workflow)\n  verdict ") || strings.Contains(out, "not audited") {
		t.Fatalf("no audit section:\n%s", out)
	}
	var v struct {
		Audits []struct {
			Path    string
			Clean   *bool
			Effects map[string]any
		}
	}
	if err := json.Unmarshal(renderJSON(t, in), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Audits) != 1 || v.Audits[0].Path != "flows/hello.nika.yaml" || v.Audits[0].Clean == nil {
		t.Fatalf("audits in JSON: %+v", v.Audits)
	}
}
