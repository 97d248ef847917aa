package session

import (
	"strings"
	"testing"
)

// TestGuardCorrectsInventions: every invented reference gets one
// correction; real ones get none.
func TestGuardCorrectsInventions(t *testing.T) {
	reply := "I'm not familiar with Nika, but try this.\n" +
		"Run `nika deploy` and then nika propose.\n" +
		"$ nika magic --now\n" +
		"It fails with NIKA-MAGIC-042; the real one is NIKA-PARSE-005.\n" +
		"Use the tool mcp:github or mcp:github/create_issue, and nika:http_get.\n" +
		"```yaml path=flows/x.nika.yaml\n" +
		"nika: x\n" +
		"schedule: daily\n" +
		"model: skynet/gpt-9\n" +
		"tasks:\n" +
		"  a:\n" +
		"    invoke: { tool: \"nika:teleport\" }\n" +
		"  b:\n" +
		"    invoke: { tool: \"nika:read\", args: { path: x } }\n" +
		"  c:\n" +
		"    infer: { prompt: hi, model: \"openai/gpt-4o\" }\n" +
		"```\n"
	got := NewGuard(nil).Check(reply)
	want := map[string]string{
		"claim:unknown language": "",
		"verb:nika deploy":       "",
		"verb:nika magic":        "",
		"code:NIKA-MAGIC-042":    "",
		"mcp:mcp:github":         "",
		"builtin:nika:http_get":  "",
		"field:schedule":         "",
		"provider:skynet":        "",
		"builtin:nika:teleport":  "",
	}
	seen := map[string]bool{}
	for _, c := range got {
		k := c.Kind + ":" + c.Ref
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected correction %s: %s", k, c.Text)
		}
		seen[k] = true
		if c.Text == "" {
			t.Errorf("%s has no text", k)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no correction for %s", k)
		}
	}
	if len(got) < 7 {
		t.Fatalf("%d corrections", len(got))
	}
}

func TestGuardQuietOnTruth(t *testing.T) {
	reply := "Run `nika check flows/a.nika.yaml`, then nika apply ID. NIKA-PARSE-005 means an unknown envelope key.\n" +
		"```yaml path=flows/a.nika.yaml\nnika: a\nmodel: mistral/large\npermits:\n  tools: [\"mcp:browser/*\", \"nika:read\"]\ntasks:\n  a:\n    invoke: { tool: \"mcp:browser/navigate\" }\n```\n" +
		"Nika is a workflow language; I know it from the digest.\n"
	if got := NewGuard(nil).Check(reply); len(got) != 0 {
		t.Fatalf("%+v", got)
	}
}

// TestGuardUnderTheReply: a machine's answer carries the corrections and
// leaves the reply's text as the model wrote it.
func TestGuardUnderTheReply(t *testing.T) {
	r := &fakeReasoner{reply: "use nika:teleport"}
	m := newMachine(t, newFake(), r)
	out := m.Turn("how do I move files?")
	a := out[0].(Answer)
	if a.Text != "use nika:teleport" || len(a.Corrections) != 1 || !strings.Contains(a.Corrections[0].Text, "nika:read") {
		t.Fatalf("%+v", a)
	}
}
