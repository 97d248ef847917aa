package checker

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxRepairRounds bounds the fix ladder's prepass.
const maxRepairRounds = 16

// Repair is the fix ladder's prepass: it rewrites dead forms of the
// language into their living spelling, textually, so that the author's
// formatting and comments survive. A repair applies only where its old
// token is unique and its target is unambiguous; the bytes are re-parsed
// after each round, a round that breaks the YAML is rolled back, and at
// most 16 rounds run. Where a repair would have to guess, it stops and
// says so in notes. out equals data when nothing applied.
func Repair(path string, data []byte) (out []byte, repairs []RepairStep, notes []string) {
	if kindFromPath(path) == KindProject {
		return data, nil, nil
	}
	return repairWith(data, repairRules)
}

// repairDoc is one round's view of the bytes.
type repairDoc struct {
	data  []byte
	root  *yaml.Node
	lines []int // byte offset of the start of each line (index 0 = line 1)
}

// edit replaces data[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// repairRule finds the edits of one dead form.
type repairRule struct {
	name string
	find func(d *repairDoc) (edits []edit, steps []RepairStep, notes []string)
}

var repairRules = []repairRule{
	{"tasks-list-to-map", findTasksList},
	{"nika-v1-to-id", findNikaV1},
	{"exec-string", findExecString},
	{"needs-to-after", findNeeds},
	{"participle-predicates", findParticiples},
	{"output-to-extract", renameTaskKey("output-to-extract", "output", "extract", "")},
	{"params-to-args", renameTaskKey("params-to-args", "params", "args", "invoke")},
	{"argv-to-command", renameTaskKey("argv-to-command", "argv", "command", "exec")},
	{"fallback-to-recover", renameTaskKey("fallback-to-recover", "fallback", "recover", "on_error")},
	{"value-to-recover", renameTaskKey("value-to-recover", "value", "recover", "on_error")},
	{"quote-timeout", findBareTimeouts},
	{"dead-forms-for-a-human", findUndecidable},
}

func repairWith(data []byte, rules []repairRule) ([]byte, []RepairStep, []string) {
	out := data
	var steps []RepairStep
	var notes []string
	noted := map[string]bool{}
	note := func(s string) {
		if !noted[s] {
			noted[s] = true
			notes = append(notes, s)
		}
	}
	disabled := map[string]bool{}
	for round := 0; round < maxRepairRounds; round++ {
		d, ok := newRepairDoc(out)
		if !ok {
			if round == 0 {
				note("the YAML does not parse; no repair was attempted")
			}
			break
		}
		applied := false
		for _, r := range rules {
			if disabled[r.name] {
				continue
			}
			edits, st, ns := safeFind(r, d)
			for _, n := range ns {
				note(n)
			}
			if len(edits) == 0 {
				continue
			}
			next, ok := applyEdits(out, edits)
			if !ok {
				note(r.name + ": overlapping edits; stopped rather than guess")
				disabled[r.name] = true
				continue
			}
			if _, parses := newRepairDoc(next); !parses {
				note(fmt.Sprintf("%s: the repair would break the YAML, so it was rolled back", r.name))
				disabled[r.name] = true
				continue
			}
			out = next
			steps = append(steps, st...)
			applied = true
			break // re-parse before the next round
		}
		if !applied {
			break
		}
		if round == maxRepairRounds-1 {
			note("stopped after 16 rounds of repair")
		}
	}
	if bytes.Equal(out, data) {
		out = data
	}
	return out, steps, notes
}

// safeFind shields the prepass from a panic in a rule.
func safeFind(r repairRule, d *repairDoc) (edits []edit, steps []RepairStep, notes []string) {
	defer func() {
		if x := recover(); x != nil {
			edits, steps, notes = nil, nil, []string{r.name + ": skipped after an internal error"}
		}
	}()
	return r.find(d)
}

func newRepairDoc(data []byte) (*repairDoc, bool) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := safeDecode(dec, &doc); err != nil {
		return nil, false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	d := &repairDoc{data: data, root: doc.Content[0], lines: []int{0}}
	for i, b := range data {
		if b == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	return d, true
}

func applyEdits(data []byte, edits []edit) ([]byte, bool) {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), data...)
	prev := len(data) + 1
	for _, e := range edits {
		if e.start < 0 || e.end < e.start || e.end > len(out) || e.end > prev {
			return nil, false
		}
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
		prev = e.start
	}
	return out, true
}

