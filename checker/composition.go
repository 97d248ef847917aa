package checker

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Composition (14-composition.md): a task that invokes workflow: calls a
// child as a typed, bounded, authority-contained step. The checker judges
// the ten laws a static check can see: a static target (law 1, NIKA-COMP-
// 001), the typed call (law 2, NIKA-COMP-004), zero implicit authority and
// effect containment (laws 3 and 4, NIKA-COMP-002), and an acyclic call
// graph (law 7, NIKA-COMP-003). The child is read beside the parent from
// the file system the door hands the checker: the proposal's tree, the
// disk, the session's snapshot.

// maxCallDepth bounds how deep a chain of composed children is read.
const maxCallDepth = 16

// registryRe is a pinned registry target: registry:owner/name@version,
// the version exact (semver, optionally v-prefixed).
var registryRe = regexp.MustCompile(`^registry:[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*@v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

// composedChild is what a parent learned of one child it could read.
type composedChild struct {
	path  string
	needs []need // the child's effective authority: its own and its children's
}

// compose judges every invoke: workflow: task.
func (w *workflow) compose() {
	for _, t := range w.tasks {
		if t.verb != "invoke" {
			continue
		}
		wf := mapGet(t.verbNode, "workflow")
		if !isStr(wf) {
			continue
		}
		target := strings.TrimSpace(wf.Value)
		switch {
		case hasTemplate(wf.Value) || target == "":
			w.c.add("NIKA-COMP-001", wf, "name the child by a static relative path", "the child workflow %q is not statically resolvable", wf.Value)
			continue
		case strings.HasPrefix(target, "registry:"):
			if !registryRe.MatchString(target) {
				w.c.add("NIKA-COMP-001", wf, "pin the child: registry:owner/name@1.2.3", "the registry target %q is not pinned to an exact owner/name@version", target)
			}
			continue // a pinned registry child resolves through the lock, not beside the file
		case strings.Contains(target, "://") || strings.HasPrefix(target, "~"):
			w.c.add("NIKA-COMP-001", wf, "name the child by a path relative to this workflow, or a pinned registry:owner/name@version", "the child workflow %q is neither a relative path nor a registry reference", target)
			continue
		}
		self := path.Clean(strings.ReplaceAll(w.c.path, "\\", "/"))
		childPath := path.Clean(path.Join(path.Dir(self), target))
		if !path.IsAbs(target) && childPath == self {
			w.c.add("NIKA-COMP-003", wf, "a workflow cannot launch itself; compose a different child", "task %q launches its own workflow", t.id)
			continue
		}
		if w.c.fsys != nil {
			w.composeChild(t, wf, target, self, childPath)
		}
	}
}

// composeChild reads one child beside the parent and judges the call.
func (w *workflow) composeChild(t *task, wf *yaml.Node, target, self, childPath string) {
	for _, anc := range w.c.chain {
		if anc == childPath {
			// A cycle back to an ancestor: the ancestor that started the
			// walk reports it; reading further would only loop.
			return
		}
	}
	data, st := w.c.readBeside(target)
	if st == besideMissing {
		w.c.add("NIKA-COMP-001", wf, "place the child file beside this workflow, or fix the path", "the child workflow %q does not exist", wf.Value)
	}
	if st != besideFound {
		return
	}
	if cyc := w.c.callCycle(childPath, data); cyc != nil {
		w.c.add("NIKA-COMP-003", wf, "break the cycle: a child must never lead back to a workflow that calls it", "the static call graph has a cycle: %s", strings.Join(cyc, " → "))
		return
	}
	if w.c.depth >= maxCallDepth {
		return
	}
	sub := &checker{path: childPath, data: data, fsys: w.c.fsys, depth: w.c.depth + 1, chain: append(append([]string(nil), w.c.chain...), self)}
	root := sub.parse()
	if root == nil || !isMap(root) {
		return
	}
	cw := sub.checkWorkflow(root)
	if cw == nil {
		return
	}
	child := composedChild{path: childPath, needs: append(cw.needs(), cw.composedNeeds()...)}
	w.composed = append(w.composed, child)
	w.typedCall(t, wf, cw)
	w.contain(wf, cw, child.needs)
}

// composedNeeds are the effective needs of every child this workflow
// composes: a child's authority includes what its own children do.
func (w *workflow) composedNeeds() []need {
	var out []need
	for _, ch := range w.composed {
		out = append(out, ch.needs...)
	}
	return out
}

// contain judges laws 3 and 4: Authority(child) ⊆ Authority(parent) ∩
// declared(child). A child never gains a capability the parent lacks, and
// never more than it declares itself.
func (w *workflow) contain(wf *yaml.Node, cw *workflow, needs []need) {
	for _, nd := range needs {
		switch {
		case cw.permits == nil:
			w.c.add("NIKA-COMP-002", wf, "declare the child's own permits: block", "the child %q needs %s but declares no permits:, so it holds zero authority", wf.Value, describeNeed(nd))
			continue
		case w.permits == nil:
			w.c.add("NIKA-COMP-002", wf, "declare a permits: block that covers the child's effects", "the child %q needs %s, beyond this workflow's zero authority", wf.Value, describeNeed(nd))
			continue
		}
		if ok, why := cw.permits.allows(nd); !ok {
			w.c.add("NIKA-COMP-002", wf, "grant the effect in the child's own permits:, or remove it from the child", "the child %q needs %s beyond its own permits: %s", wf.Value, describeNeed(nd), why)
		}
		if ok, why := w.permits.allows(nd); !ok {
			w.c.add("NIKA-COMP-002", wf, "grant the child's effect in this workflow's permits: too", "the child %q needs %s: %s", wf.Value, describeNeed(nd), why)
		}
	}
}

// callCycle walks the static call graph from a child (its path and
// bytes) and returns a cycle it finds, as the chain of paths from this
// workflow, or nil. It reads only each file's invoke: workflow: targets.
func (c *checker) callCycle(childPath string, data []byte) []string {
	self := path.Clean(strings.ReplaceAll(c.path, "\\", "/"))
	type frame struct {
		path string
		data []byte
	}
	onStack := map[string]bool{self: true}
	done := map[string]bool{}
	var stack []string
	var walk func(f frame, depth int) []string
	walk = func(f frame, depth int) []string {
		if onStack[f.path] {
			i := 0
			for i < len(stack) && stack[i] != f.path {
				i++
			}
			cyc := append([]string{self}, stack...)
			if i < len(stack) {
				cyc = append([]string(nil), stack[i:]...)
			}
			return append(cyc, f.path)
		}
		if done[f.path] || depth > maxCallDepth {
			return nil
		}
		onStack[f.path] = true
		stack = append(stack, f.path)
		defer func() {
			onStack[f.path] = false
			stack = stack[:len(stack)-1]
			done[f.path] = true
		}()
		for _, target := range staticTargets(f.data) {
			next := path.Clean(path.Join(path.Dir(f.path), target))
			if onStack[next] {
				if r := walk(frame{path: next}, depth+1); r != nil {
					return r
				}
				continue
			}
			sub := &checker{path: f.path, fsys: c.fsys}
			b, st := sub.readBeside(target)
			if st != besideFound {
				continue
			}
			if r := walk(frame{path: next, data: b}, depth+1); r != nil {
				return r
			}
		}
		return nil
	}
	return walk(frame{path: childPath, data: data}, 1)
}

// staticTargets lists the static path targets of a workflow's invoke:
// workflow: tasks, without judging anything else.
func staticTargets(data []byte) []string {
	var doc yaml.Node
	if err := safeDecode(yaml.NewDecoder(strings.NewReader(string(data))), &doc); err != nil || len(doc.Content) == 0 {
		return nil
	}
	tasks := mapGet(doc.Content[0], "tasks")
	var out []string
	for _, p := range pairs(tasks) {
		inv := mapGet(p.v, "invoke")
		wf := mapGet(inv, "workflow")
		if !isStr(wf) || hasTemplate(wf.Value) {
			continue
		}
		v := strings.TrimSpace(wf.Value)
		if v == "" || strings.HasPrefix(v, "registry:") || strings.Contains(v, "://") || path.IsAbs(v) || strings.HasPrefix(v, "~") {
			continue
		}
		out = append(out, v)
	}
	return out
}

// typedCall judges law 2: the parent's args: fit the child's inputs:,
// and the child's outputs: fit the parent's returns:, under the
// assignability of 09-types.md (an unknown type accepts).
func (w *workflow) typedCall(t *task, wf *yaml.Node, cw *workflow) {
	args := mapGet(t.verbNode, "args")
	if args != nil && !isMap(args) {
		return
	}
	passed := map[string]bool{}
	for _, p := range pairs(args) {
		passed[p.k.Value] = true
		decl, ok := cw.inputs[p.k.Value]
		if !ok {
			w.c.add("NIKA-COMP-004", p.k, "pass only the child's declared inputs"+didYouMean(p.k.Value, sortedKeys(cw.inputs)), "the child %q declares no input %q", wf.Value, p.k.Value)
			continue
		}
		want := mapGet(decl, "type")
		if want == nil {
			continue
		}
		if got, known := w.argType(t, p.v); known && !assignable(got, want) {
			w.c.add("NIKA-COMP-004", p.v, "pass a value of the input's type", "the argument %s does not fit the child's input type %s", p.k.Value, typeString(want))
		} else if !known && !fitsType(p.v, want) {
			w.c.add("NIKA-COMP-004", p.v, "pass a value of the input's type", "the argument %s does not fit the child's input type %s", p.k.Value, typeString(want))
		}
	}
	for _, name := range sortedKeys(cw.inputs) {
		decl := cw.inputs[name]
		req, _ := boolVal(mapGet(decl, "required"))
		if req && mapGet(decl, "default") == nil && !passed[name] {
			w.c.add("NIKA-COMP-004", wf, "pass args."+name, "the child %q requires the input %q, and this call does not pass it", wf.Value, name)
		}
	}
	if t.returns != nil && cw.outputs != nil && isMap(cw.outputs) {
		out := childOutputType(cw.outputs)
		if !assignable(out, t.returns) {
			w.c.add("NIKA-COMP-004", t.returns, "make returns: what the child's outputs: declare", "the child %q returns %s, which does not fit returns: %s", wf.Value, typeString(out), typeString(t.returns))
		}
	}
}

// argType is the declared type of an argument that is one whole
// ${{ inputs.X }} or ${{ const.X }} island (known), else nil and false:
// a literal is judged by its value, a runtime value is Unknown.
func (w *workflow) argType(t *task, v *yaml.Node) (*yaml.Node, bool) {
	if !isStr(v) || !hasTemplate(v.Value) {
		return nil, false
	}
	isl, unclosed := islands(v.Value)
	if unclosed > 0 || len(isl) != 1 || !isl[0].whole {
		return nil, true // interpolated into a string, or a runtime value
	}
	e := strings.ReplaceAll(isl[0].expr, " ", "")
	if name, ok := strings.CutPrefix(e, "inputs."); ok && identRe.MatchString(name) {
		if d, ok := w.inputs[name]; ok {
			return mapGet(d, "type"), true
		}
	}
	if name, ok := strings.CutPrefix(e, "const."); ok && identRe.MatchString(name) {
		if d, ok := w.consts[name]; ok && d != nil {
			return literalType(d), true
		}
	}
	return nil, true
}

// literalType is the type of a literal YAML value, nil when it cannot
// tell.
func literalType(v *yaml.Node) *yaml.Node {
	scalar := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	switch {
	case isNull(v):
		return scalar("null")
	case isBool(v):
		return scalar("bool")
	case isInt(v):
		return scalar("integer")
	case isNumber(v):
		return scalar("number")
	case isStr(v) && !hasTemplate(v.Value):
		return scalar("string")
	}
	return nil
}

// childOutputType is the closed object type of a child's outputs: each
// entry a required field, typed by its type: or Unknown when untyped.
func childOutputType(outputs *yaml.Node) *yaml.Node {
	fields := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, p := range pairs(outputs) {
		var t *yaml.Node
		if isMap(p.v) {
			t = mapGet(p.v, "type")
		}
		if t == nil {
			t = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: unknownType}
		}
		fields.Content = append(fields.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p.k.Value}, t)
	}
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "object"}, fields}}
}

// unknownType names the internal Unknown type (never authorable).
const unknownType = "\x00unknown"

// typeString renders a type expression on one line for a message.
func typeString(t *yaml.Node) string {
	switch {
	case t == nil:
		return "unknown"
	case isScalar(t):
		if t.Value == unknownType {
			return "unknown"
		}
		return t.Value
	case isSeq(t):
		var s []string
		for _, it := range t.Content {
			s = append(s, typeString(it))
		}
		return "[" + strings.Join(s, ", ") + "]"
	case isMap(t):
		var s []string
		for _, p := range pairs(t) {
			s = append(s, p.k.Value+": "+typeString(p.v))
		}
		return "{ " + strings.Join(s, ", ") + " }"
	}
	return "?"
}

// typeCtor splits a type expression into its constructor (a primitive
// name, or the map's constructor key) and the constructor's argument.
func typeCtor(t *yaml.Node) (ctor string, arg *yaml.Node, open bool) {
	if t == nil || (isScalar(t) && t.Value == unknownType) {
		return "", nil, false
	}
	if isScalar(t) {
		if isNull(t) {
			return "null", nil, false
		}
		return t.Value, nil, false
	}
	if !isMap(t) {
		return "", nil, false
	}
	for _, p := range pairs(t) {
		if p.k.Value == "additional" {
			b, _ := boolVal(p.v)
			open = b
			continue
		}
		ctor, arg = p.k.Value, p.v
	}
	return ctor, arg, open
}

// assignable is A ⊑~ B of 09-types.md: subtyping over known types, with
// Unknown accepting wherever it stands. It answers true when it cannot
// decide, never refusing what it does not understand.
func assignable(a, b *yaml.Node) bool {
	ca, aa, openA := typeCtor(a)
	cb, ab, openB := typeCtor(b)
	if ca == "" || cb == "" {
		return true // Unknown
	}
	if cb == "union" {
		if ca == "union" {
			for _, m := range aa.Content {
				if !assignable(m, b) {
					return false
				}
			}
			return true
		}
		for _, m := range ab.Content {
			if assignable(a, m) {
				return true
			}
		}
		return false
	}
	if ca == "union" {
		for _, m := range aa.Content {
			if !assignable(m, b) {
				return false
			}
		}
		return true
	}
	if ca == "optional" {
		return assignable(aa, b)
	}
	if cb == "optional" {
		return assignable(a, ab)
	}
	switch cb {
	case "string":
		if ab != nil && !isNull(ab) && isMap(ab) {
			// A refined string: only an equally refined one fits.
			return ca == "string" && aa != nil && typeString(aa) == typeString(ab)
		}
		return oneOf(ca, "string", "uri", "path", "duration", "timestamp", "enum")
	case "number":
		return (ca == "number" || ca == "integer") && boundsNest(aa, ab)
	case "integer":
		return ca == "integer" && boundsNest(aa, ab)
	case "enum":
		if ca != "enum" {
			return false
		}
		ea, _ := strs(aa)
		eb, _ := strs(ab)
		for _, v := range ea {
			if !oneOf(v, eb...) {
				return false
			}
		}
		return true
	case "array", "map":
		return ca == cb && assignable(aa, ab)
	case "object":
		if ca != "object" || !isMap(aa) || !isMap(ab) {
			return ca == "object"
		}
		fa := map[string]*yaml.Node{}
		for _, p := range pairs(aa) {
			fa[p.k.Value] = p.v
		}
		fb := map[string]bool{}
		for _, p := range pairs(ab) {
			fb[p.k.Value] = true
			bc, binner, _ := typeCtor(p.v)
			at, ok := fa[p.k.Value]
			if bc == "optional" {
				if ok && !assignable(at, binner) {
					return false
				}
				continue
			}
			if !ok {
				return false
			}
			if ac, _, _ := typeCtor(at); ac == "optional" {
				return false // an optional field never serves a required slot
			}
			if !assignable(at, p.v) {
				return false
			}
		}
		if openA && !openB {
			return false
		}
		if !openB {
			for name := range fa {
				if !fb[name] {
					return false
				}
			}
		}
		return true
	}
	return ca == cb
}

// boundsNest reports whether the numeric bounds of a lie within those of
// b (an absent bound is unbounded).
func boundsNest(a, b *yaml.Node) bool {
	num := func(n *yaml.Node, k string) (float64, bool) {
		v := mapGet(n, k)
		if !isNumber(v) {
			return 0, false
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(v.Value, "_", ""), 64)
		return f, err == nil
	}
	if bmin, ok := num(b, "min"); ok {
		amin, ok := num(a, "min")
		if !ok || amin < bmin {
			return false
		}
	}
	if bmax, ok := num(b, "max"); ok {
		amax, ok := num(a, "max")
		if !ok || amax > bmax {
			return false
		}
	}
	return true
}
