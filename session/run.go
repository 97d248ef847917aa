package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// ParseRunOutput reads what a runner printed and finds the frame of a run
// paused on a human gate: a JSON line
//
//	{"event":"workflow_paused","trace":"<trace id>","task":"<task id>","question":"<text>"}
//
// The last such line wins. A run that printed none yields a Trace with
// only the trace id of any line that has one.
func ParseRunOutput(out []byte) Trace {
	var t Trace
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var f struct {
			Event    string `json:"event"`
			Trace    string `json:"trace"`
			Task     string `json:"task"`
			Question string `json:"question"`
		}
		if json.Unmarshal(line, &f) != nil {
			continue
		}
		if f.Trace != "" {
			t.ID = f.Trace
		}
		if f.Event == "workflow_paused" {
			t = Trace{ID: f.Trace, Task: f.Task, Question: f.Question}
		}
	}
	return t
}

// RunArgv expands a runner template (git config nika.runner, split on
// spaces) for a run request: {workflow}, {max_cost_usd}, and {vars}, one
// NAME=VALUE argument per variable, sorted. An empty template gives nil.
func RunArgv(template string, r RunRequested) []string {
	var out []string
	for _, f := range strings.Fields(template) {
		if f == "{vars}" {
			keys := make([]string, 0, len(r.Vars))
			for k := range r.Vars {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				out = append(out, k+"="+r.Vars[k])
			}
			continue
		}
		f = strings.ReplaceAll(f, "{workflow}", r.Workflow)
		f = strings.ReplaceAll(f, "{max_cost_usd}", strconv.FormatFloat(r.MaxCostUSD, 'f', -1, 64))
		out = append(out, f)
	}
	return out
}

// ResumeArgv expands a resume template (git config nika.resume) for the
// human's answer to a gate: {trace}, {task} and {answer}, each one
// argument whatever it holds. An empty template gives nil.
func ResumeArgv(template string, r ResumeRequested) []string {
	var out []string
	for _, f := range strings.Fields(template) {
		f = strings.ReplaceAll(f, "{trace}", r.ID.Trace)
		f = strings.ReplaceAll(f, "{task}", r.ID.Task)
		f = strings.ReplaceAll(f, "{answer}", r.Answer)
		out = append(out, f)
	}
	return out
}

// SuggestedResume is the command a human can run when no resume template
// is set.
func SuggestedResume(r ResumeRequested) string {
	return "nika run --resume " + shq(r.ID.Trace) + " --answer " + shq(r.ID.Task+"="+r.Answer)
}

// SuggestedRun is the command a human can run when no runner is set.
func SuggestedRun(r RunRequested) string {
	parts := []string{"nika", "run", shq(r.Workflow)}
	keys := make([]string, 0, len(r.Vars))
	for k := range r.Vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, "--var", shq(k+"="+r.Vars[k]))
	}
	if r.MaxCostUSD > 0 {
		parts = append(parts, "--max-cost-usd", strconv.FormatFloat(r.MaxCostUSD, 'f', -1, 64))
	}
	return strings.Join(parts, " ")
}

func shq(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
