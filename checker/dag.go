package checker

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// dag judges the precedence graph G_p (with: data edges and after: control
// edges): cycles, and recovery sources that would deadlock.
func (w *workflow) dag() {
	c := w.c
	// Cycles, by Tarjan's strongly connected components.
	index := map[string]int{}
	low := map[string]int{}
	on := map[string]bool{}
	var stack []string
	next := 0
	var sccs [][]string
	var strong func(id string)
	strong = func(id string) {
		index[id], low[id] = next, next
		next++
		stack = append(stack, id)
		on[id] = true
		for _, d := range sortedKeys(w.byID[id].deps) {
			if _, seen := index[d]; !seen {
				strong(d)
				low[id] = min(low[id], low[d])
			} else if on[d] {
				low[id] = min(low[id], index[d])
			}
		}
		if low[id] == index[id] {
			var comp []string
			for {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[x] = false
				comp = append(comp, x)
				if x == id {
					break
				}
			}
			sccs = append(sccs, comp)
		}
	}
	for _, t := range w.tasks {
		if _, seen := index[t.id]; !seen {
			strong(t.id)
		}
	}
	for _, comp := range sccs {
		if len(comp) == 1 && !w.byID[comp[0]].deps[comp[0]] {
			continue
		}
		// Report at the first task of the cycle in source order.
		in := map[string]bool{}
		for _, id := range comp {
			in[id] = true
		}
		var first *task
		var names []string
		for _, t := range w.tasks {
			if in[t.id] {
				if first == nil {
					first = t
				}
				names = append(names, t.id)
			}
		}
		if len(names) == 1 {
			c.add("NIKA-DAG-001", first.key, "remove the edge from "+first.id+" to itself", "task %q depends on itself", first.id)
		} else {
			c.add("NIKA-DAG-001", first.key, "break one edge of the cycle", "tasks %s form a cycle", strings.Join(names, ", "))
		}
	}
	// Recovery sources must not depend on the failing task.
	for _, t := range w.tasks {
		if t.recover == nil {
			continue
		}
		walkStrings(t.recover, func(n *yaml.Node) {
			isl, _ := islands(n.Value)
			for _, is := range isl {
				e, err := w.c.parseCEL(is.expr)
				if err != nil {
					continue
				}
				for _, r := range refs(e) {
					if r.root != "tasks" || len(r.path) == 0 {
						continue
					}
					src := r.path[0].name
					if _, ok := w.byID[src]; !ok {
						continue
					}
					if src == t.id || w.reaches(t.id, src) {
						c.add("NIKA-DAG-004", n, "recover from a task that does not depend on "+t.id, "task %q recovers from %q, which waits on %q", t.id, src, t.id)
					}
				}
			}
		})
	}
}

// reaches reports whether to depends, transitively, on from in G_p.
func (w *workflow) reaches(from, to string) bool {
	seen := map[string]bool{}
	var visit func(id string) bool
	visit = func(id string) bool {
		if seen[id] {
			return false
		}
		seen[id] = true
		t := w.byID[id]
		if t == nil {
			return false
		}
		for d := range t.deps {
			if d == from || visit(d) {
				return true
			}
		}
		return false
	}
	return visit(to)
}

// successors lists, for each task, the tasks that depend on it directly,
// in source order.
func (w *workflow) successors() map[string][]*task {
	if w.succ != nil {
		return w.succ
	}
	w.succ = map[string][]*task{}
	for _, t := range w.tasks {
		for _, d := range sortedKeys(t.deps) {
			w.succ[d] = append(w.succ[d], t)
		}
	}
	return w.succ
}

// downstream lists the tasks that depend, transitively, on id.
func (w *workflow) downstream(id string) map[string]bool {
	out := map[string]bool{}
	succ := w.successors()
	queue := []string{id}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, t := range succ[x] {
			if !out[t.id] {
				out[t.id] = true
				queue = append(queue, t.id)
			}
		}
	}
	return out
}