// offset converts a node position (1-based line, 1-based column counted in
// characters) to a byte offset.
func (d *repairDoc) offset(n *yaml.Node) int {
	if n == nil || n.Line < 1 || n.Line > len(d.lines) {
		return -1
	}
	off := d.lines[n.Line-1]
	for col := 1; col < n.Column; col++ {
		if off >= len(d.data) || d.data[off] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRune(d.data[off:])
		off += size
	}
	return off
}

// end returns the byte offset just after the text of a node.
func (d *repairDoc) end(n *yaml.Node) int {
	start := d.offset(n)
	if start < 0 {
		return -1
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch {
		case n.Style&yaml.DoubleQuotedStyle != 0:
			for i := start + 1; i < len(d.data); i++ {
				if d.data[i] == '\\' {
					i++
					continue
				}
				if d.data[i] == '"' {
					return i + 1
				}
			}
			return -1
		case n.Style&yaml.SingleQuotedStyle != 0:
			for i := start + 1; i < len(d.data); i++ {
				if d.data[i] == '\'' {
					if i+1 < len(d.data) && d.data[i+1] == '\'' {
						i++
						continue
					}
					return i + 1
				}
			}
			return -1
		case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
			return -1
		}
		if bytes.HasPrefix(d.data[start:], []byte(n.Value)) && !strings.Contains(n.Value, "\n") {
			return start + len(n.Value)
		}
		if n.Tag == "!!null" && n.Value == "" {
			return start
		}
		return -1
	case yaml.SequenceNode, yaml.MappingNode:
		if n.Style&yaml.FlowStyle != 0 {
			open, closeCh := byte('['), byte(']')
			if n.Kind == yaml.MappingNode {
				open, closeCh = '{', '}'
			}
			depth := 0
			var quote byte
			for i := start; i < len(d.data); i++ {
				c := d.data[i]
				if quote != 0 {
					if c == '\\' && quote == '"' {
						i++
					} else if c == quote {
						quote = 0
					}
					continue
				}
				switch c {
				case '"', '\'':
					quote = c
				case open:
					depth++
				case closeCh:
					depth--
					if depth == 0 {
						return i + 1
					}
				}
			}
			return -1
		}
		if len(n.Content) == 0 {
			return -1
		}
		return d.end(n.Content[len(n.Content)-1])
	}
	return -1
}

// at reports whether the bytes at the node's position spell token.
func (d *repairDoc) at(n *yaml.Node, token string) bool {
	off := d.offset(n)
	return off >= 0 && bytes.HasPrefix(d.data[off:], []byte(token))
}

// lineSpan returns the bytes of whole lines from the line of a to the end
// of the line holding offset end (newline included).
func (d *repairDoc) lineSpan(a *yaml.Node, end int) (int, int) {
	start := d.lines[a.Line-1]
	nl := bytes.IndexByte(d.data[end:], '\n')
	if nl < 0 {
		return start, len(d.data)
	}
	return start, end + nl + 1
}

func (d *repairDoc) tasks() *yaml.Node { return mapGet(d.root, "tasks") }

func countKey(m *yaml.Node, key string) int {
	n := 0
	for _, p := range pairs(m) {
		if p.k.Value == key {
			n++
		}
	}
	return n
}

// findTasksList turns a tasks: list of {id: x, ...} items into a map keyed
// by id, where every item starts with its id on the dash line.
func findTasksList(d *repairDoc) ([]edit, []RepairStep, []string) {
	tk, tn := mapKey(d.root, "tasks"), d.tasks()
	if !isSeq(tn) || len(tn.Content) == 0 {
		return nil, nil, nil
	}
	const rule = "tasks-list-to-map"
	if tn.Style&yaml.FlowStyle != 0 {
		return nil, nil, []string{rule + ": tasks: is a flow list; rewrite it as a map by hand"}
	}
	seen := map[string]bool{}
	var edits []edit
	var steps []RepairStep
	for _, it := range tn.Content {
		if !isMap(it) || len(it.Content) < 2 {
			return nil, nil, []string{fmt.Sprintf("%s: the item at line %d is not a task map; stopped rather than guess", rule, it.Line)}
		}
		k, v := it.Content[0], it.Content[1]
		if k.Value != "id" || countKey(it, "id") != 1 {
			return nil, nil, []string{fmt.Sprintf("%s: the item at line %d does not start with its id:; stopped rather than guess", rule, it.Line)}
		}
		if !isStr(v) || !snakeRe.MatchString(v.Value) || seen[v.Value] {
			return nil, nil, []string{fmt.Sprintf("%s: the id at line %d is missing, not snake_case or repeated; stopped rather than guess", rule, v.Line)}
		}
		seen[v.Value] = true
		off := d.offset(k)
		if off < 2 || d.data[off-2] != '-' || d.data[off-1] != ' ' || k.Column-2 <= tk.Column-1 {
			return nil, nil, []string{fmt.Sprintf("%s: the item at line %d is not indented under tasks:; stopped rather than guess", rule, it.Line)}
		}
		end := d.end(v)
		if end < 0 {
			return nil, nil, []string{fmt.Sprintf("%s: cannot locate the id at line %d", rule, v.Line)}
		}
		edits = append(edits, edit{off - 2, end, v.Value + ":"})
		steps = append(steps, RepairStep{Rule: rule, Line: it.Line, Description: fmt.Sprintf("the list item with id %s became the task key %s:", v.Value, v.Value)})
	}
	// An item whose only key is id would leave an empty task: fine for
	// the checker to report.
	return edits, steps, nil
}

