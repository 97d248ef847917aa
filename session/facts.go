package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nika-dev/nika/checker"
)

// Facts that need no model: the engine's own catalogs (the builtins and
// the providers the checker knows, the very tables the guard judges a
// model's references against), and what the last run did, read from its
// trace (spec 17: one chained NDJSON journal per run, under
// .nika/traces/). They answer with or without an intelligence, in the
// terminal session (/builtins, /providers, /last-run) and over the
// protocol (the calls builtins, providers, last_run), with the same
// outcomes.

// Builtins is the catalog of nika: builtins.
type Builtins struct {
	Builtins []string `json:"builtins"`
}

// Providers is the catalog of model providers.
type Providers struct {
	Providers []string `json:"providers"`
}

// LastRun is what the latest trace says; Run is nil when no run left a
// trace.
type LastRun struct {
	Run *RunFacts `json:"run"`
}

func (Builtins) Kind() string  { return "builtins" }
func (Providers) Kind() string { return "providers" }
func (LastRun) Kind() string   { return "last_run" }

// Text is the catalog for a human.
func (b Builtins) Text() string {
	return fmt.Sprintf("builtins (%d): %s\nuse one as a tool: invoke: { tool: \"nika:read\", args: {...} }\n", len(b.Builtins), strings.Join(b.Builtins, ", "))
}

// Text is the catalog for a human.
func (p Providers) Text() string {
	return fmt.Sprintf("providers (%d): %s\nname a model as <provider>/<name>, for example model: \"openai/gpt-4o\"\n", len(p.Providers), strings.Join(p.Providers, ", "))
}

// Text is the last run for a human.
func (l LastRun) Text() string {
	r := l.Run
	if r == nil {
		return "no run has left a trace in " + TraceDir + "/ yet\n"
	}
	var b strings.Builder
	wf := r.Workflow
	if wf == "" {
		wf = "(workflow unrecorded)"
	}
	fmt.Fprintf(&b, "last run: %s · %s · %d event(s) · chain %s\n", wf, r.Status, r.Events, r.Chain)
	fmt.Fprintf(&b, "trace: %s\n", r.Trace)
	for _, t := range r.Tasks {
		fmt.Fprintf(&b, "  task %s: %s\n", t.Task, t.Status)
		if t.Output != "" {
			out := strings.TrimRight(t.Output, "\n")
			for _, l := range strings.Split(out, "\n") {
				fmt.Fprintf(&b, "    %s\n", l)
			}
			if t.Truncated {
				fmt.Fprintf(&b, "    … (cut at %d bytes)\n", MaxOutputBytes)
			}
		}
	}
	if r.Problem != "" {
		fmt.Fprintf(&b, "note: %s\n", r.Problem)
	}
	return b.String()
}

// Texter is an outcome that renders itself for a human.
type Texter interface{ Text() string }

// TraceDir is where runs write their traces, relative to the root.
const TraceDir = ".nika/traces"

// Bounds of a trace read for /last-run.
const (
	MaxTraceBytes  = 16 << 20
	MaxOutputBytes = 4 << 10
	MaxTasks       = 200
)

// RunFacts is a run as its trace tells it.
type RunFacts struct {
	// Trace is the journal's path relative to the root.
	Trace    string `json:"trace"`
	Workflow string `json:"workflow"`
	// Status is the lifecycle-terminal frame's (completed, failed,
	// cancelled, paused), sealed when only the seal ends it, or
	// incomplete when no frame ends it (the reader's word, spec 17).
	Status string `json:"status"`
	Events int    `json:"events"`
	// Chain is "intact", or "broken at line N" when a line's chain is not
	// the sha256 of the line before it.
	Chain string       `json:"chain"`
	Tasks []TaskOutput `json:"tasks"`
	// Problem says what could not be read (a line that is not a frame, a
	// trace cut at the size bound).
	Problem string `json:"problem,omitempty"`
}

