package checker

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestKindFromPath(t *testing.T) {
	for path, want := range map[string]string{
		"deploy.nika.yaml":        KindWorkflow,
		"sub/dir/x.nika.yaml":     KindWorkflow,
		"old.nika.yml":            KindWorkflow,
		"reserved.nika":           KindWorkflow,
		"nika.yaml":               KindProject,
		"pkg/nika.yaml":           KindProject,
		"other.yaml (no tasks)":   KindProject,
		"other.yaml (with tasks)": KindWorkflow,
	} {
		src := "nika: p\n"
		if strings.Contains(path, "with tasks") {
			src = "nika: p\ntasks:\n  a:\n    infer: { prompt: x }\n"
		}
		if got := Check(path, []byte(src)).Kind; got != want {
			t.Errorf("%s: kind %q, want %q", path, got, want)
		}
	}
}

func TestProjectFile(t *testing.T) {
	cases := []struct {
		src  string
		want []string
	}{
		{"nika: my-project\n", []string{}},
		{"nika: My Project\n", []string{"NIKA-PARSE-003@1:7"}},
		{"name: x\n", []string{"NIKA-PARSE-002@1:1", "NIKA-PARSE-005@1:1"}},
		{"nika: p\ntasks:\n  a:\n    infer: { prompt: x }\n", []string{"NIKA-PARSE-019@2:1"}},
	}
	for _, tc := range cases {
		rep := Check("nika.yaml", []byte(tc.src))
		if rep.Kind != KindProject || rep.Effects != nil {
			t.Errorf("%q: kind %q effects %v; a project file has no effect rows", tc.src, rep.Kind, rep.Effects)
		}
		if got := at(rep); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestFixesAreGiven(t *testing.T) {
	src := lines(
		"nika: v1",
		"workflow: ship-it",
		"tasks:",
		"  a:",
		"    infer: { prompt: hi, temprature: 1 }",
		"  b:",
		"    after: { a: failed }",
		"    infer: { prompt: hi }",
	)
	rep := Check("x.nika.yaml", []byte(src))
	fixes := map[string]string{}
	for _, f := range rep.Findings {
		fixes[f.Code] += f.Fix + "|"
	}
	for code, want := range map[string]string{
		"NIKA-PARSE-003": "write nika: ship-it",
		"NIKA-PARSE-005": "did you mean temperature?",
		"NIKA-DAG-005":   "write failure",
	} {
		if !strings.Contains(fixes[code], want) {
			t.Errorf("%s: fix %q does not contain %q", code, fixes[code], want)
		}
	}
}

func TestReportIsCollectedSortedAndClean(t *testing.T) {
	src := lines(
		"nika: hello",
		"extra: 1",
		"tasks:",
		"  a:",
		"    infer: { prompt: \"${{ nope.x }}\" }",
		"    color: red",
	)
	rep := Check("x.nika.yaml", []byte(src))
	if rep.Clean() {
		t.Fatal("a report with errors must not be clean")
	}
	if len(rep.Findings) < 3 {
		t.Fatalf("every finding must be collected, got %v", at(rep))
	}
	for i := 1; i < len(rep.Findings); i++ {
		a, b := rep.Findings[i-1], rep.Findings[i]
		if a.Line > b.Line || (a.Line == b.Line && a.Col > b.Col) || (a.Line == b.Line && a.Col == b.Col && a.Code > b.Code) {
			t.Errorf("findings out of order: %v then %v", a, b)
		}
	}
	for _, f := range rep.Findings {
		if f.Message == "" || f.Message != strings.ToLower(f.Message[:1])+f.Message[1:] {
			t.Errorf("message %q must start lowercase", f.Message)
		}
		if f.Category == "" || f.Line < 1 || f.Col < 1 {
			t.Errorf("finding %+v lacks a category or a position", f)
		}
	}
	if !Check("x.nika.yaml", []byte("nika: ok\ntasks:\n  a:\n    infer: { prompt: x }\n")).Clean() {
		t.Error("a clean workflow must report Clean")
	}
}

func TestJSONShape(t *testing.T) {
	rep := Check("x.nika.yaml", []byte("nika: hello\ntasks:\n  a:\n    exec: { command: [\"ls\"] }\n"))
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"path", "kind", "findings", "effects"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report JSON lacks %q: %s", k, b)
		}
	}
	f := m["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"code", "category", "severity", "message", "line", "col", "fix"} {
		if _, ok := f[k]; !ok {
			t.Errorf("finding JSON lacks %q: %s", k, b)
		}
	}
	e := m["effects"].(map[string]any)
	for _, k := range []string{"reads", "writes", "network", "programs", "tools", "pauses", "env", "models", "secrets", "spend"} {
		if _, ok := e[k]; !ok {
			t.Errorf("effects JSON lacks %q: %s", k, b)
		}
	}
}