// findNikaV1 moves a workflow id onto the nika: line.
func findNikaV1(d *repairDoc) ([]edit, []RepairStep, []string) {
	const rule = "nika-v1-to-id"
	nv := mapGet(d.root, "nika")
	wk, wv := mapKey(d.root, "workflow"), mapGet(d.root, "workflow")
	if !isScalar(nv) || nv.Value != "v1" {
		return nil, nil, nil
	}
	if wk == nil {
		return nil, nil, []string{rule + ": nika: v1 names no workflow; write the file's kebab-case name on the nika: line"}
	}
	if countKey(d.root, "workflow") != 1 || countKey(d.root, "nika") != 1 {
		return nil, nil, []string{rule + ": nika: or workflow: is repeated; stopped rather than guess"}
	}
	id := ""
	var dropped []string
	switch {
	case isStr(wv):
		id = wv.Value
	case isMap(wv):
		if iv := mapGet(wv, "id"); isStr(iv) {
			id = iv.Value
		}
		for _, p := range pairs(wv) {
			if p.k.Value != "id" {
				dropped = append(dropped, p.k.Value)
			}
		}
	}
	if !kebabRe.MatchString(id) {
		return nil, nil, []string{rule + ": the workflow id is missing or not kebab-case; stopped rather than guess"}
	}
	nEnd, wEnd := d.end(nv), d.end(wv)
	if nEnd < 0 || wEnd < 0 {
		return nil, nil, []string{rule + ": cannot locate the nika: or workflow: value"}
	}
	ws, we := d.lineSpan(wk, wEnd)
	edits := []edit{{d.offset(nv), nEnd, id}, {ws, we, ""}}
	var notes []string
	if len(dropped) > 0 {
		notes = append(notes, fmt.Sprintf("%s: workflow.%s had no living home and was dropped", rule, strings.Join(dropped, ", workflow.")))
	}
	return edits, []RepairStep{{Rule: rule, Line: nv.Line, Description: "nika: v1 and workflow: " + id + " became nika: " + id}}, notes
}

// shellMeta marks a command line that needs a shell.
const shellMeta = "|&;<>()$`\\\"'*?[]#~=%{}!\n\t"

// findExecString rewrites exec: "<line>" into the argv form (a plain list of
// words) or the explicit shell door, and a string command: into shell:.
func findExecString(d *repairDoc) ([]edit, []RepairStep, []string) {
	const rule = "exec-string"
	var edits []edit
	var steps []RepairStep
	var notes []string
	for _, p := range pairs(d.tasks()) {
		ek, ev := mapKey(p.v, "exec"), mapGet(p.v, "exec")
		if ek == nil || countKey(p.v, "exec") != 1 {
			continue
		}
		switch {
		case isStr(ev):
			end := d.end(ev)
			if end < 0 || strings.TrimSpace(ev.Value) == "" {
				notes = append(notes, fmt.Sprintf("%s: cannot rewrite the exec: string of task %s; rewrite it by hand", rule, p.k.Value))
				continue
			}
			line := strings.TrimSpace(ev.Value)
			var text, desc string
			if strings.ContainsAny(line, shellMeta) {
				text = "{ shell: " + strconv.Quote(line) + " }"
				desc = "the exec: string of task " + p.k.Value + " became exec: { shell: ... }"
			} else {
				words := strings.Fields(line)
				q := make([]string, len(words))
				for i, w := range words {
					q[i] = strconv.Quote(w)
				}
				text = "{ command: [" + strings.Join(q, ", ") + "] }"
				desc = "the exec: string of task " + p.k.Value + " became an argv command:"
			}
			edits = append(edits, edit{d.offset(ev), end, text})
			steps = append(steps, RepairStep{Rule: rule, Line: ev.Line, Description: desc})
		case isMap(ev):
			ck, cv := mapKey(ev, "command"), mapGet(ev, "command")
			if ck == nil || !isStr(cv) {
				continue
			}
			if mapKey(ev, "shell") != nil || countKey(ev, "command") != 1 {
				notes = append(notes, fmt.Sprintf("%s: task %s carries command: and shell:; stopped rather than guess", rule, p.k.Value))
				continue
			}
			if !d.at(ck, "command") {
				notes = append(notes, fmt.Sprintf("%s: cannot locate command: of task %s", rule, p.k.Value))
				continue
			}
			off := d.offset(ck)
			edits = append(edits, edit{off, off + len("command"), "shell"})
			steps = append(steps, RepairStep{Rule: rule, Line: ck.Line, Description: "the string command: of task " + p.k.Value + " became shell:"})
		}
	}
	return edits, steps, notes
}