// TaskOutput is one task's last terminal frame.
type TaskOutput struct {
	Task      string `json:"task"`
	Status    string `json:"status"` // completed, failed, skipped, cancelled
	Output    string `json:"output,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

type frame struct {
	Chain  string `json:"chain"`
	Kind   string `json:"kind"`
	Fields []struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	} `json:"fields"`
}

func (f frame) field(key string) (string, bool) {
	for _, kv := range f.Fields {
		if kv.Key != key {
			continue
		}
		var s string
		if json.Unmarshal(kv.Value, &s) == nil {
			return s, true
		}
		var b bytes.Buffer
		if json.Compact(&b, kv.Value) == nil {
			return b.String(), true
		}
		return string(kv.Value), true
	}
	return "", false
}

// ParseTrace reads a trace (the journal's bytes; name is its path
// relative to the root). It follows the reading laws of spec 17: unknown
// members, fields and kinds are ignored, a fact with no frame is left
// empty (unrecorded), and a journal with no terminal frame is
// incomplete.
func ParseTrace(name string, data []byte) RunFacts {
	r := RunFacts{Trace: name, Status: "incomplete", Chain: "intact", Tasks: []TaskOutput{}}
	if len(data) > MaxTraceBytes {
		data, r.Problem = data[:MaxTraceBytes], fmt.Sprintf("the trace is larger than %d bytes; only its start was read", MaxTraceBytes)
	}
	index := map[string]int{}
	lines := bytes.Split(data, []byte("\n"))
	var prev []byte
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var f frame
		if err := json.Unmarshal(line, &f); err != nil {
			if r.Problem == "" {
				r.Problem = fmt.Sprintf("line %d is not a frame", i+1)
			}
			prev = line
			continue
		}
		r.Events++
		if prev != nil && r.Chain == "intact" && !chained(f.Chain, prev) {
			r.Chain = fmt.Sprintf("broken at line %d", i+1)
		}
		prev = line
		switch f.Kind {
		case "workflow_started":
			if wf, ok := f.field("workflow"); ok {
				r.Workflow = wf
			}
		case "workflow_completed", "workflow_failed", "workflow_cancelled", "workflow_paused":
			r.Status = strings.TrimPrefix(f.Kind, "workflow_")
		case "run_sealed":
			if r.Status == "incomplete" {
				r.Status = "sealed"
			}
		case "task_completed", "task_failed", "task_skipped", "task_cancelled":
			task, _ := f.field("task")
			if task == "" {
				continue
			}
			t := TaskOutput{Task: task, Status: strings.TrimPrefix(f.Kind, "task_")}
			out, ok := f.field("output")
			if !ok {
				out, _ = f.field("error")
			}
			if len(out) > MaxOutputBytes {
				out, t.Truncated = out[:MaxOutputBytes], true
			}
			t.Output = out
			if j, ok := index[task]; ok {
				r.Tasks[j] = t
			} else if len(r.Tasks) < MaxTasks {
				index[task] = len(r.Tasks)
				r.Tasks = append(r.Tasks, t)
			}
		}
	}
	return r
}

// chained reports whether chain is the sha256 hex of the previous line's
// exact bytes (with or without its newline: the spec names the line's
// bytes, and writers differ on the newline).
func chained(chain string, prev []byte) bool {
	a := sha256.Sum256(prev)
	b := sha256.Sum256(append(append([]byte(nil), prev...), '\n'))
	return chain == hex.EncodeToString(a[:]) || chain == hex.EncodeToString(b[:])
}

// Builtins is the builtins catalog, from the checker's own table.
func (m *Machine) Builtins() []Outcome { return []Outcome{Builtins{Builtins: checker.Builtins()}} }

// Providers is the providers catalog, from the checker's own table.
func (m *Machine) Providers() []Outcome { return []Outcome{Providers{Providers: checker.Providers()}} }

// LastRun reads the latest trace through the engine.
func (m *Machine) LastRun() []Outcome {
	r, err := m.eng.LastRun()
	if err != nil {
		return []Outcome{Refused(err)}
	}
	return []Outcome{LastRun{Run: r}}
}
