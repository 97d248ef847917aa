package checker

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Code-bearing file classes of the data-as-code sink.
var codeBearing = map[string]string{
	"pkl": "serialized executable", "pickle": "serialized executable", "dill": "serialized executable", "joblib": "serialized executable",
	"pt": "serialized executable", "pth": "serialized executable", "ckpt": "serialized executable",
	"py": "script", "sh": "script", "bash": "script", "zsh": "script", "ps1": "script", "bat": "script", "cmd": "script",
	"rb": "script", "pl": "script", "php": "script", "js": "script", "mjs": "script", "ipynb": "script",
	"exe": "executable binary", "dll": "executable binary", "so": "executable binary", "dylib": "executable binary",
	"wasm": "executable binary", "jar": "executable binary",
}

// codeClass classifies the final path segment of a URL, decoded once.
func codeClass(raw string) (class, ext string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", ""
	}
	p := u.EscapedPath()
	if i := strings.LastIndex(p, "/"); i >= 0 {
		p = p[i+1:]
	}
	if dec, err := url.PathUnescape(p); err == nil {
		p = dec
	}
	name := strings.ToLower(p)
	dot := strings.LastIndex(name, ".")
	if dot < 0 {
		return "", ""
	}
	ext = name[dot+1:]
	if cl, ok := codeBearing[ext]; ok {
		return cl, ext
	}
	// A versioned shared object (lib.so.1.2.3) is what a loader opens.
	stripped := name
	for {
		d := strings.LastIndex(stripped, ".")
		if d < 0 || !allDigits(stripped[d+1:]) {
			break
		}
		stripped = stripped[:d]
	}
	if stripped != name {
		if d := strings.LastIndex(stripped, "."); d >= 0 {
			e := stripped[d+1:]
			if codeBearing[e] == "executable binary" {
				return codeBearing[e], e
			}
		}
	}
	return "", ""
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// fetchChecks judges literal (or resolvable) network targets: the SSRF
// floor and the data-as-code sink.
func (w *workflow) fetchChecks() {
	for _, t := range w.tasks {
		if t.tool != "nika:fetch" && t.tool != "nika:notify" {
			continue
		}
		arg := "url"
		if t.tool == "nika:notify" {
			arg = "target"
		}
		n := mapGet(t.args, arg)
		if !isStr(n) {
			continue
		}
		res := w.resolveStr(t, n.Value, 0)
		if !res.ok {
			continue
		}
		if h := urlHost(res.text); h != "" && floorBlocked(h) {
			declassified := isLoopback(h) && w.permits != nil && hostAllowed(h, w.permits.net)
			if !declassified {
				w.c.add("NIKA-SEC-005", n, "target a public host; only an exact loopback literal in permits.net.http is declassified", "task %q targets %s, which the SSRF floor refuses", t.id, h)
			}
		}
		if t.tool != "nika:fetch" {
			continue
		}
		if class, ext := codeClass(res.text); class != "" && !w.lifts(t, "data-as-code", "") {
			w.c.add("NIKA-SEC-008", n, "model the acquisition as the exec it feeds, or declare lift: [{ law: data-as-code, because: \"...\" }]", "task %q fetches a .%s file, a %s: the read hides an execution sink", t.id, ext, class)
		}
	}
}

// liftChecks refuses a lift: entry whose law would not have fired.
func (w *workflow) liftChecks() {
	for _, t := range w.tasks {
		for _, l := range t.lifts {
			switch l.law {
			case "taint":
				if l.from == "" {
					continue
				}
				if !w.readsBinding(t, l.from) {
					w.c.add("NIKA-AUTH-011", l.node, "remove the lift: entry", "task %q lifts the taint law from %s, which reaches none of its arguments", t.id, l.from)
				}
			case "data-as-code":
				fires := false
				if t.tool == "nika:fetch" {
					if n := mapGet(t.args, "url"); isStr(n) {
						res := w.resolveStr(t, n.Value, 0)
						if !res.ok {
							fires = true // undecidable: the door may be needed at run time
						} else if class, _ := codeClass(res.text); class != "" {
							fires = true
						}
					}
				}
				if !fires {
					w.c.add("NIKA-AUTH-011", l.node, "remove the lift: entry", "task %q lifts the data-as-code law, which does not fire on it", t.id)
				}
			}
		}
	}
}