// findNeeds turns needs: into after: { x: success } edges.
func findNeeds(d *repairDoc) ([]edit, []RepairStep, []string) {
	const rule = "needs-to-after"
	var edits []edit
	var steps []RepairStep
	var notes []string
	for _, p := range pairs(d.tasks()) {
		nk, nv := mapKey(p.v, "needs"), mapGet(p.v, "needs")
		if nk == nil {
			continue
		}
		if countKey(p.v, "needs") != 1 || mapKey(p.v, "after") != nil {
			notes = append(notes, fmt.Sprintf("%s: task %s already has after: or repeats needs:; merge them by hand", rule, p.k.Value))
			continue
		}
		var targets []string
		switch {
		case isStr(nv):
			targets = []string{nv.Value}
		case isSeq(nv):
			for _, it := range nv.Content {
				if !isStr(it) {
					targets = nil
					break
				}
				targets = append(targets, it.Value)
			}
		}
		ok := len(targets) > 0
		seen := map[string]bool{}
		for _, t := range targets {
			if !snakeRe.MatchString(t) || seen[t] {
				ok = false
			}
			seen[t] = true
		}
		end := d.end(nv)
		if !ok || end < 0 || !d.at(nk, "needs") {
			notes = append(notes, fmt.Sprintf("%s: the needs: of task %s is not a plain list of task ids; stopped rather than guess", rule, p.k.Value))
			continue
		}
		parts := make([]string, len(targets))
		for i, t := range targets {
			parts[i] = t + ": success"
		}
		edits = append(edits, edit{d.offset(nk), end, "after: { " + strings.Join(parts, ", ") + " }"})
		steps = append(steps, RepairStep{Rule: rule, Line: nk.Line, Description: "needs: of task " + p.k.Value + " became after: { " + strings.Join(parts, ", ") + " }"})
	}
	return edits, steps, notes
}

// findParticiples rewrites the dead predicate spellings succeeded/failed.
func findParticiples(d *repairDoc) ([]edit, []RepairStep, []string) {
	const rule = "participle-predicates"
	repl := map[string]string{"succeeded": "success", "failed": "failure"}
	var edits []edit
	var steps []RepairStep
	var notes []string
	for _, p := range pairs(d.tasks()) {
		for _, q := range pairs(mapGet(p.v, "after")) {
			to, ok := repl[q.v.Value]
			if !ok || !isStr(q.v) {
				continue
			}
			off := d.offset(q.v)
			if q.v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
				off++
			}
			if off < 0 || !bytes.HasPrefix(d.data[off:], []byte(q.v.Value)) {
				notes = append(notes, fmt.Sprintf("%s: cannot locate the predicate of task %s", rule, p.k.Value))
				continue
			}
			edits = append(edits, edit{off, off + len(q.v.Value), to})
			steps = append(steps, RepairStep{Rule: rule, Line: q.v.Line, Description: fmt.Sprintf("after: { %s: %s } became %s", q.k.Value, q.v.Value, to)})
		}
		wh := mapGet(p.v, "when")
		if !isStr(wh) {
			continue
		}
		for from, to := range repl {
			for _, lit := range []string{"'" + from + "'", "\"" + from + "\""} {
				cnt := strings.Count(wh.Value, lit)
				if cnt == 0 {
					continue
				}
				start, end := d.offset(wh), d.end(wh)
				if start < 0 || end < 0 {
					notes = append(notes, fmt.Sprintf("%s: the when: of task %s is not on one line; rewrite %s by hand", rule, p.k.Value, from))
					continue
				}
				raw := string(d.data[start:end])
				if cnt != 1 || strings.Count(raw, lit) != 1 {
					notes = append(notes, fmt.Sprintf("%s: %s appears more than once in the when: of task %s; stopped rather than guess", rule, lit, p.k.Value))
					continue
				}
				i := start + strings.Index(raw, lit) + 1
				edits = append(edits, edit{i, i + len(from), to})
				steps = append(steps, RepairStep{Rule: rule, Line: wh.Line, Description: fmt.Sprintf("'%s' in the when: of task %s became '%s'", from, p.k.Value, to)})
			}
		}
	}
	return edits, steps, notes
}

