package session

import (
	"bufio"
	"bytes"
	"encoding/json"
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
