package checker

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	kebabRe    = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	versionRe  = regexp.MustCompile(`^v[0-9]+$`)
	snakeRe    = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	codeRe     = regexp.MustCompile(`^NIKA-[A-Z]{2,9}(-[A-Z][A-Z0-9_]{1,15})?-[0-9]{3}$`)
	envNameRe  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	mcpToolRe  = regexp.MustCompile(`^mcp:[a-z0-9][a-z0-9-]*/[A-Za-z0-9_/-]+$`)
	durationRe = regexp.MustCompile(`^(?:[0-9]+(?:\.[0-9]+)?(?:ns|us|µs|ms|s|m|h))+$`)
	durPartRe  = regexp.MustCompile(`([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)`)
	liftFromRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$`)
)

// The nine envelope keys.
var envelopeKeys = []string{"nika", "model", "inputs", "const", "secrets", "permits", "run", "tasks", "outputs"}

// Task-level keys.
var taskKeys = []string{"with", "group", "after", "when", "for_each", "retry", "on_error", "timeout", "returns", "extract", "lift", "infer", "exec", "invoke", "agent"}

var verbs = []string{"infer", "exec", "invoke", "agent"}

var verbKeys = map[string][]string{
	"infer":  {"prompt", "system", "model", "temperature", "max_tokens", "schema", "thinking", "vision"},
	"exec":   {"command", "shell", "cwd", "env", "stdin", "capture", "decode"},
	"invoke": {"tool", "workflow", "args"},
	"agent":  {"prompt", "system", "model", "tools", "skills", "max_turns", "max_tokens_total", "temperature", "schema"},
}

var reservedBindings = map[string]bool{"output": true, "status": true, "error": true, "started_at": true, "ended_at": true, "duration_ms": true}

var afterPredicates = []string{"success", "failure", "skipped", "terminal", "unwind"}

// afterEdge is one after: entry.
type afterEdge struct {
	target string
	pred   string
	key    *yaml.Node
}

// task is the checker's view of one task.
type task struct {
	id       string
	key      *yaml.Node
	body     *yaml.Node
	verb     string
	verbKey  *yaml.Node
	verbNode *yaml.Node
	with     map[string]*yaml.Node
	withKey  map[string]*yaml.Node
	withRefs map[string][]ref // binding name -> references in its value
	after    []afterEdge
	group    string
	groupKey *yaml.Node
	forEach  bool
	when     *yaml.Node
	whenExpr *cel
	unwinds  []string
	tool     string
	toolNode *yaml.Node
	args     *yaml.Node
	extracts map[string]bool
	schema   *yaml.Node
	returns  *yaml.Node
	recover  *yaml.Node
	deps     map[string]bool // predecessors in G_p
	dataDeps map[string]bool // predecessors through with: data edges only
	lifts    []liftEntry
	// bodyRefs are the references read by the verb body.
	bodyRefs []ref
}

type liftEntry struct {
	law, from string
	node      *yaml.Node
}

// workflow is the checker's view of one workflow file.
type workflow struct {
	c        *checker
	root     *yaml.Node
	name     string
	model    string
	inputs   map[string]*yaml.Node // name -> declaration
	consts   map[string]*yaml.Node // name -> value (typed constants: the value: node)
	secrets  map[string]*secretDecl
	permits  *permits
	permNode *yaml.Node
	// permEmpty: the block is present and declares nothing (permits: or
	// permits: {}), the same zero authority as an absent block.
	permEmpty bool
	// composed are the children this workflow could read, with their
	// effective needs.
	composed []composedChild
	run      *yaml.Node
	tasks    []*task
	byID     map[string]*task
	groups   map[string][]string
	outputs  *yaml.Node
	eff      *effectSet
	succ     map[string][]*task // lazily built reverse of task deps
}

type secretDecl struct {
	name   string
	node   *yaml.Node
	egress []egressRule
}

type egressRule struct {
	to, host     string
	hostFromSelf bool
}

func (c *checker) checkWorkflow(root *yaml.Node) *workflow {
	if root.Kind != yaml.MappingNode {
		c.add("NIKA-PARSE-019", root, "start the file with nika: <name> followed by a tasks: map", "a workflow is a map of envelope keys, found %s", kindName(root))
		return nil
	}
	w := &workflow{c: c, root: root, inputs: map[string]*yaml.Node{}, consts: map[string]*yaml.Node{},
		secrets: map[string]*secretDecl{}, byID: map[string]*task{}, groups: map[string][]string{}}
	w.envelope()
	w.collectTasks()
	for _, t := range w.tasks {
		w.taskShape(t)
	}
	for _, t := range w.tasks {
		w.taskRefs(t)
	}
	w.outputsRefs()
	w.dag()
	w.runChecks()
	w.authority()
	return w
}

// envelope judges the nine keys and the value authorities.
func (w *workflow) envelope() {
	c := w.c
	for _, p := range pairs(w.root) {
		k := p.k.Value
		switch k {
		case "nika", "model", "inputs", "const", "secrets", "permits", "run", "tasks", "outputs":
		case "vars":
			c.add("NIKA-VALUES-001", p.k, "move each entry to inputs: (a parameter) or const: (a fixed value)", "the vars: block is dead")
		case "env":
			c.add("NIKA-VALUES-002", p.k, "move deployment knobs to inputs: with required: false and a default:", "the envelope env: block is dead")
		case "workflow":
			c.add("NIKA-PARSE-005", p.k, "remove workflow: and put the id on the first line: nika: <id>", "workflow: is no longer an envelope key; the id lives on nika:")
		case "description":
			c.add("NIKA-PARSE-005", p.k, "turn the description into a YAML comment", "description: is not an envelope key")
		case "policy":
			c.add("NIKA-PARSE-005", p.k, "remove the block; the order and consent laws apply with no declaration", "the policy: block is dead")
		case "config":
			c.add("NIKA-PARSE-005", p.k, "declare each knob as an inputs: entry with required: false and a default:", "the config: block is dead")
		case "types":
			c.add("NIKA-PARSE-005", p.k, "write each type inline where it is used", "the types: block is dead; types are written inline")
		default:
			c.add("NIKA-PARSE-005", p.k, "remove the key"+didYouMean(k, envelopeKeys), "unknown envelope key %q; the envelope is closed to nine keys", k)
		}
	}
	nk := mapKey(w.root, "nika")
	nv := mapGet(w.root, "nika")
	switch {
	case nk == nil:
		c.add("NIKA-PARSE-002", w.root, "add a first line nika: <kebab-case-name>", "the nika: key is missing; without it this is not a Nika file")
	case !isStr(nv) || !kebabRe.MatchString(nv.Value) || versionRe.MatchString(nv.Value):
		fix := "write the file's kebab-case name, e.g. nika: my-workflow"
		if nv != nil && versionRe.MatchString(nv.Value) {
			if wf := mapGet(w.root, "workflow"); isStr(wf) && kebabRe.MatchString(wf.Value) {
				fix = "write nika: " + wf.Value + " and drop the workflow: key"
			} else {
				fix = "nika: is the file's name, not a version; write nika: <kebab-case-name>"
			}
		}
		val := ""
		if nv != nil {
			val = nv.Value
		}
		if versionRe.MatchString(val) {
			c.add("NIKA-PARSE-003", nv, fix, "nika: %q is a version, not the file's name", val)
		} else {
			c.add("NIKA-PARSE-003", nv, fix, "nika: %q is not a kebab-case name", val)
		}
	default:
		w.name = nv.Value
	}
	if m := mapGet(w.root, "model"); m != nil {
		if !isStr(m) {
			c.add("NIKA-PARSE-019", m, "write model: <provider>/<name>", "model: must be a string, found %s", kindName(m))
		} else {
			w.model = m.Value
			w.checkModel(m, true)
		}
	}
	w.inputsBlock(mapGet(w.root, "inputs"))
	w.constBlock(mapGet(w.root, "const"))
	w.secretsBlock(mapGet(w.root, "secrets"))
	w.permitsBlock(mapKey(w.root, "permits"), mapGet(w.root, "permits"))
	w.runBlock(mapGet(w.root, "run"))
	if o := mapGet(w.root, "outputs"); o != nil {
		w.outputs = o
		if !isMap(o) && !isNull(o) {
			c.add("NIKA-PARSE-019", o, "write outputs: as a map of name: ${{ tasks.<id>.output }}", "outputs: must be a map, found %s", kindName(o))
		}
		for _, p := range pairs(o) {
			switch {
			case isStr(p.v):
			case isMap(p.v):
				for _, q := range pairs(p.v) {
					switch q.k.Value {
					case "value", "description":
						if !isStr(q.v) {
							c.add("NIKA-PARSE-019", q.v, "", "outputs.%s.%s must be a string", p.k.Value, q.k.Value)
						}
					case "type":
						w.checkType(q.v, false)
					default:
						c.add("NIKA-PARSE-005", q.k, "keep value, type and description", "unknown key %q in outputs.%s", q.k.Value, p.k.Value)
					}
				}
				if mapGet(p.v, "value") == nil {
					c.add("NIKA-PARSE-019", p.v, "add value: ${{ tasks.<id>.output }}", "the typed output %q has no value:", p.k.Value)
				}
			default:
				c.add("NIKA-PARSE-019", p.v, "", "outputs.%s must be a reference string or {value, type}", p.k.Value)
			}
		}
	}
}

var providers = []string{"ollama", "lmstudio", "llamacpp", "localai", "vllm", "mistral", "anthropic", "openai", "gemini", "deepseek", "xai", "groq", "openrouter", "huggingface", "nvidia", "moonshot", "mock"}

// checkModel judges a literal model id; a templated one is the run's call
// (its references are resolved here for the envelope, and by the verb-body
// pass for a task).
func (w *workflow) checkModel(n *yaml.Node, envelope bool) {
	v := n.Value
	if hasTemplate(v) {
		if envelope {
			w.c.exprsIn(nil, n, surfEnvelope, w)
		}
		return
	}
	prov, name, ok := strings.Cut(v, "/")
	if !ok || prov == "" || name == "" {
		w.c.add("NIKA-PROVIDER-001", n, "write <provider>/<name>, e.g. anthropic/claude-sonnet-4-6", "model %q is not <provider>/<name>", v)
		return
	}
	for _, p := range providers {
		if p == prov {
			return
		}
	}
	w.c.add("NIKA-PROVIDER-001", n, "use a canonical provider prefix"+didYouMean(prov, providers), "model %q names an unknown provider %q", v, prov)
}

func (w *workflow) inputsBlock(n *yaml.Node) {
	c := w.c
	if n == nil || isNull(n) {
		return
	}
	if !isMap(n) {
		c.add("NIKA-PARSE-019", n, "", "inputs: must be a map of typed declarations, found %s", kindName(n))
		return
	}
	for _, p := range pairs(n) {
		w.inputs[p.k.Value] = p.v
		if !isMap(p.v) {
			c.add("NIKA-PARSE-019", p.v, "write "+p.k.Value+": { type: string }", "input %q must be a typed declaration {type, required, default, description}", p.k.Value)
			continue
		}
		for _, q := range pairs(p.v) {
			switch q.k.Value {
			case "type":
				w.checkType(q.v, false)
			case "required":
				if !isBool(q.v) {
					c.add("NIKA-PARSE-019", q.v, "", "inputs.%s.required must be a boolean", p.k.Value)
				}
			case "default":
			case "description":
				if !isStr(q.v) {
					c.add("NIKA-PARSE-019", q.v, "", "inputs.%s.description must be a string", p.k.Value)
				}
			default:
				c.add("NIKA-PARSE-005", q.k, "keep type, required, default and description", "unknown key %q in inputs.%s", q.k.Value, p.k.Value)
			}
		}
		t := mapGet(p.v, "type")
		if t == nil {
			c.add("NIKA-PARSE-019", p.v, "add type: string (or the type it carries)", "input %q declares no type:", p.k.Value)
		} else if d := mapGet(p.v, "default"); d != nil {
			if !fitsType(d, t) {
				c.add("NIKA-DEFAULT-001", d, "make the default fit the declared type", "the default of input %q does not fit its type", p.k.Value)
			}
		}
	}
}

func (w *workflow) constBlock(n *yaml.Node) {
	c := w.c
	if n == nil || isNull(n) {
		return
	}
	if !isMap(n) {
		c.add("NIKA-PARSE-019", n, "", "const: must be a map of named constants, found %s", kindName(n))
		return
	}
	for _, p := range pairs(n) {
		v := p.v
		if isMap(v) && mapGet(v, "type") != nil && mapGet(v, "value") != nil {
			for _, q := range pairs(v) {
				if q.k.Value != "type" && q.k.Value != "value" {
					c.add("NIKA-PARSE-005", q.k, "a typed constant carries exactly type: and value:", "unknown key %q in the typed constant %q", q.k.Value, p.k.Value)
				}
			}
			t := mapGet(v, "type")
			if w.checkType(t, false) && !fitsType(mapGet(v, "value"), t) {
				c.add("NIKA-DEFAULT-001", mapGet(v, "value"), "make the value fit the declared type", "the value of constant %q does not fit its type", p.k.Value)
			}
			v = mapGet(v, "value")
		}
		w.consts[p.k.Value] = v
	}
}

func (w *workflow) secretsBlock(n *yaml.Node) {
	c := w.c
	if n == nil || isNull(n) {
		return
	}
	if !isMap(n) {
		c.add("NIKA-PARSE-019", n, "", "secrets: must be a map of store references, found %s", kindName(n))
		return
	}
	for _, p := range pairs(n) {
		d := &secretDecl{name: p.k.Value, node: p.k}
		w.secrets[p.k.Value] = d
		if !isMap(p.v) {
			c.add("NIKA-PARSE-014", p.v, "write "+p.k.Value+": { source: env, key: ENV_VAR_NAME }", "secret %q is an inline value, not a store reference", p.k.Value)
			continue
		}
		for _, q := range pairs(p.v) {
			switch q.k.Value {
			case "source", "key", "path":
				if !isStr(q.v) {
					c.add("NIKA-PARSE-019", q.v, "", "secrets.%s.%s must be a string", p.k.Value, q.k.Value)
				}
			case "egress":
				d.egress = w.egressList(p.k.Value, q.v)
			default:
				c.add("NIKA-PARSE-005", q.k, "keep source, key (or path) and egress", "unknown key %q in secrets.%s", q.k.Value, p.k.Value)
			}
		}
		src := mapGet(p.v, "source")
		switch {
		case src == nil:
			c.add("NIKA-PARSE-014", p.v, "add source: env (with key:) or source: file (with path:)", "secret %q declares no source:", p.k.Value)
		case src.Value == "env":
			if mapGet(p.v, "key") == nil {
				c.add("NIKA-PARSE-014", src, "add key: ENV_VAR_NAME", "secret %q with source env needs key:", p.k.Value)
			}
			if k := mapKey(p.v, "path"); k != nil {
				c.add("NIKA-PARSE-019", k, "drop path:; source env reads key:", "secret %q with source env cannot carry path:", p.k.Value)
			}
		case src.Value == "file":
			if mapGet(p.v, "path") == nil {
				c.add("NIKA-PARSE-014", src, "add path: <file holding the value>", "secret %q with source file needs path:", p.k.Value)
			}
			if k := mapKey(p.v, "key"); k != nil {
				c.add("NIKA-PARSE-019", k, "drop key:; source file reads path:", "secret %q with source file cannot carry key:", p.k.Value)
			}
		case src.Value == "vault":
			c.add("NIKA-PARSE-019", src, "use source: env or source: file until vault resolution ships", "secret %q uses source vault, which is withdrawn until it resolves at run time", p.k.Value)
		default:
			// A source outside the closed set names no store, so the
			// entry is not a store reference.
			c.add("NIKA-PARSE-014", src, "use source: env or source: file", "secret %q has an unknown source %q, so it references no store", p.k.Value, src.Value)
		}
	}
}

func (w *workflow) egressList(secret string, n *yaml.Node) []egressRule {
	c := w.c
	if isNull(n) {
		return nil
	}
	if !isSeq(n) {
		c.add("NIKA-PARSE-019", n, "write egress: [{ to: \"nika:fetch\", host: \"api.example.com\" }]", "secrets.%s.egress must be a list", secret)
		return nil
	}
	var out []egressRule
	for _, it := range n.Content {
		if !isMap(it) {
			c.add("NIKA-PARSE-019", it, "", "an egress rule of secret %q must be a map {to, host}", secret)
			continue
		}
		var r egressRule
		for _, q := range pairs(it) {
			switch q.k.Value {
			case "to":
				r.to = q.v.Value
			case "host":
				r.host = q.v.Value
			case "host_from_self":
				b, ok := boolVal(q.v)
				if !ok {
					c.add("NIKA-PARSE-019", q.v, "", "host_from_self must be a boolean")
				}
				r.hostFromSelf = b
			default:
				c.add("NIKA-PARSE-005", q.k, "keep to, host or host_from_self", "unknown key %q in an egress rule of secret %q", q.k.Value, secret)
			}
		}
		if mapGet(it, "to") == nil {
			c.add("NIKA-PARSE-019", it, "add to: \"<sink>\" (a tool id, exec, infer, agent or outputs)", "an egress rule of secret %q has no to:", secret)
		}
		if mapGet(it, "host") != nil && mapGet(it, "host_from_self") != nil {
			c.add("NIKA-PARSE-019", it, "keep host: or host_from_self:, not both", "an egress rule of secret %q names both host and host_from_self", secret)
		}
		out = append(out, r)
	}
	return out
}

func (w *workflow) runBlock(n *yaml.Node) {
	c := w.c
	if n == nil || isNull(n) {
		return
	}
	w.run = n
	if !isMap(n) {
		c.add("NIKA-PARSE-019", n, "", "run: must be a map {entropy, clock}, found %s", kindName(n))
		return
	}
	entropy, clock := "", ""
	for _, p := range pairs(n) {
		switch p.k.Value {
		case "entropy":
			switch {
			case isStr(p.v) && (p.v.Value == "none" || p.v.Value == "ambient"):
				entropy = p.v.Value
			case isMap(p.v) && len(p.v.Content) == 2 && p.v.Content[0].Value == "seeded":
				if v, ok := intVal(p.v.Content[1]); !ok || v < 0 {
					c.add("NIKA-PARSE-019", p.v.Content[1], "", "entropy.seeded must be a non-negative integer")
				}
				entropy = "seeded"
			default:
				c.add("NIKA-PARSE-019", p.v, "write entropy: none, ambient or { seeded: <n> }", "run.entropy has an unknown value")
			}
		case "clock":
			if isStr(p.v) && (p.v.Value == "system" || p.v.Value == "virtual") {
				clock = p.v.Value
			} else {
				c.add("NIKA-PARSE-019", p.v, "write clock: system or clock: virtual", "run.clock has an unknown value")
			}
		default:
			c.add("NIKA-PARSE-005", p.k, "keep entropy and clock", "unknown key %q in run:", p.k.Value)
		}
	}
	if entropy == "ambient" && clock == "virtual" {
		c.add("NIKA-PARSE-026", n, "declare entropy: none or { seeded: n } with a virtual clock, or clock: system", "run: pairs ambient entropy with a virtual clock")
	}
	if (entropy == "none" || entropy == "seeded") && clock == "system" {
		c.add("NIKA-PARSE-027", n, "declare clock: virtual", "run: pairs %s entropy with the system clock", entropy)
	}
}

// collectTasks reads the tasks: map into the workflow model.
func (w *workflow) collectTasks() {
	c := w.c
	tk := mapKey(w.root, "tasks")
	tn := mapGet(w.root, "tasks")
	switch {
	case tk == nil:
		c.add("NIKA-PARSE-002", w.root, "add a tasks: map with at least one task", "the tasks: key is missing")
		return
	case isSeq(tn) && len(tn.Content) > 0:
		c.add("NIKA-PARSE-022", tn, "make each task a key of the tasks: map (the map key is the id)", "tasks: is a list; it is a map keyed by task id")
		return
	case isSeq(tn) || isNull(tn) || (isMap(tn) && len(tn.Content) == 0):
		c.add("NIKA-PARSE-002", tk, "add at least one task", "tasks: is empty")
		return
	case !isMap(tn):
		c.add("NIKA-PARSE-019", tn, "", "tasks: must be a map of tasks, found %s", kindName(tn))
		return
	}
	for _, p := range pairs(tn) {
		id := p.k.Value
		if !snakeRe.MatchString(id) {
			fix := ""
			if s := strings.ReplaceAll(strings.ToLower(id), "-", "_"); snakeRe.MatchString(s) {
				fix = "rename the task to " + s
			}
			c.add("NIKA-PARSE-006", p.k, fix, "task id %q is not snake_case", id)
		}
		if _, dup := w.byID[id]; dup {
			c.add("NIKA-PARSE-007", p.k, "rename one of the two tasks", "task id %q is declared twice", id)
			continue
		}
		t := &task{id: id, key: p.k, body: p.v, with: map[string]*yaml.Node{}, withKey: map[string]*yaml.Node{},
			withRefs: map[string][]ref{}, extracts: map[string]bool{}, deps: map[string]bool{}, dataDeps: map[string]bool{}}
		w.tasks = append(w.tasks, t)
		w.byID[id] = t
		if g := mapGet(p.v, "group"); isStr(g) {
			t.group = g.Value
			t.groupKey = mapKey(p.v, "group")
			w.groups[g.Value] = append(w.groups[g.Value], id)
		}
		if e := mapGet(p.v, "extract"); isMap(e) {
			for _, q := range pairs(e) {
				t.extracts[q.k.Value] = true
			}
		}
		if a := mapGet(p.v, "after"); isMap(a) {
			for _, q := range pairs(a) {
				t.after = append(t.after, afterEdge{target: q.k.Value, pred: q.v.Value, key: q.k})
				if q.v.Value == "unwind" {
					t.unwinds = append(t.unwinds, q.k.Value)
				}
			}
		}
		if f := mapGet(p.v, "for_each"); f != nil {
			t.forEach = true
		}
		for _, v := range verbs {
			if n := mapGet(p.v, v); n != nil && t.verb == "" {
				t.verb, t.verbNode, t.verbKey = v, n, mapKey(p.v, v)
			}
		}
		if t.verb == "invoke" {
			if tl := mapGet(t.verbNode, "tool"); isStr(tl) {
				t.tool, t.toolNode = tl.Value, tl
			}
			t.args = mapGet(t.verbNode, "args")
		}
		if t.verb == "infer" || t.verb == "agent" {
			t.schema = mapGet(t.verbNode, "schema")
		}
		t.returns = mapGet(p.v, "returns")
	}
}

// taskShape judges the closed key sets and the shapes of one task.
func (w *workflow) taskShape(t *task) {
	c := w.c
	body := t.body
	if isNull(body) {
		c.add("NIKA-PARSE-008", t.key, "give the task exactly one verb: infer:, exec:, invoke: or agent:", "task %q declares no verb", t.id)
		return
	}
	if !isMap(body) {
		c.add("NIKA-PARSE-019", body, "", "task %q must be a map, found %s", t.id, kindName(body))
		return
	}
	var found []*yaml.Node
	for _, p := range pairs(body) {
		k := p.k.Value
		switch k {
		case "infer", "exec", "invoke", "agent":
			found = append(found, p.k)
		case "with", "group", "after", "when", "for_each", "retry", "on_error", "timeout", "returns", "extract", "lift":
		case "id":
			c.add("NIKA-PARSE-023", p.k, "remove the id: line; the map key is the id", "task %q carries an id: field", t.id)
		case "depends_on":
			c.add("NIKA-PARSE-024", p.k, "read the producer through with: { x: ${{ tasks.<id>.output }} }, or order it with after: { <id>: success }", "depends_on: is dead")
		case "needs":
			c.add("NIKA-PARSE-005", p.k, "write after: { <task>: success }", "needs: is not a task key")
		case "output":
			c.add("NIKA-PARSE-005", p.k, "rename output: to extract:", "the task field output: was renamed extract:")
		case "on_finally":
			c.add("NIKA-PARSE-005", p.k, "write the cleanup as its own task with after: { "+t.id+": unwind }", "on_finally: is dead; cleanup is a task on an unwind edge")
		case "max_parallel", "fail_fast":
			c.add("NIKA-PARSE-005", p.k, "move "+k+": under for_each:", "%s: is a for_each sub-field", k)
		case "fetch":
			c.add("NIKA-PARSE-005", p.k, "write invoke: { tool: nika:fetch, args: { url: ... } }", "fetch: is not a verb; fetching is the nika:fetch tool")
		default:
			c.add("NIKA-PARSE-005", p.k, "remove the key"+didYouMean(k, taskKeys), "unknown key %q in task %q", k, t.id)
		}
	}
	switch {
	case len(found) == 0:
		c.add("NIKA-PARSE-008", t.key, "give the task exactly one verb: infer:, exec:, invoke: or agent:", "task %q declares no verb", t.id)
	case len(found) > 1:
		c.add("NIKA-PARSE-009", found[1], "split the task so that each task has one verb", "task %q declares %d verbs", t.id, len(found))
	}
	if t.verb != "" {
		w.verbShape(t)
	}
	w.boundaryShapes(t)
}

func (w *workflow) verbShape(t *task) {
	c := w.c
	v := t.verbNode
	if !isMap(v) {
		fix := ""
		if t.verb == "exec" && isStr(v) {
			fix = "write exec: { command: [\"prog\", \"arg\"] } or exec: { shell: \"...\" }"
		}
		c.add("NIKA-PARSE-019", v, fix, "%s: must be a map, found %s", t.verb, kindName(v))
		return
	}
	allowed := verbKeys[t.verb]
	for _, p := range pairs(v) {
		ok := false
		for _, a := range allowed {
			if a == p.k.Value {
				ok = true
			}
		}
		if ok {
			continue
		}
		fix := "remove the key" + didYouMean(p.k.Value, allowed)
		switch {
		case t.verb == "invoke" && p.k.Value == "params":
			fix = "rename params: to args:"
		case t.verb == "exec" && p.k.Value == "argv":
			fix = "rename argv: to command:"
		}
		c.add("NIKA-PARSE-005", p.k, fix, "unknown key %q in %s:", p.k.Value, t.verb)
	}
	switch t.verb {
	case "infer", "agent":
		if p := mapGet(v, "prompt"); p == nil {
			c.add("NIKA-PARSE-018", t.verbKey, "add prompt: \"...\"", "%s: requires prompt:", t.verb)
		} else if !isStr(p) {
			c.add("NIKA-PARSE-019", p, "", "%s.prompt must be a string", t.verb)
		}
		if s := mapGet(v, "system"); s != nil && !isStr(s) {
			c.add("NIKA-PARSE-019", s, "", "%s.system must be a string", t.verb)
		}
		if m := mapGet(v, "model"); m != nil {
			if !isStr(m) {
				c.add("NIKA-PARSE-019", m, "", "%s.model must be a string", t.verb)
			} else {
				w.checkModel(m, false)
			}
		}
		if s := mapGet(v, "schema"); s != nil && !isMap(s) {
			c.add("NIKA-PARSE-019", s, "", "%s.schema must be a JSON Schema object", t.verb)
		}
		if tp := mapGet(v, "temperature"); tp != nil && !isNumber(tp) && !(isStr(tp) && hasTemplate(tp.Value)) {
			c.add("NIKA-PARSE-019", tp, "", "temperature must be a number")
		}
		for _, k := range []string{"max_tokens", "max_turns", "max_tokens_total"} {
			if n := mapGet(v, k); n != nil && !isInt(n) && !(isStr(n) && hasTemplate(n.Value)) {
				c.add("NIKA-PARSE-019", n, "", "%s must be an integer", k)
			}
		}
		if th := mapGet(v, "thinking"); th != nil {
			if !isMap(th) {
				c.add("NIKA-PARSE-019", th, "", "thinking must be a map {enabled, budget_tokens}")
			}
			for _, p := range pairs(th) {
				if p.k.Value != "enabled" && p.k.Value != "budget_tokens" {
					c.add("NIKA-PARSE-005", p.k, "keep enabled and budget_tokens", "unknown key %q in thinking:", p.k.Value)
				}
			}
		}
		if vis := mapGet(v, "vision"); vis != nil && !isSeq(vis) {
			c.add("NIKA-PARSE-019", vis, "", "vision must be a list of images")
		}
		if t.verb == "agent" {
			if tl := mapGet(v, "tools"); tl != nil {
				items, ok := strs(tl)
				if !ok {
					c.add("NIKA-PARSE-019", tl, "", "agent.tools must be a list of tool ids")
				}
				for i, id := range items {
					w.checkToolPattern(tl.Content[i], id)
				}
			}
			if sk := mapGet(v, "skills"); sk != nil {
				if _, ok := strs(sk); !ok {
					c.add("NIKA-PARSE-019", sk, "", "agent.skills must be a list of file paths")
				}
			}
		}
	case "exec":
		cmd, sh := mapGet(v, "command"), mapGet(v, "shell")
		switch {
		case cmd == nil && sh == nil:
			c.add("NIKA-PARSE-018", t.verbKey, "add command: [\"prog\", \"arg\"] (no shell) or shell: \"...\"", "exec: requires command: or shell:")
		case cmd != nil && sh != nil:
			c.add("NIKA-PARSE-019", mapKey(v, "shell"), "keep one of command: (argv) and shell: (a shell line)", "exec: carries both command: and shell:")
		}
		if cmd != nil {
			if isStr(cmd) {
				c.add("NIKA-PARSE-019", cmd, "write shell: \""+cmd.Value+"\" for a shell line, or an argv list", "exec.command is a string; a shell line is spelled shell:")
			} else if items, ok := strs(cmd); !ok || len(items) == 0 {
				c.add("NIKA-PARSE-019", cmd, "write command: [\"prog\", \"arg\"]", "exec.command must be a non-empty list of strings")
			}
		}
		if sh != nil && (!isStr(sh) || sh.Value == "") {
			c.add("NIKA-PARSE-019", sh, "", "exec.shell must be a non-empty string")
		}
		if e := mapGet(v, "env"); e != nil {
			if !isMap(e) {
				c.add("NIKA-PARSE-019", e, "", "exec.env must be a map of NAME: value")
			}
			for _, p := range pairs(e) {
				if !isScalar(p.v) {
					c.add("NIKA-PARSE-019", p.v, "", "exec.env.%s must be a string", p.k.Value)
				}
			}
		}
		for _, k := range []string{"cwd", "stdin"} {
			if n := mapGet(v, k); n != nil && !isStr(n) {
				c.add("NIKA-PARSE-019", n, "", "exec.%s must be a string", k)
			}
		}
		capture := mapGet(v, "capture")
		if capture != nil && !(isStr(capture) && oneOf(capture.Value, "stdout", "stderr", "combined", "structured")) {
			c.add("NIKA-PARSE-019", capture, "use stdout, stderr, combined or structured", "exec.capture has an unknown value")
		}
		decode := mapGet(v, "decode")
		if decode != nil && !(isStr(decode) && oneOf(decode.Value, "text", "json", "jsonl", "bytes")) {
			c.add("NIKA-PARSE-019", decode, "use text, json, jsonl or bytes", "exec.decode has an unknown value")
		}
		if decode != nil && capture != nil && capture.Value == "structured" {
			c.add("NIKA-PARSE-025", decode, "drop decode: and type the {stdout, stderr, exit_code} object with returns:", "decode: is not allowed with capture: structured")
		}
	case "invoke":
		tl, wf := mapGet(v, "tool"), mapGet(v, "workflow")
		switch {
		case tl == nil && wf == nil:
			c.add("NIKA-PARSE-018", t.verbKey, "add tool: \"nika:<builtin>\" or tool: \"mcp:<server>/<tool>\"", "invoke: requires tool: (or workflow: for a composed child)")
		case tl != nil && wf != nil:
			// « Both present, or neither, is a validation error (NIKA-PARSE ·
			// the same shape as two verbs on one task) ».
			c.add("NIKA-PARSE-009", mapKey(v, "workflow"), "keep tool: or workflow:, not both", "invoke: carries both tool: and workflow:, two callees on one task")
		}
		if tl != nil {
			if !isStr(tl) {
				c.add("NIKA-PARSE-019", tl, "", "invoke.tool must be a string")
			} else {
				w.checkTool(t, tl)
			}
		}
		if wf != nil && !isStr(wf) {
			c.add("NIKA-PARSE-019", wf, "", "invoke.workflow must be a path string")
		}
		if a := mapGet(v, "args"); a != nil && !isMap(a) && !isNull(a) {
			c.add("NIKA-PARSE-019", a, "", "invoke.args must be a map")
		}
	}
	if t.returns != nil {
		if w.checkType(t.returns, false) {
			w.returnsFit(t)
		}
		if t.schema != nil {
			c.add("NIKA-TYPE-003", mapKey(t.body, "returns"), "keep returns: and drop the verb's schema:", "task %q declares both returns: and schema:", t.id)
		}
	}
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// boundaryShapes judges the task-level fields around the verb.
func (w *workflow) boundaryShapes(t *task) {
	c := w.c
	b := t.body
	if wn := mapGet(b, "with"); wn != nil {
		if !isMap(wn) {
			c.add("NIKA-PARSE-019", wn, "write with: { name: ${{ tasks.<id>.output }} }", "with: must be a map of bindings")
		}
		for _, p := range pairs(wn) {
			if reservedBindings[p.k.Value] {
				c.add("NIKA-PARSE-013", p.k, "rename the binding", "binding name %q is reserved", p.k.Value)
			}
			t.with[p.k.Value] = p.v
			t.withKey[p.k.Value] = p.k
		}
	}
	if e := mapGet(b, "extract"); e != nil {
		if !isMap(e) {
			c.add("NIKA-PARSE-019", e, "write extract: { name: \".jq.path\" }", "extract: must be a map of jq bindings")
		}
		for _, p := range pairs(e) {
			if reservedBindings[p.k.Value] {
				c.add("NIKA-PARSE-013", p.k, "rename the binding", "binding name %q is reserved", p.k.Value)
			}
			if !isStr(p.v) {
				c.add("NIKA-PARSE-019", p.v, "", "extract.%s must be a jq expression string", p.k.Value)
			} else if hasTemplate(p.v.Value) {
				c.add("NIKA-VAR-005", p.v, "a jq binding reads the task's output only; remove the ${{ }}", "extract.%s carries a ${{ }} template", p.k.Value)
			} else if jqReadsEnv(p.v.Value) {
				c.add("NIKA-VAR-005", p.v, "declare the value as an input or a secret and bind it with with:", "extract.%s reads the engine's environment; an expression sees only its input", p.k.Value)
			} else {
				w.jqCompiles(p.v, "extract."+p.k.Value+" jq binding")
			}
		}
	}
	if g := mapGet(b, "group"); g != nil {
		if !isStr(g) || !snakeRe.MatchString(g.Value) {
			c.add("NIKA-PARSE-019", g, "", "group: must be a snake_case name")
		}
		if len(t.unwinds) > 0 {
			c.add("NIKA-DAG-009", mapKey(b, "group"), "drop group: from the cleanup task", "task %q unwinds another task and cannot join group %q", t.id, g.Value)
		}
	}
	if a := mapGet(b, "after"); a != nil {
		if !isMap(a) {
			fix := "write after: { <task>: success }"
			if isSeq(a) {
				var parts []string
				for _, it := range a.Content {
					if isStr(it) {
						parts = append(parts, it.Value+": success")
					}
				}
				if len(parts) > 0 {
					fix = "write after: { " + strings.Join(parts, ", ") + " }"
				}
			}
			c.add("NIKA-PARSE-019", a, fix, "after: must be a map {task: predicate}, found %s", kindName(a))
		}
		for _, p := range pairs(a) {
			if _, ok := w.byID[p.k.Value]; !ok {
				c.add("NIKA-DAG-002", p.k, "name a declared task"+didYouMean(p.k.Value, w.ids()), "after: names undeclared task %q", p.k.Value)
			}
			if !isStr(p.v) || !oneOf(p.v.Value, afterPredicates...) {
				fix := "use success, failure, skipped, terminal or unwind"
				switch p.v.Value {
				case "succeeded", "passed", "ok", "completed":
					fix = "write success"
				case "failed", "error", "errored":
					fix = "write failure"
				case "always", "done", "finished", "settled":
					fix = "write terminal"
				}
				c.add("NIKA-DAG-005", p.v, fix, "after: predicate %q is outside the closed set", p.v.Value)
			}
		}
	}
	if wh := mapGet(b, "when"); wh != nil {
		t.when = wh
		switch {
		case isBool(wh):
		case isStr(wh):
			isl, unclosed := islands(wh.Value)
			if unclosed >= 0 {
				break // reported by the reference pass
			}
			if len(isl) != 1 || !isl[0].whole {
				c.add("NIKA-VAR-005", wh, "write a boolean expression: when: ${{ with.x == 'y' }}, or the literal true/false", "when: must be one ${{ }} boolean expression or a YAML boolean")
				break
			}
			e, err := w.c.parseCEL(isl[0].expr)
			if err != nil {
				break // reported by the reference pass
			}
			t.whenExpr = e
			if !boolShaped(e) {
				c.add("NIKA-VAR-005", wh, "compare explicitly, e.g. ${{ with.x != '' }} or ${{ size(with.items) > 0 }}", "when: is not boolean-shaped")
			}
		default:
			c.add("NIKA-VAR-005", wh, "write when: ${{ <boolean expression> }}", "when: must be a boolean expression, found %s", kindName(wh))
		}
	}
	if f := mapGet(b, "for_each"); f != nil {
		if !isMap(f) {
			c.add("NIKA-PARSE-019", f, "write for_each: { items: <list or ${{ with.x }}> }", "for_each: must be a map {items, max_parallel, fail_fast}")
		}
		for _, p := range pairs(f) {
			switch p.k.Value {
			case "items":
				if !isSeq(p.v) && !isStr(p.v) {
					c.add("NIKA-PARSE-019", p.v, "", "for_each.items must be a list or a ${{ }} expression")
				}
			case "max_parallel":
				if n, ok := intVal(p.v); !ok || n < 1 {
					c.add("NIKA-PARSE-019", p.v, "", "for_each.max_parallel must be an integer of at least 1")
				}
			case "fail_fast":
				if !isBool(p.v) {
					c.add("NIKA-PARSE-019", p.v, "", "for_each.fail_fast must be a boolean")
				}
			default:
				c.add("NIKA-PARSE-005", p.k, "keep items, max_parallel and fail_fast", "unknown key %q in for_each:", p.k.Value)
			}
		}
		if isMap(f) && mapGet(f, "items") == nil {
			c.add("NIKA-PARSE-019", f, "add items:", "for_each: requires items:")
		}
	}
	if r := mapGet(b, "retry"); r != nil {
		w.retryShape(r)
	}
	if o := mapGet(b, "on_error"); o != nil {
		w.onErrorShape(t, o)
	}
	if to := mapGet(b, "timeout"); to != nil {
		if msg := badDuration(to); msg != "" {
			c.add("NIKA-PARSE-010", to, "write a quoted duration such as \"30s\", \"5m\" or \"1h30m\"", "timeout %q %s", to.Value, msg)
		}
	}
	if l := mapGet(b, "lift"); l != nil {
		w.liftShape(t, l)
	}
}

func (w *workflow) ids() []string {
	out := make([]string, 0, len(w.tasks))
	for _, t := range w.tasks {
		out = append(out, t.id)
	}
	return out
}

// badDuration explains what is wrong with a timeout, or returns "".
func badDuration(n *yaml.Node) string {
	if !isStr(n) {
		return "is not a quoted duration string"
	}
	s := n.Value
	if !durationRe.MatchString(s) {
		return "is not a Go duration (units ns, us, ms, s, m, h)"
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
		return "must be quoted, so that no YAML reading can turn it into a number"
	}
	order := map[string]int{"h": 0, "m": 1, "s": 2, "ms": 3, "us": 4, "µs": 4, "ns": 5}
	scale := map[string]float64{"h": 3600e9, "m": 60e9, "s": 1e9, "ms": 1e6, "us": 1e3, "µs": 1e3, "ns": 1}
	last := -1
	var total float64
	for _, m := range durPartRe.FindAllStringSubmatch(s, -1) {
		o := order[m[2]]
		if o <= last {
			return "does not list its units in descending order"
		}
		last = o
		var f float64
		fmt.Sscan(m[1], &f)
		total += f * scale[m[2]]
	}
	if total <= 0 {
		return "is not positive"
	}
	if total > 24*3600e9 {
		return "is over the 24h maximum"
	}
	return ""
}

func (w *workflow) retryShape(r *yaml.Node) {
	c := w.c
	if !isMap(r) {
		c.add("NIKA-PARSE-011", r, "write retry: { max_attempts: 3 }", "retry: must be a map")
		return
	}
	for _, p := range pairs(r) {
		switch p.k.Value {
		case "max_attempts":
			if n, ok := intVal(p.v); !ok || n < 1 {
				c.add("NIKA-PARSE-011", p.v, "set max_attempts to 1 or more (1 means no retry)", "retry.max_attempts must be an integer of at least 1")
			}
		case "backoff_ms", "backoff_max_ms":
			if n, ok := intVal(p.v); !ok || n < 0 {
				c.add("NIKA-PARSE-011", p.v, "", "retry.%s must be a non-negative integer", p.k.Value)
			}
		case "backoff_strategy":
			if !oneOf(p.v.Value, "fixed", "linear", "exponential") {
				c.add("NIKA-PARSE-011", p.v, "use fixed, linear or exponential", "retry.backoff_strategy has an unknown value")
			}
		case "jitter":
			if !isBool(p.v) {
				c.add("NIKA-PARSE-011", p.v, "", "retry.jitter must be a boolean")
			}
		case "on_codes":
			w.codeList("NIKA-PARSE-011", p.v, false)
		default:
			c.add("NIKA-PARSE-011", p.k, "keep max_attempts, backoff_ms, backoff_strategy, backoff_max_ms, jitter and on_codes", "unknown key %q in retry:", p.k.Value)
		}
	}
	if mapGet(r, "max_attempts") == nil {
		c.add("NIKA-PARSE-011", r, "add max_attempts:", "retry: requires max_attempts:")
	}
}

func (w *workflow) codeList(code string, n *yaml.Node, nonEmpty bool) {
	c := w.c
	if !isSeq(n) {
		c.add(code, n, "", "on_codes must be a list of NIKA-<NS>-<NNN> codes")
		return
	}
	if nonEmpty && len(n.Content) == 0 {
		c.add(code, n, "", "on_codes must not be empty")
	}
	for _, it := range n.Content {
		if !isStr(it) || !codeRe.MatchString(it.Value) {
			c.add(code, it, "write a code such as NIKA-TIMEOUT-001", "%q is not a NIKA-<NS>-<NNN> code", it.Value)
		}
	}
}

func (w *workflow) onErrorShape(t *task, o *yaml.Node) {
	c := w.c
	if !isMap(o) {
		c.add("NIKA-PARSE-012", o, "write on_error: { recover: <value> } or on_error: { skip: true }", "on_error: must be a map")
		return
	}
	actions := 0
	for _, p := range pairs(o) {
		switch p.k.Value {
		case "recover":
			actions++
			t.recover = p.v
		case "skip":
			actions++
			if b, ok := boolVal(p.v); !ok || !b {
				c.add("NIKA-PARSE-012", p.v, "write skip: true, or drop on_error:", "on_error.skip must be true")
			}
		case "on_codes":
			w.codeList("NIKA-PARSE-012", p.v, true)
		case "fallback", "value":
			c.add("NIKA-PARSE-012", p.k, "rename "+p.k.Value+": to recover:", "on_error.%s is dead; it merged into recover:", p.k.Value)
			actions++
		case "fail_workflow":
			c.add("NIKA-PARSE-012", p.k, "remove on_error: to get the default (the task fails)", "on_error.fail_workflow is removed")
			actions++
		default:
			c.add("NIKA-PARSE-012", p.k, "keep recover: or skip:, and optionally on_codes:", "unknown key %q in on_error:", p.k.Value)
		}
	}
	if actions == 0 {
		c.add("NIKA-PARSE-012", o, "add recover: <value> or skip: true", "on_error: declares no action")
	}
	if actions > 1 {
		c.add("NIKA-PARSE-012", o, "keep exactly one of recover: and skip:", "on_error: declares more than one action")
	}
}

func (w *workflow) liftShape(t *task, l *yaml.Node) {
	c := w.c
	if !isSeq(l) || len(l.Content) == 0 {
		c.add("NIKA-PARSE-019", l, "write lift: [{ law: taint, from: inputs.x, because: \"...\" }]", "lift: must be a non-empty list of entries")
		return
	}
	for _, it := range l.Content {
		if !isMap(it) {
			c.add("NIKA-PARSE-019", it, "", "a lift: entry must be a map {law, from, because}")
			continue
		}
		var e liftEntry
		e.node = it
		for _, p := range pairs(it) {
			switch p.k.Value {
			case "law":
				e.law = p.v.Value
				if !oneOf(p.v.Value, "taint", "data-as-code") {
					c.add("NIKA-PARSE-019", p.v, "use law: taint or law: data-as-code", "lift law %q has no door", p.v.Value)
				}
			case "from":
				e.from = p.v.Value
				if !isStr(p.v) || !liftFromRe.MatchString(p.v.Value) {
					c.add("NIKA-PARSE-019", p.v, "name one binding such as inputs.p", "lift from: must name one binding")
				}
			case "because":
				if !isStr(p.v) || strings.TrimSpace(p.v.Value) == "" {
					c.add("NIKA-PARSE-019", p.v, "say, in words a reviewer can judge, why this is safe", "lift because: must be a non-empty reason")
				}
			default:
				c.add("NIKA-PARSE-005", p.k, "keep law, from and because", "unknown key %q in a lift: entry", p.k.Value)
			}
		}
		if mapGet(it, "because") == nil {
			c.add("NIKA-PARSE-019", it, "add because: \"<why this is safe>\"", "a lift: entry needs because:")
		}
		if e.law == "taint" && mapGet(it, "from") == nil {
			c.add("NIKA-PARSE-019", it, "add from: <the binding>, e.g. from: inputs.p", "a taint lift needs from:")
		}
		if e.law != "taint" && e.law != "" && mapGet(it, "from") != nil {
			c.add("NIKA-PARSE-019", mapKey(it, "from"), "remove from:", "from: is only legal on a taint lift")
		}
		t.lifts = append(t.lifts, e)
	}
}

// runChecks judges the determinism claim against what the body consumes.
func (w *workflow) runChecks() {
	if w.run == nil {
		return
	}
	e := mapGet(w.run, "entropy")
	if !isStr(e) || e.Value != "none" {
		return
	}
	for _, t := range w.tasks {
		if r := mapGet(t.body, "retry"); isMap(r) {
			jit := true
			if j, ok := boolVal(mapGet(r, "jitter")); ok {
				jit = j
			}
			attempts, _ := intVal(mapGet(r, "max_attempts"))
			if jit && attempts > 1 {
				w.c.add("NIKA-PARSE-028", r, "set jitter: false on this retry", "task %q retries with a live jitter under entropy: none", t.id)
			}
		}
		if t.tool == "nika:uuid" {
			w.c.add("NIKA-PARSE-028", t.toolNode, "drop nika:uuid or declare entropy: { seeded: n }", "task %q consumes nika:uuid under entropy: none", t.id)
		}
	}
}

// sortedKeys returns the keys of a set, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