// renameTaskKey renames a dead key of a task (verb "") or of a verb body to
// its living name, where the living name is not already taken.
func renameTaskKey(rule, from, to, verb string) func(d *repairDoc) ([]edit, []RepairStep, []string) {
	return func(d *repairDoc) ([]edit, []RepairStep, []string) {
		var edits []edit
		var steps []RepairStep
		var notes []string
		for _, p := range pairs(d.tasks()) {
			m := p.v
			where := "task " + p.k.Value
			if verb != "" {
				m = mapGet(p.v, verb)
				where = verb + ": of task " + p.k.Value
			}
			k := mapKey(m, from)
			if k == nil {
				continue
			}
			taken := mapKey(m, to) != nil
			switch {
			case verb == "exec" && to == "command":
				taken = taken || mapKey(m, "shell") != nil
			case verb == "on_error":
				taken = taken || mapKey(m, "skip") != nil || mapKey(m, "fallback") != nil && mapKey(m, "value") != nil
			}
			if taken || countKey(m, from) != 1 {
				notes = append(notes, fmt.Sprintf("%s: %s already has %s: or repeats %s:; stopped rather than guess", rule, where, to, from))
				continue
			}
			if verb == "" && from == "output" && !isMap(mapGet(m, from)) {
				notes = append(notes, fmt.Sprintf("%s: the output: of %s is not a map of bindings; stopped rather than guess", rule, where))
				continue
			}
			if !d.at(k, from) {
				notes = append(notes, fmt.Sprintf("%s: cannot locate %s: in %s", rule, from, where))
				continue
			}
			off := d.offset(k)
			edits = append(edits, edit{off, off + len(from), to})
			steps = append(steps, RepairStep{Rule: rule, Line: k.Line, Description: fmt.Sprintf("%s: became %s: in %s", from, to, where)})
		}
		return edits, steps, notes
	}
}

// findBareTimeouts quotes a task timeout written as a plain scalar.
func findBareTimeouts(d *repairDoc) ([]edit, []RepairStep, []string) {
	const rule = "quote-timeout"
	var edits []edit
	var steps []RepairStep
	for _, p := range pairs(d.tasks()) {
		v := mapGet(p.v, "timeout")
		if !isScalar(v) || v.Style != 0 || !durationRe.MatchString(v.Value) || countKey(p.v, "timeout") != 1 {
			continue
		}
		end := d.end(v)
		if end < 0 {
			continue
		}
		edits = append(edits, edit{d.offset(v), end, strconv.Quote(v.Value)})
		steps = append(steps, RepairStep{Rule: rule, Line: v.Line, Description: "the timeout of task " + p.k.Value + " was quoted"})
	}
	return edits, steps, nil
}

// findUndecidable names the dead forms whose repair needs a human: the
// checker explains them, the prepass never guesses.
func findUndecidable(d *repairDoc) ([]edit, []RepairStep, []string) {
	const rule = "dead-forms-for-a-human"
	var notes []string
	for _, k := range []string{"vars", "env", "config", "policy", "types"} {
		if mapKey(d.root, k) != nil {
			notes = append(notes, fmt.Sprintf("%s: the %s: block is dead and each entry needs a human to classify it (inputs:, const: or secrets:); not repaired", rule, k))
		}
	}
	for _, p := range pairs(d.tasks()) {
		if mapKey(p.v, "depends_on") != nil {
			notes = append(notes, fmt.Sprintf("%s: depends_on: of task %s needs a choice between a with: data edge and an after: control edge; not repaired", rule, p.k.Value))
		}
	}
	return nil, nil, notes
}