// readsBinding reports whether the verb body of t reads the binding named
// by a lift from: (directly, or through one with: hop).
func (w *workflow) readsBinding(t *task, from string) bool {
	root, rest, _ := strings.Cut(from, ".")
	name, _, _ := strings.Cut(rest, ".")
	match := func(r ref) bool {
		return r.root == root && len(r.path) > 0 && r.path[0].name == name
	}
	for _, r := range t.bodyRefs {
		if match(r) {
			return true
		}
		if r.root == "with" && len(r.path) > 0 {
			for _, wr := range t.withRefs[r.path[0].name] {
				if match(wr) {
					return true
				}
			}
		}
	}
	return false
}

// orderLaw: no exec: task may sit downstream of a network task. Each
// exec task is reported once, with the path from its nearest network
// ancestor as the witness.
func (w *workflow) orderLaw() {
	for _, t := range w.tasks {
		if t.verb != "exec" {
			continue
		}
		next := map[string]string{t.id: ""}
		queue := []string{t.id}
		src := ""
		for len(queue) > 0 && src == "" {
			x := queue[0]
			queue = queue[1:]
			for _, d := range sortedKeys(w.byID[x].deps) {
				if _, seen := next[d]; seen {
					continue
				}
				next[d] = x
				if tl := w.byID[d].tool; tl == "nika:fetch" || tl == "nika:notify" {
					src = d
					break
				}
				queue = append(queue, d)
			}
		}
		if src == "" {
			continue
		}
		var chain []string
		for x := src; x != ""; x = next[x] {
			chain = append(chain, x)
		}
		w.c.add("NIKA-SEC-015", t.verbKey, "cut the path from "+src+" to "+t.id+", or replace the exec with a builtin", "task %q runs a program downstream of the network task %q (%s)", t.id, src, strings.Join(chain, " → "))
	}
}

// path finds one dependency path from a to b, for witnesses.
func (w *workflow) path(a, b string) []string {
	prev := map[string]string{a: ""}
	queue := []string{a}
	succ := w.successors()
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x == b {
			break
		}
		for _, t := range succ[x] {
			if _, seen := prev[t.id]; seen {
				continue
			}
			prev[t.id] = x
			queue = append(queue, t.id)
		}
	}
	if _, ok := prev[b]; !ok {
		return []string{a, b}
	}
	var out []string
	for x := b; x != ""; x = prev[x] {
		out = append([]string{x}, out...)
	}
	return out
}

// egressCapable reports whether a task can cause an effect a refused
// confirm must never trigger.
func (w *workflow) egressCapable(t *task) bool {
	switch t.verb {
	case "exec":
		return true
	case "invoke":
		if strings.HasPrefix(t.tool, "mcp:") {
			return true
		}
		b := builtins[t.tool]
		return b.net || len(b.writes) > 0
	case "agent":
		if tl := mapGet(t.verbNode, "tools"); isSeq(tl) {
			for _, it := range tl.Content {
				if strings.HasPrefix(it.Value, "mcp:") {
					return true
				}
				for name, b := range builtins {
					if (b.net || len(b.writes) > 0) && toolGlob(it.Value, name) {
						return true
					}
				}
			}
		}
	}
	return false
}

func (w *workflow) confirmGate(t *task) bool {
	if t.tool != "nika:prompt" {
		return false
	}
	m := mapGet(t.args, "mode")
	return m == nil || (isStr(m) && m.Value == "confirm")
}

// consentLaw: every route from a confirm gate to an effectful task must
// consume the answer and be false on a refusal.
func (w *workflow) consentLaw() {
	for _, g := range w.tasks {
		if !w.confirmGate(g) {
			continue
		}
		down := w.downstream(g.id)
		for _, s := range w.tasks {
			if !down[s.id] || !w.egressCapable(s) {
				continue
			}
			if w.openRoute(g, s) {
				w.c.add("NIKA-SEC-014", s.verbKey, "bind the answer, with: { go: \"${{ tasks."+g.id+".output }}\" }, and gate the task with when: ${{ with.go == true }}", "task %q can run after a refused confirm of %q: no route consumes the answer", s.id, g.id)
			}
		}
	}
}

// openRoute reports whether some route from gate g reaches sink s without
// crossing a task that closes it.
func (w *workflow) openRoute(g, s *task) bool {
	memo := map[string]bool{}
	var visit func(x *task) bool
	visit = func(x *task) bool {
		if v, ok := memo[x.id]; ok {
			return v
		}
		memo[x.id] = false
		if w.closes(x, g) {
			return false
		}
		if x == s {
			memo[x.id] = true
			return true
		}
		for _, t := range w.successors()[x.id] {
			if visit(t) {
				memo[x.id] = true
				return true
			}
		}
		return false
	}
	for _, t := range w.successors()[g.id] {
		if visit(t) {
			return true
		}
	}
	return false
}