func TestExplain(t *testing.T) {
	for _, code := range Codes() {
		text, ok := Explain(code)
		if !ok || text == "" {
			t.Errorf("%s has no explanation", code)
		}
	}
	if _, ok := Explain("NIKA-NOPE-999"); ok {
		t.Error("an unknown code must not explain")
	}
}

// TestEveryEmittedCodeIsCatalogued guards the catalog: a code the checker
// emits must explain itself and carry a category.
func TestEveryEmittedCodeIsCatalogued(t *testing.T) {
	src := lines(
		"nika: hello",
		"tasks:",
		"  a:",
		"    exec: \"ls\"",
	)
	for _, f := range Check("x.nika.yaml", []byte(src)).Findings {
		if _, ok := catalog[f.Code]; !ok {
			t.Errorf("%s is emitted but not catalogued", f.Code)
		}
	}
}

func TestEffects(t *testing.T) {
	src := lines(
		"nika: effects",
		"model: anthropic/claude-sonnet-4-6",
		"secrets:",
		"  tok: { source: env, key: TOK, egress: [{ to: \"nika:fetch\", host: api.example.com }] }",
		"permits:",
		"  fs: { read: [\"./in/**\"], write: [\"./out/**\"] }",
		"  net: { http: [\"api.example.com\"] }",
		"  exec: [\"git\"]",
		"  tools: [\"nika:read\", \"nika:write\", \"nika:fetch\", \"nika:prompt\"]",
		"  env: [\"CI\"]",
		"tasks:",
		"  read:",
		"    invoke: { tool: nika:read, args: { path: \"./in/a.txt\" } }",
		"  ask:",
		"    invoke: { tool: nika:prompt, args: { message: \"go on?\", mode: choice, choices: [a, b] } }",
		"  call:",
		"    invoke: { tool: nika:fetch, args: { url: \"https://api.example.com/v1\", headers: { x-key: \"${{ secrets.tok }}\" } } }",
		"  sum:",
		"    infer: { prompt: hi, max_tokens: 100 }",
		"  write:",
		"    with: { s: \"${{ tasks.sum.output }}\" }",
		"    invoke: { tool: nika:write, args: { path: \"./out/s.md\", content: \"${{ with.s }}\" } }",
		"  log:",
		"    exec: { command: [\"git\", \"log\"], env: { PAGER: cat } }",
	)
	rep := Check("e.nika.yaml", []byte(src))
	if !rep.Clean() {
		t.Fatalf("unexpected findings %v", at(rep))
	}
	want := &Effects{
		Reads:    []string{"./in/a.txt"},
		Writes:   []string{"./out/s.md"},
		Network:  []string{"api.example.com"},
		Programs: []string{"git"},
		Tools:    []string{"nika:fetch", "nika:prompt", "nika:read", "nika:write"},
		Pauses:   []string{"ask: go on?"},
		Env:      []string{"CI (passed through)", "PAGER (set by task log)"},
		Models:   []string{"anthropic/claude-sonnet-4-6"},
		Secrets:  []string{"tok"},
		Spend:    "bounded: at most 1 model calls and 100 output tokens",
	}
	if !reflect.DeepEqual(rep.Effects, want) {
		g, _ := json.MarshalIndent(rep.Effects, "", " ")
		t.Errorf("effects:\n%s", g)
	}
}

func TestSpendUnbounded(t *testing.T) {
	src := lines(
		"nika: spend",
		"permits: { tools: [\"nika:done\"] }",
		"tasks:",
		"  a:",
		"    agent: { prompt: go, tools: [\"nika:done\"] }",
	)
	rep := Check("s.nika.yaml", []byte(src))
	if rep.Effects == nil || !strings.HasPrefix(rep.Effects.Spend, "unbounded: agent a") {
		t.Errorf("spend = %+v", rep.Effects)
	}
}

func TestAbsentAndEmptyPermitsAgree(t *testing.T) {
	body := "tasks:\n  a:\n    invoke: { tool: nika:jq, args: { input: [1], expression: \".\" } }\n"
	for _, src := range []string{"nika: p\n" + body, "nika: p\npermits: {}\n" + body} {
		if rep := Check("p.nika.yaml", []byte(src)); !rep.Clean() {
			t.Errorf("pure compute must pass under an absent or empty block: %v", at(rep))
		}
	}
}
