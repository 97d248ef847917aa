package checker

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// at renders the error findings of a report as CODE@line:col.
func at(r Report) []string {
	out := []string{}
	for _, f := range r.Errors() {
		out = append(out, fmt.Sprintf("%s@%d:%d", f.Code, f.Line, f.Col))
	}
	return out
}

// lines joins source lines, so that positions in the table read plainly.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestCheckFindings(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{"minimal workflow is clean", lines(
			"nika: hello",
			"tasks:",
			"  greet:",
			"    infer: { prompt: hi }",
		), []string{}},
		{"duplicate key", lines(
			"nika: hello",
			"tasks:",
			"  greet:",
			"    infer: { prompt: hi, prompt: ho }",
		), []string{"NIKA-YAML-004@4:26"}},
		{"anchor, alias and merge key", lines(
			"nika: hello",
			"const:",
			"  base: &b { a: 1 }",
			"  copy: *b",
			"  more: { <<: *b, c: 2 }",
			"tasks:",
			"  greet:",
			"    infer: { prompt: hi }",
		), []string{"NIKA-YAML-001@3:9", "NIKA-YAML-002@4:9", "NIKA-YAML-003@5:11", "NIKA-YAML-002@5:15"}},
		{"custom tag, non-string key, NaN", lines(
			"nika: hello",
			"const:",
			"  a: !secret x",
			"  1: one",
			"  n: .nan",
			"tasks:",
			"  greet:",
			"    infer: { prompt: hi }",
		), []string{"NIKA-YAML-006@3:6", "NIKA-YAML-007@4:3", "NIKA-YAML-008@5:6"}},
		{"byte-order mark", "\ufeffnika: hello\ntasks:\n  greet:\n    infer: { prompt: hi }\n", []string{"NIKA-YAML-011@1:1"}},
		{"byte-order mark shifts line 1", "\ufeffnika: Hi\ntasks:\n  greet:\n    infer: { prompt: hi }\n", []string{"NIKA-YAML-011@1:1", "NIKA-PARSE-003@1:8"}},
		{"syntax error", lines(
			"nika: hello",
			"tasks:",
			"  greet:",
			"    infer: { prompt: hi",
		), []string{"NIKA-PARSE-001@3:1"}},
		{"envelope closed and dead keys", lines(
			"nika: Hello_World",
			"vars: { a: 1 }",
			"colour: red",
			"tasks:",
			"  greet:",
			"    infer: { prompt: hi }",
		), []string{"NIKA-PARSE-003@1:7", "NIKA-VALUES-001@2:1", "NIKA-PARSE-005@3:1"}},
		{"missing nika and empty tasks", lines(
			"tasks: {}",
		), []string{"NIKA-PARSE-002@1:1", "NIKA-PARSE-002@1:1"}},
		{"task identity", lines(
			"nika: hello",
			"tasks:",
			"  Greet-One:",
			"    infer: { prompt: hi }",
			"  dup:",
			"    infer: { prompt: hi }",
			"  dup:",
			"    infer: { prompt: ho }",
		), []string{"NIKA-PARSE-006@3:3", "NIKA-PARSE-007@7:3"}},
		{"exactly one verb", lines(
			"nika: hello",
			"permits: { exec: true }",
			"tasks:",
			"  none:",
			"    timeout: \"5s\"",
			"  two:",
			"    infer: { prompt: hi }",
			"    exec: { shell: \"true\" }",
		), []string{"NIKA-PARSE-008@4:3", "NIKA-PARSE-009@8:5"}},
		{"closed verb keys and required fields", lines(
			"nika: hello",
			"permits: { exec: true }",
			"tasks:",
			"  a:",
			"    infer: { promt: hi }",
			"  b:",
			"    exec: { command: [\"ls\"], shell: \"ls\" }",
			"  c:",
			"    invoke: { tool: \"nika:log\", workflow: ./x.nika.yaml }",
		), []string{"NIKA-PARSE-018@5:5", "NIKA-PARSE-005@5:14", "NIKA-PARSE-019@7:30", "NIKA-PARSE-009@9:33"}},
		{"references: roots, declarations, boundary", lines(
			"nika: hello",
			"inputs:",
			"  topic: { type: string }",
			"tasks:",
			"  a:",
			"    infer: { prompt: \"${{ inputs.topik }} ${{ foo.bar }}\" }",
			"  b:",
			"    with: { x: \"${{ tasks.a }}\" }",
			"    infer: { prompt: \"${{ tasks.a.output }} ${{ with.y }}\" }",
			"  c:",
			"    infer: { prompt: \"${{ item }} ${{ const.k\" }",
		), []string{"NIKA-VAR-001@6:23", "NIKA-VAR-001@6:43", "NIKA-VAR-020@8:17", "NIKA-VAR-021@9:23", "NIKA-VAR-001@9:45", "NIKA-VAR-001@11:23", "NIKA-VAR-008@11:35"}},
		{"islands are located inside block scalars, escapes skipped", lines(
			"nika: hello",
			"tasks:",
			"  a:",
			"    infer:",
			"      prompt: |",
			"        literal \\${{ not.live }}",
			"        then ${{ nope.x }}",
		), []string{"NIKA-VAR-001@7:14"}},
		{"after predicates, undeclared tasks, cycles", lines(
			"nika: hello",
			"tasks:",
			"  a:",
			"    after: { b: succeeded, ghost: success }",
			"    infer: { prompt: a }",
			"  b:",
			"    with: { x: \"${{ tasks.a.output }}\" }",
			"    infer: { prompt: \"${{ with.x }}\" }",
		), []string{"NIKA-DAG-001@3:3", "NIKA-DAG-005@4:17", "NIKA-DAG-002@4:28"}},
		{"tool ids", lines(
			"nika: hello",
			"permits: { tools: [\"mcp:pg/query\"] }",
			"tasks:",
			"  a:",
			"    invoke: { tool: \"nika:fech\", args: { url: \"https://x.example\" } }",
			"  b:",
			"    invoke: { tool: \"mcp:pg\" }",
			"  c:",
			"    invoke: { tool: \"x:y\" }",
			"  d:",
			"    invoke: { tool: \"mcp:pg/query\" }",
			"  e:",
			"    invoke: { tool: \"nika:done\" }",
		), []string{"NIKA-BUILTIN-001@5:21", "NIKA-PARSE-019@7:21", "NIKA-SEC-004@7:21", "NIKA-PARSE-019@9:21", "NIKA-BUILTIN-DONE-001@13:21"}},
		{"model ids", lines(
			"nika: hello",
			"model: claude-3",
			"tasks:",
			"  a:",
			"    infer: { prompt: hi, model: \"acme/big\" }",
			"  b:",
			"    infer: { prompt: hi, model: \"anthropic/claude-sonnet-4-6\" }",
			"  c:",
			"    infer: { prompt: hi, model: \"${{ inputs.m }}\" }",
			"inputs:",
			"  m: { type: string, default: mock/echo }",
		), []string{"NIKA-PROVIDER-001@2:8", "NIKA-PROVIDER-001@5:33"}},
		{"permits: closed keys, literal bounds, wildcard hosts", lines(
			"nika: hello",
			"inputs:",
			"  h: { type: string }",
			"permits:",
			"  net: { http: [\"*.example.com\", \"${{ inputs.h }}\", \"10.0.0.1\", \"localhost\"] }",
			"  exec: maybe",
			"  network: {}",
			"tasks:",
			"  a:",
			"    infer: { prompt: hi }",
		), []string{"NIKA-AUTH-010@5:17", "NIKA-AUTH-007@5:34", "NIKA-SEC-005@5:53", "NIKA-PARSE-019@6:9", "NIKA-PARSE-005@7:3"}},
		{"absent permits declares zero authority", lines(
			"nika: hello",
			"tasks:",
			"  build:",
			"    exec: { command: [\"make\"] }",
			"  think:",
			"    infer: { prompt: hi }",
		), []string{"NIKA-AUTH-006@4:5"}},
		{"effects outside the permits", lines(
			"nika: hello",
			"permits:",
			"  fs: { read: [\"./data/**\"] }",
			"  exec: [\"make\"]",
			"  tools: [\"nika:read\"]",
			"tasks:",
			"  a:",
			"    invoke: { tool: nika:read, args: { path: \"./etc/passwd\" } }",
			"  b:",
			"    invoke: { tool: nika:write, args: { path: \"./out.txt\", content: x } }",
			"  c:",
			"    exec: { command: [\"rm\", \"-rf\", \"x\"] }",
			"  d:",
			"    exec: { shell: \"make | tee log\" }",
		), []string{"NIKA-SEC-004@8:46", "NIKA-SEC-004@10:21", "NIKA-SEC-004@10:47", "NIKA-SEC-004@12:23", "NIKA-SEC-004@14:20"}},
		{"secrets reach sinks their egress does not sanction", lines(
			"nika: hello",
			"secrets:",
			"  tok: { source: env, key: TOK }",
			"  ok: { source: env, key: OK, egress: [{ to: exec }] }",
			"permits: { exec: [\"curl\"] }",
			"tasks:",
			"  a:",
			"    with: { t: \"${{ secrets.tok }}\" }",
			"    exec: { command: [\"curl\", \"-H\", \"${{ with.t }}\"] }",
			"  b:",
			"    exec: { command: [\"curl\", \"${{ secrets.ok }}\"] }",
			"outputs:",
			"  leak: ${{ tasks.b.output }}",
		), []string{"NIKA-SEC-006@9:37", "NIKA-SEC-007@13:9"}},
		{"order law", lines(
			"nika: hello",
			"permits: { exec: [\"wc\"], net: { http: [\"example.com\"] }, tools: [\"nika:fetch\"] }",
			"tasks:",
			"  page:",
			"    invoke: { tool: nika:fetch, args: { url: \"https://example.com\" } }",
			"  count:",
			"    with: { body: \"${{ tasks.page.output }}\" }",
			"    exec: { command: [\"wc\", \"${{ with.body }}\"] }",
		), []string{"NIKA-SEC-015@8:5"}},
		{"timeouts", lines(
			"nika: hello",
			"tasks:",
			"  a:",
			"    timeout: 30s",
			"    infer: { prompt: hi }",
			"  b:",
			"    timeout: \"30m1h\"",
			"    infer: { prompt: hi }",
			"  c:",
			"    timeout: \"25h\"",
			"    infer: { prompt: hi }",
			"  d:",
			"    timeout: \"1h30m\"",
			"    infer: { prompt: hi }",
		), []string{"NIKA-PARSE-010@4:14", "NIKA-PARSE-010@7:14", "NIKA-PARSE-010@10:14"}},
		{"types", lines(
			"nika: hello",
			"inputs:",
			"  n: { type: integer, default: \"ten\" }",
			"tasks:",
			"  a:",
			"    infer: { prompt: hi }",
			"    returns: { object: { id: string, tag: { optional: Tag } } }",
		), []string{"NIKA-DEFAULT-001@3:32", "NIKA-TYPE-001@7:55"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := Check("flow.nika.yaml", []byte(tc.src))
			got := at(rep)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
				for _, f := range rep.Findings {
					t.Logf("%s %d:%d %s", f.Code, f.Line, f.Col, f.Message)
				}
			}
		})
	}
}