// closes reports whether task x closes every route from gate g through it.
func (w *workflow) closes(x, g *task) bool {
	if b, ok := boolVal(x.when); ok && !b {
		return true
	}
	if w.confirmGate(x) {
		return true
	}
	if x.whenExpr == nil {
		return false
	}
	readsGate := false
	env := func(r ref) (any, bool) {
		if r.root != "with" || len(r.path) != 1 {
			return nil, false
		}
		v := x.with[r.path[0].name]
		if !isStr(v) {
			return nil, false
		}
		isl, _ := islands(v.Value)
		if len(isl) != 1 || !isl[0].whole {
			return nil, false
		}
		e, err := w.c.parseCEL(isl[0].expr)
		if err != nil {
			return nil, false
		}
		rf, ok := refOf(e)
		if !ok || rf.root != "tasks" || len(rf.path) != 2 || rf.path[0].name != g.id {
			return nil, false
		}
		readsGate = true
		switch rf.path[1].name {
		case "output":
			return false, true
		case "status":
			return "success", true
		}
		return nil, false
	}
	v := evalTri(x.whenExpr, env)
	if !readsGate {
		return false
	}
	return v != triTrue
}

// secretFlow: a secret may reach a sink only where its egress: sanctions
// it; a capture stays tainted up to outputs:.
func (w *workflow) secretFlow() {
	tainted := map[string][]string{} // task id -> secrets its output carries
	for _, t := range w.tasks {
		if !isMap(t.verbNode) {
			continue
		}
		sink := t.verb
		if t.verb == "invoke" {
			sink = t.tool
			if sink == "" {
				continue
			}
		}
		fields := []*yaml.Node{t.verbNode}
		if t.verb == "infer" || t.verb == "agent" {
			fields = []*yaml.Node{mapGet(t.verbNode, "prompt"), mapGet(t.verbNode, "system")}
		}
		for _, f := range fields {
			walkStrings(f, func(n *yaml.Node) {
				if !hasTemplate(n.Value) {
					return
				}
				res := w.resolveStr(t, n.Value, 0)
				for _, s := range uniqSorted(res.secrets) {
					d := w.secrets[s]
					if d == nil {
						continue
					}
					if t.verb == "exec" || t.verb == "invoke" {
						tainted[t.id] = append(tainted[t.id], s)
					}
					if !w.sanctioned(d, sink, t, n) {
						clause := fmt.Sprintf("egress: [{ to: %q }]", sink)
						if h := w.sinkHost(t); h != "" {
							clause = fmt.Sprintf("egress: [{ to: %q, host: %q }]", sink, h)
						} else if b, ok := builtins[t.tool]; ok && b.net {
							if u := mapGet(t.args, b.urlArg); isStr(u) && strings.ReplaceAll(strings.TrimSpace(u.Value), " ", "") == "${{secrets."+s+"}}" {
								clause = fmt.Sprintf("egress: [{ to: %q, host_from_self: true }]", sink)
							}
						}
						w.c.add("NIKA-SEC-006", n, "if this destination is intended, add to secrets."+s+": "+clause, "secrets.%s reaches %s in task %q, a sink its egress: does not sanction", s, sink, t.id)
					}
				}
			})
		}
	}
	for _, p := range pairs(w.outputs) {
		v := p.v
		if isMap(v) {
			v = mapGet(v, "value")
		}
		walkStrings(v, func(n *yaml.Node) {
			isl, _ := islands(n.Value)
			for _, is := range isl {
				e, err := w.c.parseCEL(is.expr)
				if err != nil {
					continue
				}
				for _, r := range refs(e) {
					var carried []string
					if r.root == "secrets" && len(r.path) > 0 {
						carried = []string{r.path[0].name}
					}
					if r.root == "tasks" && len(r.path) > 0 {
						carried = tainted[r.path[0].name]
					}
					for _, s := range uniqSorted(carried) {
						d := w.secrets[s]
						if d == nil || w.egressTo(d, "outputs") {
							continue
						}
						w.c.add("NIKA-SEC-007", n, "add egress: [{ to: \"outputs\" }] to secrets."+s+" if the result may leave the run", "outputs.%s carries a value tainted by secrets.%s", p.k.Value, s)
					}
				}
			}
		})
	}
}

