package checker

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// surface names where an expression sits; it decides which roots it may
// read.
type surface int

const (
	surfEnvelope surface = iota // envelope values (model)
	surfWith                    // a with: binding value
	surfWhen                    // a when: condition
	surfForEach                 // the for_each collection
	surfBody                    // a verb field
	surfRecover                 // on_error.recover
	surfOutputs                 // workflow outputs:
)

var projections = map[string]bool{"output": true, "status": true, "error": true, "started_at": true, "ended_at": true, "duration_ms": true}

// walkStrings calls f on every string scalar under n.
func walkStrings(n *yaml.Node, f func(*yaml.Node)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			f(n)
		}
	case yaml.MappingNode, yaml.SequenceNode, yaml.DocumentNode:
		for _, ch := range n.Content {
			walkStrings(ch, f)
		}
	}
}

// exprsIn parses the islands of one string node and resolves their
// references on a surface of task t (nil outside a task). It returns the
// references it found.
func (c *checker) exprsIn(t *task, n *yaml.Node, s surface, w *workflow) []ref {
	isl, unclosed := islands(n.Value)
	if unclosed >= 0 {
		c.add("NIKA-VAR-008", c.islandPos(n, unclosed), "close the expression with }}, or write \\${{ for a literal", "an unclosed ${{ in %q", clip(n.Value))
	}
	var out []ref
	for _, is := range isl {
		at := c.islandPos(n, is.start)
		e, err := c.parseCEL(is.expr)
		if err != nil {
			if strings.TrimSpace(is.expr) == "" {
				c.add("NIKA-VAR-005", at, "put an expression inside ${{ }}", "an empty ${{ }}")
				continue
			}
			c.add("NIKA-VAR-005", at, "keep to the cel-subset/0.1 grammar", "${{ %s }} is outside the expression subset: %v", clip(is.expr), err)
			continue
		}
		for _, r := range refs(e) {
			if w.resolve(t, at, s, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

func clip(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func refText(r ref) string {
	var b strings.Builder
	b.WriteString(r.root)
	for _, s := range r.path {
		if s.index {
			b.WriteString("[…]")
		} else {
			b.WriteString(".")
			b.WriteString(s.name)
		}
	}
	return b.String()
}

// resolve judges one reference; it reports whether the reference is
// well formed (and worth recording for the later passes).
func (w *workflow) resolve(t *task, n *yaml.Node, s surface, r ref) bool {
	c := w.c
	first := ""
	if len(r.path) > 0 && !r.path[0].index {
		first = r.path[0].name
	}
	switch r.root {
	case "inputs", "const", "secrets":
		if first == "" {
			c.add("NIKA-VAR-001", n, "read one entry, e.g. "+r.root+".<name>", "bare %s is not a value", r.root)
			return false
		}
		var declared bool
		switch r.root {
		case "inputs":
			_, declared = w.inputs[first]
		case "const":
			_, declared = w.consts[first]
		default:
			_, declared = w.secrets[first]
		}
		if !declared && !r.inHas {
			var decl map[string]bool // the names, for the suggestion
			switch r.root {
			case "inputs":
				decl = keysOf(w.inputs)
			case "const":
				decl = keysOf(w.consts)
			default:
				decl = map[string]bool{}
				for k := range w.secrets {
					decl[k] = true
				}
			}
			c.add("NIKA-VAR-001", n, "declare it under "+r.root+":"+didYouMean(first, sortedKeys(decl)), "%s.%s is not declared", r.root, first)
			return false
		}
		return true
	case "with":
		if t == nil || s == surfOutputs || s == surfEnvelope {
			c.add("NIKA-VAR-001", n, "with. is only readable inside a task", "%s has no task scope here", refText(r))
			return false
		}
		if first == "" {
			c.add("NIKA-VAR-001", n, "read one binding, e.g. with.<name>", "bare with is not a value")
			return false
		}
		if _, ok := t.with[first]; !ok && !r.inHas {
			c.add("NIKA-VAR-001", n, "declare the binding in the task's with:"+didYouMean(first, sortedKeys(t.with)), "with.%s is not declared by task %q", first, t.id)
			return false
		}
		return true
	case "item", "index":
		switch {
		case t == nil || s == surfOutputs || s == surfEnvelope:
			c.add("NIKA-VAR-001", n, "", "%s is a for_each loop local and has no meaning here", r.root)
			return false
		case s == surfForEach:
			c.add("NIKA-VAR-005", n, "the collection is evaluated before the loop exists; do not read "+r.root+" in it", "for_each.items reads the loop local %s", r.root)
			return false
		case !t.forEach:
			c.add("NIKA-VAR-001", n, "add for_each: to the task, or read a declared value", "%s is read outside a for_each task", r.root)
			return false
		}
		return true
	case "tasks":
		return w.resolveTasks(t, n, s, r)
	case "group":
		if s != surfWith {
			c.add("NIKA-VAR-021", n, "bind the fold in with: { legs: ${{ group.<name> }} } and read with.legs", "group.* may only be read in a with: binding")
			return false
		}
		if first == "" {
			c.add("NIKA-DAG-008", n, "name a declared group: group.<name>", "bare group names no group")
			return false
		}
		if len(w.groups[first]) == 0 {
			c.add("NIKA-DAG-008", n, "declare group: "+first+" on the member tasks"+didYouMean(first, sortedKeys(w.groups)), "no task declares group %q", first)
			return false
		}
		return true
	case "vars":
		c.add("NIKA-VALUES-001", n, "declare the value under inputs: or const: and read it there", "the vars. namespace is dead")
	case "env":
		c.add("NIKA-VALUES-002", n, "declare the value as an inputs: entry, or a secret with source: env", "the env. namespace is dead")
	case "config", "params":
		c.add("NIKA-VALUES-003", n, "read inputs., const. or secrets.", "%s. is not a value namespace", r.root)
	default:
		c.add("NIKA-VAR-001", n, "use inputs., const., secrets., with. or tasks."+didYouMean(r.root, []string{"inputs", "const", "secrets", "with", "tasks", "item", "index"}), "unknown namespace %q", r.root)
	}
	return false
}

func keysOf(m map[string]*yaml.Node) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

func (w *workflow) resolveTasks(t *task, n *yaml.Node, s surface, r ref) bool {
	c := w.c
	if len(r.path) == 0 {
		c.add("NIKA-VAR-020", n, "read one task's field, e.g. tasks.<id>.output (a fold is group.<name>)", "bare tasks is a namespace, not a value")
		return false
	}
	id := r.path[0].name
	allowed := s == surfWith || s == surfRecover || s == surfOutputs
	if (s == surfBody || s == surfWhen || s == surfForEach) && t != nil {
		for _, u := range t.unwinds {
			if u == id {
				allowed = true
			}
		}
	}
	if !allowed {
		fix := "bind it in the task's with: { " + id + ": \"${{ " + refText(r) + " }}\" } and read ${{ with." + id + " }}"
		if t != nil && len(t.unwinds) > 0 && s == surfBody {
			fix = "an unwind task reads only the task it unwinds"
		}
		c.add("NIKA-VAR-021", n, fix, "tasks.%s is read outside the boundary", id)
		return false
	}
	p, ok := w.byID[id]
	if !ok {
		code := "NIKA-VAR-001"
		if s == surfWith {
			code = "NIKA-DAG-002"
		}
		c.add(code, n, "name a declared task"+didYouMean(id, w.ids()), "task %q is not declared", id)
		return false
	}
	if len(r.path) == 1 {
		c.add("NIKA-VAR-020", n, "pick tasks."+id+".output (or .status, .error, .duration_ms)", "bare tasks.%s is the record, not a value", id)
		return false
	}
	field := r.path[1]
	if field.index || (!projections[field.name] && !p.extracts[field.name]) {
		c.add("NIKA-VAR-001", n, "read .output, .status, .error, .duration_ms or a declared extract: binding", "tasks.%s has no field %q", id, field.name)
		return false
	}
	if field.name == "output" && len(r.path) > 2 {
		w.walkOutput(p, n, r.path[2:])
	}
	return true
}

// walkOutput checks a path into a producer's declared output shape.
func (w *workflow) walkOutput(p *task, n *yaml.Node, path []seg) {
	if p.returns != nil {
		if bad := walkType(p.returns, path); bad != "" {
			w.c.add("NIKA-VAR-003", n, "declare the member in returns:, or fix the path", "tasks.%s.output has no member %q in its returns: type", p.id, bad)
		}
		return
	}
	if p.schema != nil && isMap(p.schema) {
		if bad := walkSchema(p.schema, path); bad != "" {
			w.c.add("NIKA-VAR-003", n, "declare the key in the schema's properties:, or open the level with additionalProperties: true", "tasks.%s.output has no member %q in its schema", p.id, bad)
		}
	}
}

// walkSchema follows a path through the walkable subset of a JSON Schema
// and returns the first provably invalid step, or "".
func walkSchema(level *yaml.Node, path []seg) string {
	for _, st := range path {
		if !isMap(level) {
			return ""
		}
		for _, open := range []string{"$ref", "oneOf", "anyOf", "allOf", "patternProperties", "not", "if"} {
			if mapGet(level, open) != nil {
				return ""
			}
		}
		typ := mapGet(level, "type")
		if typ == nil {
			return ""
		}
		has := func(name string) bool {
			if isStr(typ) {
				return typ.Value == name
			}
			items, _ := strs(typ)
			return oneOf(name, items...)
		}
		if st.index {
			if !has("array") {
				return "[index]"
			}
			level = mapGet(level, "items")
			continue
		}
		if !has("object") {
			return st.name
		}
		props := mapGet(level, "properties")
		ap := mapGet(level, "additionalProperties")
		if isMap(props) {
			if v := mapGet(props, st.name); v != nil {
				level = v
				continue
			}
			if ap != nil && !(isBool(ap) && ap.Value == "false") {
				return ""
			}
			return st.name
		}
		if isBool(ap) && ap.Value == "false" {
			return st.name
		}
		return ""
	}
	return ""
}

// walkType follows a path through a type expression.
func walkType(t *yaml.Node, path []seg) string {
	for _, st := range path {
		switch {
		case t == nil:
			return ""
		case isScalar(t):
			if oneOf(t.Value, "bool", "integer", "number", "string", "bytes", "uri", "path", "duration", "timestamp", "null") || isNull(t) {
				if st.index {
					return "[index]"
				}
				return st.name
			}
			return ""
		case !isMap(t):
			return ""
		}
		switch {
		case mapGet(t, "object") != nil:
			if st.index {
				return "[index]"
			}
			f := mapGet(mapGet(t, "object"), st.name)
			if f == nil {
				if a := mapGet(t, "additional"); isBool(a) && a.Value == "true" {
					return ""
				}
				return st.name
			}
			if o := mapGet(f, "optional"); isMap(f) && o != nil {
				f = o
			}
			t = f
		case mapGet(t, "array") != nil:
			if !st.index {
				return st.name
			}
			t = mapGet(t, "array")
		case mapGet(t, "map") != nil:
			t = mapGet(t, "map")
		case mapGet(t, "enum") != nil, mapGet(t, "string") != nil, mapGet(t, "integer") != nil, mapGet(t, "number") != nil:
			if st.index {
				return "[index]"
			}
			return st.name
		default:
			return ""
		}
	}
	return ""
}

// taskRefs resolves every expression of a task, surface by surface.
func (w *workflow) taskRefs(t *task) {
	c := w.c
	b := t.body
	if !isMap(b) {
		return
	}
	if wn := mapGet(b, "with"); isMap(wn) {
		for _, p := range pairs(wn) {
			name := p.k.Value
			walkStrings(p.v, func(n *yaml.Node) {
				rs := c.exprsIn(t, n, surfWith, w)
				t.withRefs[name] = append(t.withRefs[name], rs...)
			})
		}
	}
	if wh := mapGet(b, "when"); isStr(wh) {
		c.exprsIn(t, wh, surfWhen, w)
	}
	if f := mapGet(b, "for_each"); isMap(f) {
		walkStrings(mapGet(f, "items"), func(n *yaml.Node) {
			for _, r := range c.exprsIn(t, n, surfForEach, w) {
				if r.root != "with" || len(r.path) == 0 {
					continue
				}
				for _, wr := range t.withRefs[r.path[0].name] {
					if wr.root == "item" || wr.root == "index" {
						c.add("NIKA-VAR-005", n, "the collection is evaluated before the loop exists; bind it from a value that does not read item or index", "for_each.items reads with.%s, which reads the loop local %s", r.path[0].name, wr.root)
						break
					}
				}
			}
		})
	}
	if t.verbNode != nil {
		walkStrings(t.verbNode, func(n *yaml.Node) {
			t.bodyRefs = append(t.bodyRefs, c.exprsIn(t, n, surfBody, w)...)
		})
	}
	if t.recover != nil {
		walkStrings(t.recover, func(n *yaml.Node) { c.exprsIn(t, n, surfRecover, w) })
	}
	// Every tasks.X read in with: is a data edge; a group fold is one edge
	// per member.
	for _, rs := range t.withRefs {
		for _, r := range rs {
			if r.root == "tasks" && len(r.path) > 0 {
				if _, ok := w.byID[r.path[0].name]; ok {
					t.deps[r.path[0].name] = true
					t.dataDeps[r.path[0].name] = true
				}
			}
			if r.root == "group" && len(r.path) > 0 {
				for _, m := range w.groups[r.path[0].name] {
					t.deps[m] = true
					t.dataDeps[m] = true
				}
			}
		}
	}
	for _, a := range t.after {
		if a.pred == "unwind" {
			continue
		}
		if _, ok := w.byID[a.target]; ok {
			t.deps[a.target] = true
		}
	}
}

func (w *workflow) outputsRefs() {
	for _, p := range pairs(w.outputs) {
		v := p.v
		if isMap(v) {
			v = mapGet(v, "value")
		}
		walkStrings(v, func(n *yaml.Node) { w.c.exprsIn(nil, n, surfOutputs, w) })
	}
}
