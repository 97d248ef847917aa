package checker

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// The settled states of a task, as a set of bits.
type states uint8

const (
	stSuccess states = 1 << iota
	stFailure
	stSkipped
	stCancelled
	stAll = stSuccess | stFailure | stSkipped | stCancelled
)

func (s states) String() string {
	var out []string
	for _, x := range []struct {
		b    states
		name string
	}{{stSuccess, "success"}, {stFailure, "failure"}, {stSkipped, "skipped"}, {stCancelled, "cancelled"}} {
		if s&x.b != 0 {
			out = append(out, x.name)
		}
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, ", ")
}

// gateEdge is one incoming scheduling edge of a task, with its pass-set
// (03-dag.md §the gate algebra v2).
type gateEdge struct {
	from string
	pass states
	node *yaml.Node // where the edge is written
	role string     // how it reads, for the message
}

// gateEdges lists the incoming edges of t: with: references by the field
// they read (value, terminal observation, failure observation), group
// fan-ins, and after: predicates. unwind edges never enter G_p.
func (w *workflow) gateEdges(t *task) []gateEdge {
	var out []gateEdge
	for _, name := range sortedKeys(t.withRefs) {
		node := t.with[name]
		for _, r := range t.withRefs[name] {
			switch {
			case r.root == "tasks" && len(r.path) > 1:
				if _, ok := w.byID[r.path[0].name]; !ok {
					continue
				}
				e := gateEdge{from: r.path[0].name, node: node}
				switch r.path[1].name {
				case "status", "duration_ms", "started_at", "ended_at":
					e.pass, e.role = stAll, "observes the outcome of"
				case "error":
					e.pass, e.role = stFailure|stSkipped, "reads the error of"
				default:
					e.pass, e.role = stSuccess|stSkipped, "reads the value of"
				}
				out = append(out, e)
			case r.root == "group" && len(r.path) > 0:
				for _, m := range w.groups[r.path[0].name] {
					out = append(out, gateEdge{from: m, pass: stAll, node: node, role: "folds"})
				}
			}
		}
	}
	for _, a := range t.after {
		if _, ok := w.byID[a.target]; !ok {
			continue
		}
		e := gateEdge{from: a.target, node: a.key, role: "waits for " + a.pred + " of"}
		switch a.pred {
		case "success":
			e.pass = stSuccess
		case "failure":
			e.pass = stFailure
		case "skipped":
			e.pass = stSkipped
		case "terminal":
			e.pass = stAll
		default:
			continue // unwind: cleanup never enters G_p; unknown: NIKA-DAG-005
		}
		out = append(out, e)
	}
	return out
}

// ownStates are the states a task that is admitted can settle to: a
// literal when: false settles only skipped; a task with no when: and no
// skip route (on_error: { skip: true }) never settles skipped; cancelled
// is always reachable.
func ownStates(t *task) states {
	if b, ok := boolVal(t.when); ok && !b {
		return stSkipped | stCancelled
	}
	s := stSuccess | stFailure | stCancelled
	if t.when != nil {
		if b, ok := boolVal(t.when); !ok || !b {
			s |= stSkipped
		}
	}
	if o := mapGet(t.body, "on_error"); isMap(o) {
		if b, ok := boolVal(mapGet(o, "skip")); ok && b {
			s |= stSkipped
		}
	}
	return s
}

// liveness is the static liveness check (03-dag.md §static liveness):
// each task's reachable settled states are folded along G_p, and a task
// with an incoming edge whose pass-set excludes every reachable state of
// its producer is provably dead, cancelled on every run: NIKA-DAG-006.
// Like the reference engine it tests each edge on its own, so it is sound
// (a refused task is dead) and incomplete (a death that needs a
// correlation between two producers is not seen).
func (w *workflow) liveness() {
	reach := map[string]states{}
	visiting := map[string]bool{}
	var settle func(t *task) states
	settle = func(t *task) states {
		if s, ok := reach[t.id]; ok {
			return s
		}
		if visiting[t.id] || len(t.unwinds) > 0 {
			return stAll // a cycle (NIKA-DAG-001) or cleanup: claim nothing
		}
		visiting[t.id] = true
		defer delete(visiting, t.id)
		s := ownStates(t)
		for _, e := range w.gateEdges(t) {
			p := w.byID[e.from]
			ps := settle(p)
			if ps&e.pass != 0 {
				continue
			}
			s = stCancelled
			why := "it can only settle " + ps.String()
			switch {
			case ps == stCancelled:
				why = "it is itself dead and only ever settles cancelled"
			case ps == stSkipped|stCancelled:
				why = "it has when: false and can only settle skipped"
			}
			fix := "use after: { " + e.from + ": terminal }, or drop the edge"
			if e.pass == stSkipped {
				fix = "give " + e.from + " a when: or on_error: { skip: true }, or drop the edge"
			}
			w.c.add("NIKA-DAG-006", e.node, fix, "task %q can never run: it %s %q, which never settles %s (%s)", t.id, e.role, e.from, e.pass.String(), why)
			break
		}
		reach[t.id] = s
		return s
	}
	for _, t := range w.tasks {
		settle(t)
	}
}