func (w *workflow) egressTo(d *secretDecl, sink string) bool {
	for _, r := range d.egress {
		if r.to == sink {
			return true
		}
	}
	return false
}

// sinkHost is the literal destination host of a network sink.
func (w *workflow) sinkHost(t *task) string {
	b, ok := builtins[t.tool]
	if !ok || !b.net {
		return ""
	}
	n := mapGet(t.args, b.urlArg)
	if !isStr(n) {
		return ""
	}
	return urlHost(n.Value)
}

// sanctioned applies the egress rules of one secret to one sink.
func (w *workflow) sanctioned(d *secretDecl, sink string, t *task, at *yaml.Node) bool {
	for _, r := range d.egress {
		if r.to != sink {
			continue
		}
		b, isTool := builtins[t.tool]
		if !(isTool && b.net) || (r.host == "" && !r.hostFromSelf) {
			return true
		}
		if r.host != "" && canonHost(r.host) == w.sinkHost(t) {
			return true
		}
		if r.hostFromSelf {
			if n := mapGet(t.args, b.urlArg); isStr(n) {
				isl, _ := islands(n.Value)
				if len(isl) == 1 && isl[0].whole && strings.ReplaceAll(isl[0].expr, " ", "") == "secrets."+d.name {
					return true
				}
			}
		}
	}
	return false
}

// skills judges agent skill paths: static, readable, well formed.
func (w *workflow) skills() {
	for _, t := range w.tasks {
		if t.verb != "agent" {
			continue
		}
		sk := mapGet(t.verbNode, "skills")
		if !isSeq(sk) {
			continue
		}
		for _, it := range sk.Content {
			if !isStr(it) {
				continue
			}
			p := it.Value
			if hasTemplate(p) || strings.ContainsAny(p, "*?[") {
				w.c.add("NIKA-AGENT-003", it, "write a static path to the SKILL.md file", "skill path %q is templated or a glob; it can never resolve", p)
				continue
			}
			if w.permits == nil {
				continue // the absent block is refused by NIKA-AUTH-006
			}
			if !pathAllowed(p, w.permits.fsRead) {
				continue // refused by NIKA-SEC-004 before the file is opened
			}
			data, st := w.c.readBeside(p)
			if st == besideMissing {
				w.c.add("NIKA-AGENT-003", it, "create the skill file, or fix the path", "skill file %q does not exist", p)
			}
			if st != besideFound {
				continue
			}
			if msg := skillProblem(data); msg != "" {
				w.c.add("NIKA-AGENT-004", it, "open the file with --- name: ... description: ... --- frontmatter", "skill file %q is not a valid Agent Skill: %s", p, msg)
			}
		}
	}
}

// beside is the outcome of looking a file up beside the checked file.
type beside int

const (
	besideFound   beside = iota
	besideMissing        // the file system answers that the file does not exist
	besideUnknown        // no file system, or a path it cannot answer for
)

// readBeside reads a file named relative to the checked file's directory.
// It reports missing only when the file system says so; a path outside the
// file system's root (absolute, ~, climbing) cannot be judged.
func (c *checker) readBeside(rel string) ([]byte, beside) {
	if c.fsys == nil || path.IsAbs(rel) || strings.HasPrefix(rel, "~") {
		return nil, besideUnknown
	}
	p := path.Clean(path.Join(path.Dir(strings.ReplaceAll(c.path, "\\", "/")), rel))
	if !fs.ValidPath(p) {
		return nil, besideUnknown
	}
	data, err := fs.ReadFile(c.fsys, p)
	switch {
	case err == nil:
		return data, besideFound
	case errors.Is(err, fs.ErrNotExist):
		return nil, besideMissing
	}
	return nil, besideUnknown
}

// skillProblem validates the Agent Skill frontmatter.
func skillProblem(data []byte) string {
	s := string(bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF}))
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return "no frontmatter"
	}
	end := strings.Index(s[4:], "\n---")
	if end < 0 {
		return "the frontmatter is not terminated"
	}
	var fm yaml.Node
	if err := yaml.Unmarshal([]byte(s[4:4+end]), &fm); err != nil || len(fm.Content) == 0 || !isMap(fm.Content[0]) {
		return "the frontmatter is not a mapping"
	}
	m := fm.Content[0]
	for _, k := range []string{"name", "description"} {
		v := mapGet(m, k)
		if !isStr(v) || strings.TrimSpace(v.Value) == "" {
			return "missing or empty " + k
		}
	}
	return ""
}

