package checker

import (
	"reflect"
	"strings"
	"testing"
)

func ruleNames(steps []RepairStep) []string {
	out := []string{}
	for _, s := range steps {
		out = append(out, s.Rule)
	}
	return out
}

// TestRepairEachRule shows each repair on its smallest input: the bytes
// that come out, and the steps that say what happened.
func TestRepairEachRule(t *testing.T) {
	cases := []struct {
		name, in, out string
		rules         []string
	}{
		{"exec string to argv command",
			lines("nika: t", "tasks:", "  a:", "    exec: \"make all\"  # keep me"),
			lines("nika: t", "tasks:", "  a:", "    exec: { command: [\"make\", \"all\"] }  # keep me"),
			[]string{"exec-string"}},
		{"exec string to the shell door",
			lines("nika: t", "tasks:", "  a:", "    exec: cat x | wc -l"),
			lines("nika: t", "tasks:", "  a:", "    exec: { shell: \"cat x | wc -l\" }"),
			[]string{"exec-string"}},
		{"string command to shell",
			lines("nika: t", "tasks:", "  a:", "    exec:", "      command: \"ls -la | head\""),
			lines("nika: t", "tasks:", "  a:", "    exec:", "      shell: \"ls -la | head\""),
			[]string{"exec-string"}},
		{"needs to after",
			lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "  b:", "    needs:", "      - a", "    infer: { prompt: y }"),
			lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "  b:", "    after: { a: success }", "    infer: { prompt: y }"),
			[]string{"needs-to-after"}},
		{"tasks list to map",
			lines("nika: t", "tasks:", "  # the build", "  - id: build", "    infer: { prompt: x }", "  - id: ship", "    infer: { prompt: y }"),
			lines("nika: t", "tasks:", "  # the build", "  build:", "    infer: { prompt: x }", "  ship:", "    infer: { prompt: y }"),
			[]string{"tasks-list-to-map", "tasks-list-to-map"}},
		{"nika v1 with a workflow id",
			lines("nika: v1", "workflow: deploy-prod", "tasks:", "  a:", "    infer: { prompt: x }"),
			lines("nika: deploy-prod", "tasks:", "  a:", "    infer: { prompt: x }"),
			[]string{"nika-v1-to-id"}},
		{"nika v1 with a workflow object",
			lines("nika: v1", "workflow:", "  id: deploy-prod", "tasks:", "  a:", "    infer: { prompt: x }"),
			lines("nika: deploy-prod", "tasks:", "  a:", "    infer: { prompt: x }"),
			[]string{"nika-v1-to-id"}},
		{"participles to predicates",
			lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "  b:", "    after: { a: succeeded }", "    infer: { prompt: y }", "  c:", "    after: { a: \"failed\" }", "    infer: { prompt: z }"),
			lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "  b:", "    after: { a: success }", "    infer: { prompt: y }", "  c:", "    after: { a: \"failure\" }", "    infer: { prompt: z }"),
			[]string{"participle-predicates", "participle-predicates"}},
		{"output to extract",
			lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "    output:", "      title: \".title\""),
			lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "    extract:", "      title: \".title\""),
			[]string{"output-to-extract"}},
		{"params to args",
			lines("nika: t", "tasks:", "  a:", "    invoke:", "      tool: nika:log", "      params: { message: hi }"),
			lines("nika: t", "tasks:", "  a:", "    invoke:", "      tool: nika:log", "      args: { message: hi }"),
			[]string{"params-to-args"}},
		{"fallback to recover",
			lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "    on_error: { fallback: \"stale\" }"),
			lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "    on_error: { recover: \"stale\" }"),
			[]string{"fallback-to-recover"}},
		{"a bare timeout is quoted",
			lines("nika: t", "tasks:", "  a:", "    timeout: 30s", "    infer: { prompt: x }"),
			lines("nika: t", "tasks:", "  a:", "    timeout: \"30s\"", "    infer: { prompt: x }"),
			[]string{"quote-timeout"}},
		{"argv to command",
			lines("nika: t", "tasks:", "  a:", "    exec:", "      argv: [\"ls\"]"),
			lines("nika: t", "tasks:", "  a:", "    exec:", "      command: [\"ls\"]"),
			[]string{"argv-to-command"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, steps, notes := Repair("t.nika.yaml", []byte(tc.in))
			if string(out) != tc.out {
				t.Errorf("got:\n%s\nwant:\n%s", out, tc.out)
			}
			if got := ruleNames(steps); !reflect.DeepEqual(got, tc.rules) {
				t.Errorf("steps %v, want %v", got, tc.rules)
			}
			if len(notes) > 0 {
				t.Errorf("unexpected notes %v", notes)
			}
			for _, s := range steps {
				if s.Line < 1 || s.Description == "" {
					t.Errorf("step %+v lacks a line or a description", s)
				}
			}
		})
	}
}

