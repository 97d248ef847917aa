package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// journal writes frames as a run would (spec 17): one JSON object per
// line, each chained to the sha256 of the line before.
func journal(t testing.TB, frames ...map[string]any) string {
	var b strings.Builder
	prev := sha256.Sum256([]byte("genesis"))
	for _, f := range frames {
		f["chain"] = hex.EncodeToString(prev[:])
		line, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
		prev = sha256.Sum256(line)
	}
	return b.String()
}

func fr(kind string, kv ...any) map[string]any {
	var fields []map[string]any
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, map[string]any{"key": kv[i], "value": kv[i+1]})
	}
	return map[string]any{"id": map[string]any{"uuid": "0190"}, "timestamp": 1, "kind": kind, "fields": fields, "run": nil, "correlation": nil}
}

func TestParseTrace(t *testing.T) {
	j := journal(t,
		fr("workflow_started", "workflow", "daily", "trace_format", 2, "future_field", "x"),
		fr("task_started", "task", "fetch"),
		fr("task_failed", "task", "fetch", "error", "timeout"),
		fr("task_retrying", "task", "fetch"),
		fr("task_completed", "task", "fetch", "output", "{\"items\":3}", "duration_ms", 12),
		fr("some_future_kind", "task", "x"),
		fr("task_completed", "task", "sum", "output", map[string]any{"text": "three items"}),
		fr("workflow_completed", "workflow", "daily"),
	)
	r := ParseTrace(".nika/traces/a.ndjson", []byte(j))
	if r.Workflow != "daily" || r.Status != "completed" || r.Events != 8 || r.Chain != "intact" || r.Problem != "" {
		t.Fatalf("%+v", r)
	}
	if len(r.Tasks) != 2 || r.Tasks[0] != (TaskOutput{Task: "fetch", Status: "completed", Output: `{"items":3}`}) || r.Tasks[1].Output != `{"text":"three items"}` {
		t.Fatalf("%+v", r.Tasks)
	}
	// a journal with no terminal frame is incomplete; an edited line
	// breaks the chain from the next line on
	j2 := journal(t, fr("workflow_started", "workflow", "w"), fr("task_completed", "task", "a", "output", "1"), fr("task_completed", "task", "b", "output", "2"))
	lines := strings.SplitAfter(j2, "\n")
	lines[1] = strings.Replace(lines[1], `"1"`, `"9"`, 1)
	r = ParseTrace("x", []byte(strings.Join(lines, "")))
	if r.Status != "incomplete" || r.Chain != "broken at line 3" || r.Workflow != "w" {
		t.Fatalf("%+v", r)
	}
	// paused, and a line that is not a frame
	r = ParseTrace("x", []byte(journal(t, fr("workflow_started"), fr("workflow_paused", "task", "approve"))+"not json\n"))
	if r.Status != "paused" || r.Workflow != "" || !strings.Contains(r.Problem, "line 3") {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains((LastRun{Run: &r}).Text(), "(workflow unrecorded)") {
		t.Fatal((LastRun{Run: &r}).Text())
	}
	// a long output is cut
	big := strings.Repeat("x", MaxOutputBytes+10)
	r = ParseTrace("x", []byte(journal(t, fr("task_completed", "task", "t", "output", big))))
	if !r.Tasks[0].Truncated || len(r.Tasks[0].Output) != MaxOutputBytes {
		t.Fatalf("%+v", r.Tasks[0].Truncated)
	}
}

func FuzzParseTrace(f *testing.F) {
	f.Add([]byte(journal(f, fr("workflow_started", "workflow", "w"), fr("task_completed", "task", "a", "output", "1"))))
	f.Add([]byte("{\"kind\":\"task_completed\",\"fields\":[{\"key\":\"task\"}]}\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := ParseTrace("x", data)
		if r.Events > strings.Count(string(data), "\n")+1 {
			t.Fatalf("%d events in %d lines", r.Events, strings.Count(string(data), "\n")+1)
		}
		switch r.Status {
		case "completed", "failed", "cancelled", "paused", "sealed", "incomplete":
		default:
			t.Fatalf("status %q", r.Status)
		}
	})
}