var statusVocabulary = []string{"success", "failure", "skipped", "cancelled"}

// statusLiterals refuses a status compared against a literal outside the
// closed vocabulary: == never matches and != always holds.
func (w *workflow) statusLiterals() {
	for _, t := range w.tasks {
		if t.whenExpr == nil {
			continue
		}
		isStatus := func(e *cel) bool {
			rf, ok := refOf(e)
			if !ok {
				return false
			}
			if rf.root == "tasks" && len(rf.path) == 2 && rf.path[1].name == "status" {
				return true
			}
			if rf.root != "with" || len(rf.path) != 1 {
				return false
			}
			v := t.with[rf.path[0].name]
			if !isStr(v) {
				return false
			}
			isl, _ := islands(v.Value)
			if len(isl) != 1 || !isl[0].whole {
				return false
			}
			inner, err := w.c.parseCEL(isl[0].expr)
			if err != nil {
				return false
			}
			r2, ok := refOf(inner)
			return ok && r2.root == "tasks" && len(r2.path) == 2 && r2.path[1].name == "status"
		}
		var walk func(e *cel)
		walk = func(e *cel) {
			if e == nil {
				return
			}
			if e.kind == celBinary && (e.op == "==" || e.op == "!=") {
				for i := 0; i < 2; i++ {
					a, b := e.args[i], e.args[1-i]
					s, isLit := b.lit.(string)
					if b.kind == celLit && isLit && isStatus(a) && !oneOf(s, statusVocabulary...) {
						fix := "compare against success, failure, skipped or cancelled"
						switch s {
						case "succeeded", "ok", "passed":
							fix = "write 'success'"
						case "failed", "error":
							fix = "write 'failure'"
						}
						w.c.add("NIKA-DAG-007", t.when, fix, "task %q compares a status with %q, which no task ever settles to", t.id, s)
					}
				}
			}
			for _, a := range e.args {
				walk(a)
			}
		}
		walk(t.whenExpr)
	}
}

// sharedWrites refuses two unordered tasks writing the same literal path,
// and a fan-out writing one constant path.
func (w *workflow) sharedWrites() {
	type write struct {
		t    *task
		path string
		node *yaml.Node
	}
	var writes []write
	for _, t := range w.tasks {
		if t.tool != "nika:write" && t.tool != "nika:edit" {
			continue
		}
		n := mapGet(t.args, "path")
		if !isStr(n) || hasTemplate(n.Value) {
			continue
		}
		p, _ := canonPath(n.Value)
		if t.forEach {
			w.c.add("NIKA-SEC-012", n, "make the path depend on ${{ item }} or ${{ index }}", "task %q fans out and every iteration writes %s", t.id, n.Value)
		}
		writes = append(writes, write{t, p, n})
	}
	for i := range writes {
		for j := i + 1; j < len(writes); j++ {
			a, b := writes[i], writes[j]
			if a.path != b.path || a.t == b.t {
				continue
			}
			if w.reaches(a.t.id, b.t.id) || w.reaches(b.t.id, a.t.id) {
				continue
			}
			w.c.add("NIKA-SEC-012", b.node, "order the two tasks with after: { "+a.t.id+": success }, or write distinct paths", "tasks %q and %q both write %s with no order between them", a.t.id, b.t.id, b.path)
		}
	}
}

// drift warns about declared values nothing reads. It is advisory and
// never fails the audit.
func (w *workflow) drift() {
	used := map[string]bool{}
	note := func(r ref) {
		if len(r.path) > 0 {
			used[r.root+"."+r.path[0].name] = true
		}
	}
	walkStrings(w.root, func(n *yaml.Node) {
		isl, _ := islands(n.Value)
		for _, is := range isl {
			if e, err := w.c.parseCEL(is.expr); err == nil {
				for _, r := range refs(e) {
					note(r)
				}
			}
		}
	})
	for _, t := range w.tasks {
		for _, l := range t.lifts {
			used[l.from] = true
		}
	}
	check := func(block string, m map[string]*yaml.Node) {
		for _, p := range pairs(mapGet(w.root, block)) {
			if !used[block+"."+p.k.Value] {
				w.c.warn("NIKA-DRIFT-001", p.k, "remove the declaration, or read it", "%s.%s is declared but nothing reads it", block, p.k.Value)
			}
		}
	}
	check("inputs", w.inputs)
	check("const", w.consts)
	check("secrets", nil)
}