// TestRepairConverges applies several repairs over rounds, and the result
// checks clean.
func TestRepairConverges(t *testing.T) {
	in := lines(
		"nika: v1",
		"workflow: my-flow",
		"permits: { exec: true, tools: [\"nika:log\"] }",
		"tasks:",
		"  - id: build",
		"    exec: \"make all\"",
		"  - id: note",
		"    needs: [build]",
		"    invoke:",
		"      tool: nika:log",
		"      params: { message: built }",
	)
	out, steps, notes := Repair("t.nika.yaml", []byte(in))
	if len(notes) > 0 {
		t.Errorf("notes %v", notes)
	}
	if rep := Check("t.nika.yaml", out); !rep.Clean() {
		t.Errorf("repaired bytes do not check clean: %v\n%s", at(rep), out)
	}
	if len(steps) != 6 {
		t.Errorf("steps %v", ruleNames(steps))
	}
}

// TestRepairRollsBackABrokenRound: a round whose output does not parse is
// undone and named in the notes.
func TestRepairRollsBackABrokenRound(t *testing.T) {
	in := []byte(lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }"))
	breaker := repairRule{name: "breaker", find: func(d *repairDoc) ([]edit, []RepairStep, []string) {
		return []edit{{0, 0, "{ ["}}, []RepairStep{{Rule: "breaker", Line: 1, Description: "breaks"}}, nil
	}}
	out, steps, notes := repairWith(in, []repairRule{breaker})
	if string(out) != string(in) || len(steps) != 0 {
		t.Errorf("the broken round was kept: %q %v", out, steps)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "rolled back") {
		t.Errorf("notes %v", notes)
	}
}

// TestRepairStopsOnAmbiguity: where the old token is not unique or the
// target is taken, the repair is skipped with a note, never guessed.
func TestRepairStopsOnAmbiguity(t *testing.T) {
	cases := []struct{ name, in, note string }{
		{"needs beside after", lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "  b:", "    needs: [a]", "    after: { a: failure }", "    infer: { prompt: y }"), "needs-to-after"},
		{"output beside extract", lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "    output: { t: \".t\" }", "    extract: { u: \".u\" }"), "output-to-extract"},
		{"repeated ids", lines("nika: t", "tasks:", "  - id: a", "    infer: { prompt: x }", "  - id: a", "    infer: { prompt: y }"), "tasks-list-to-map"},
		{"depends_on needs a human", lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "  b:", "    depends_on: [a]", "    infer: { prompt: y }"), "dead-forms-for-a-human"},
		{"vars needs a human", lines("nika: t", "vars: { a: 1 }", "tasks:", "  a:", "    infer: { prompt: x }"), "dead-forms-for-a-human"},
		{"fallback beside value", lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }", "    on_error: { fallback: a, value: b }"), "fallback-to-recover"},
		{"v1 without a workflow id", lines("nika: v1", "tasks:", "  a:", "    infer: { prompt: x }"), "nika-v1-to-id"},
		{"participle twice in one when", lines("nika: t", "tasks:", "  a:", "    with: { s: \"${{ tasks.b.status }}\" }", "    when: \"${{ with.s == 'failed' || with.s == 'failed' }}\"", "    infer: { prompt: x }", "  b:", "    infer: { prompt: y }"), "participle-predicates"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, steps, notes := Repair("t.nika.yaml", []byte(tc.in))
			for _, s := range steps {
				if s.Rule == tc.note {
					t.Errorf("the ambiguous repair applied: %+v\n%s", s, out)
				}
			}
			found := false
			for _, n := range notes {
				found = found || strings.HasPrefix(n, tc.note)
			}
			if !found {
				t.Errorf("no note from %s: %v", tc.note, notes)
			}
		})
	}
}

func TestRepairLeavesLivingFilesAlone(t *testing.T) {
	in := []byte(lines("nika: t", "tasks:", "  a:", "    infer: { prompt: x }"))
	out, steps, notes := Repair("t.nika.yaml", in)
	if &out[0] != &in[0] || len(steps) != 0 || len(notes) != 0 {
		t.Errorf("a living file must come back untouched: %q %v %v", out, steps, notes)
	}
	if out, _, notes := Repair("t.nika.yaml", []byte("a: [")); string(out) != "a: [" || len(notes) != 1 {
		t.Errorf("unparseable bytes: %q %v", out, notes)
	}
}
