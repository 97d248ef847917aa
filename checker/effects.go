package checker

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// effectSet accumulates the rows of Effects.
type effectSet struct {
	reads, writes, network, programs, tools, pauses, env, models, secrets []string
	spend                                                                 string
}

func (w *workflow) collectEffects(needs []need) *effectSet {
	e := &effectSet{}
	dyn := func(t *task) string { return "(decided at run time by task " + t.id + ")" }
	for _, nd := range needs {
		v := nd.value
		switch nd.cat {
		case "fs.read":
			if v == "" {
				v = dyn(nd.task)
			}
			e.reads = append(e.reads, v)
		case "fs.write":
			if v == "" {
				v = dyn(nd.task)
			}
			e.writes = append(e.writes, v)
		case "net":
			if v == "" {
				v = dyn(nd.task)
			}
			e.network = append(e.network, v)
		case "exec":
			switch {
			case nd.shell:
				e.programs = append(e.programs, "sh -c "+clip(nd.line))
			case v != "":
				e.programs = append(e.programs, v)
			default:
				e.programs = append(e.programs, dyn(nd.task))
			}
		}
	}
	for _, t := range w.tasks {
		if t.tool != "" {
			e.tools = append(e.tools, t.tool)
		}
		if t.verb == "invoke" {
			if wf := mapGet(t.verbNode, "workflow"); isStr(wf) {
				e.tools = append(e.tools, "workflow "+wf.Value)
			}
		}
		if t.verb == "agent" {
			if tl := mapGet(t.verbNode, "tools"); isSeq(tl) {
				for _, it := range tl.Content {
					if isStr(it) {
						e.tools = append(e.tools, it.Value+" (agent "+t.id+")")
					}
				}
			}
		}
		if w.confirmGate(t) || t.tool == "nika:prompt" {
			msg := ""
			if m := mapGet(t.args, "message"); isStr(m) {
				msg = ": " + clip(m.Value)
			}
			e.pauses = append(e.pauses, t.id+msg)
		}
		if t.verb == "infer" || t.verb == "agent" {
			m := w.model
			if tm := mapGet(t.verbNode, "model"); isStr(tm) {
				m = tm.Value
			}
			if m == "" {
				m = "(the engine's default model)"
			}
			e.models = append(e.models, m)
		}
		if t.verb == "exec" {
			for _, p := range pairs(mapGet(t.verbNode, "env")) {
				e.env = append(e.env, p.k.Value+" (set by task "+t.id+")")
			}
		}
		for _, r := range append(append([]ref{}, t.bodyRefs...), flatten(t.withRefs)...) {
			if r.root == "secrets" && len(r.path) > 0 {
				e.secrets = append(e.secrets, r.path[0].name)
			}
		}
	}
	if w.permits != nil {
		for _, n := range w.permits.env {
			e.env = append(e.env, n+" (passed through)")
		}
	}
	e.spend = w.spend()
	return e
}

func flatten(m map[string][]ref) []ref {
	var out []ref
	for _, k := range sortedKeys(m) {
		out = append(out, m[k]...)
	}
	return out
}

// spend says whether the model spend is bounded by the file itself.
func (w *workflow) spend() string {
	calls, tokens := 0, int64(0)
	for _, t := range w.tasks {
		if t.verb != "infer" && t.verb != "agent" {
			continue
		}
		if f := mapGet(t.body, "for_each"); f != nil {
			if !isSeq(mapGet(f, "items")) {
				return "unbounded: task " + t.id + " calls a model once per item of a collection known only at run time"
			}
		}
		iter := int64(1)
		if f := mapGet(t.body, "for_each"); f != nil {
			iter = int64(len(mapGet(f, "items").Content))
		}
		attempts := int64(1)
		if n, ok := intVal(mapGet(mapGet(t.body, "retry"), "max_attempts")); ok && n > 0 {
			attempts = n
		}
		switch t.verb {
		case "infer":
			mt, ok := intVal(mapGet(t.verbNode, "max_tokens"))
			if !ok {
				return "unbounded: task " + t.id + " sets no max_tokens"
			}
			calls += int(iter * attempts)
			tokens += mt * iter * attempts
		case "agent":
			turns, ok1 := intVal(mapGet(t.verbNode, "max_turns"))
			total, ok2 := intVal(mapGet(t.verbNode, "max_tokens_total"))
			if !ok2 {
				return "unbounded: agent " + t.id + " sets no max_tokens_total"
			}
			if !ok1 {
				turns = 10
			}
			calls += int(turns * iter * attempts)
			tokens += total * iter * attempts
		}
	}
	if calls == 0 {
		return "bounded: no model calls"
	}
	return fmt.Sprintf("bounded: at most %d model calls and %d output tokens", calls, tokens)
}

// effects renders the rows.
func (w *workflow) effects() *Effects {
	e := w.eff
	if e == nil {
		e = w.collectEffects(nil)
	}
	return &Effects{
		Reads: uniqSorted(e.reads), Writes: uniqSorted(e.writes), Network: uniqSorted(e.network),
		Programs: uniqSorted(e.programs), Tools: uniqSorted(e.tools), Pauses: uniqSorted(e.pauses),
		Env: uniqSorted(e.env), Models: uniqSorted(e.models), Secrets: uniqSorted(e.secrets), Spend: e.spend,
	}
}

// checkProject judges a project file (nika.yaml): a closed grammar that
// names the project and carries no task graph.
func (c *checker) checkProject(root *yaml.Node) {
	if root.Kind != yaml.MappingNode {
		c.add("NIKA-PARSE-019", root, "write nika: <project-name>", "a project file is a map, found %s", kindName(root))
		return
	}
	for _, p := range pairs(root) {
		switch p.k.Value {
		case "nika":
		case "tasks":
			c.add("NIKA-PARSE-019", p.k, "move the task graph into a <name>.nika.yaml workflow", "a project file carries no tasks:; a tasks: key makes a workflow")
		default:
			c.add("NIKA-PARSE-005", p.k, "remove the key; a project file holds its nika: name", "unknown key %q in the project file", p.k.Value)
		}
	}
	nv := mapGet(root, "nika")
	switch {
	case nv == nil:
		c.add("NIKA-PARSE-002", root, "add nika: <project-name>", "the project file has no nika: name")
	case !isStr(nv) || !kebabRe.MatchString(nv.Value):
		c.add("NIKA-PARSE-003", nv, "write the project's kebab-case name", "nika: %q is not a kebab-case name", strings.TrimSpace(nv.Value))
	}
}