// ingress reports whether a task brings content the workflow did not
// author into the run.
func (w *workflow) ingress(t *task) bool {
	switch t.verb {
	case "exec":
		return true
	case "invoke":
		return t.tool == "nika:fetch" || strings.HasPrefix(t.tool, "mcp:")
	case "agent":
		if tl := mapGet(t.verbNode, "tools"); isSeq(tl) {
			for _, it := range tl.Content {
				if strings.HasPrefix(it.Value, "mcp:") || (!strings.HasPrefix(it.Value, "!") && toolGlob(it.Value, "nika:fetch")) {
					return true
				}
			}
		}
	}
	return false
}

// blockingGate is a nika:prompt with no default: the run waits for a human.
func (w *workflow) blockingGate(t *task) bool {
	return t.tool == "nika:prompt" && mapGet(t.args, "default") == nil
}

// escapingWrite reports an fs.write grant that reaches outside the project.
func escapingWrite(globs []string) bool {
	for _, g := range globs {
		cg, esc := canonPath(g)
		if esc || strings.HasPrefix(cg, "/") || strings.HasPrefix(g, "~") {
			return true
		}
	}
	return false
}

// trifecta: a private read, an untrusted ingress and an external egress
// granted together, with the untrusted content reaching an egress task
// that no blocking human gate dominates.
func (w *workflow) trifecta() {
	p := w.permits
	if p == nil || len(p.fsRead) == 0 {
		return
	}
	execOn := p.execAll || len(p.exec) > 0
	if len(p.net) == 0 && !execOn && !escapingWrite(p.fsWrite) {
		return
	}
	// ungated: tasks reachable from a root of G_p without crossing a
	// blocking gate.
	ungated := map[string]bool{}
	var queue []*task
	for _, t := range w.tasks {
		if len(t.deps) == 0 && !w.blockingGate(t) {
			ungated[t.id] = true
			queue = append(queue, t)
		}
	}
	succ := w.successors()
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, t := range succ[x.id] {
			if !ungated[t.id] && !w.blockingGate(t) {
				ungated[t.id] = true
				queue = append(queue, t)
			}
		}
	}
	// Content flows along a with: binding only where the verb body reads
	// it: a binding read by when: alone decides, it does not transmit.
	dataSucc := map[string][]*task{}
	for _, t := range w.tasks {
		for _, d := range w.contentSources(t) {
			dataSucc[d] = append(dataSucc[d], t)
		}
	}
	reported := map[string]bool{}
	for _, s := range w.tasks {
		if !w.ingress(s) || (s.verb == "exec" && !execOn) {
			continue
		}
		seen := map[string]bool{}
		queue := []*task{s}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, e := range dataSucc[x.id] {
				if seen[e.id] {
					continue
				}
				seen[e.id] = true
				queue = append(queue, e)
				if reported[e.id] || !ungated[e.id] || !w.egressCapable(e) {
					continue
				}
				reported[e.id] = true
				w.c.add("NIKA-SEC-009", e.verbKey, "put a blocking nika:prompt (no default:) on every path to "+e.id+", e.g. at the root of the graph", "untrusted content from %q reaches %q (%s) while the boundary grants a private read and an external egress, and no blocking human gate dominates it", s.id, e.id, strings.Join(w.path(s.id, e.id), " → "))
			}
		}
	}
}

// contentSources lists the tasks whose content the verb body of t reads,
// through its with: bindings (status, timing and error observations carry
// no content).
func (w *workflow) contentSources(t *task) []string {
	set := map[string]bool{}
	for _, r := range t.bodyRefs {
		if r.root != "with" || len(r.path) == 0 {
			continue
		}
		for _, wr := range t.withRefs[r.path[0].name] {
			switch {
			case wr.root == "group" && len(wr.path) > 0:
				for _, m := range w.groups[wr.path[0].name] {
					set[m] = true
				}
			case wr.root == "tasks" && len(wr.path) > 1:
				f := wr.path[1].name
				if f == "status" || f == "duration_ms" || f == "started_at" || f == "ended_at" {
					continue
				}
				if _, ok := w.byID[wr.path[0].name]; ok {
					set[wr.path[0].name] = true
				}
			}
		}
	}
	return sortedKeys(set)
}
