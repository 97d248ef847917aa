package checker

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// need is one effect a task requires, inferred from its verb and its
// arguments.
type need struct {
	task  *task
	cat   string // fs.read, fs.write, net, exec, tools
	value string // the literal or resolved target; "" when dynamic
	node  *yaml.Node
	// tainted names the untrusted sources the value was resolved from.
	tainted []string
	shell   bool   // exec through a shell line
	line    string // the shell line, for the effect rows
	argv    []*yaml.Node
}

// value resolution of a string that may carry islands.
type resolved struct {
	text     string
	ok       bool     // every island resolved to a literal
	tainted  []string // untrusted sources used (inputs.X)
	dynamic  bool     // some island reads a runtime value (tasks, with of tasks, item)
	untrust  bool     // some island reads an untrusted runtime value
	onlyIsl  string   // the single island's expression when the string is one whole island
	secrets  []string // secrets read, directly or through one with: hop
	withRefs []string
}

// resolve substitutes the islands of s that denote known literals: const
// values (trusted) and input defaults (untrusted), through at most one
// with: hop.
func (w *workflow) resolveStr(t *task, s string, hop int) resolved {
	isl, unclosed := islands(s)
	r := resolved{ok: unclosed < 0}
	if len(isl) == 1 && isl[0].whole {
		r.onlyIsl = isl[0].expr
	}
	var b strings.Builder
	last := 0
	for _, is := range isl {
		b.WriteString(unescape(s[last:is.start]))
		end := strings.Index(s[is.start:], "}}")
		last = is.start + end + 2
		e, err := w.c.parseCEL(is.expr)
		if err != nil {
			r.ok = false
			continue
		}
		val, good := "", false
		if e.kind == celIdent || e.kind == celSelect {
			if rf, isRef := refOf(e); isRef && len(rf.path) == 1 {
				name := rf.path[0].name
				switch rf.root {
				case "const":
					if v := w.consts[name]; isScalar(v) && !isNull(v) {
						val, good = v.Value, true
					}
				case "inputs":
					r.tainted = append(r.tainted, "inputs."+name)
					r.untrust = true
					if d := mapGet(w.inputs[name], "default"); isScalar(d) && !isNull(d) {
						val, good = d.Value, true
					}
				case "secrets":
					r.secrets = append(r.secrets, name)
				case "with":
					r.withRefs = append(r.withRefs, name)
					if t != nil && hop == 0 {
						if wv := t.with[name]; isStr(wv) {
							sub := w.resolveStr(t, wv.Value, 1)
							r.tainted = append(r.tainted, sub.tainted...)
							r.secrets = append(r.secrets, sub.secrets...)
							r.untrust = r.untrust || sub.untrust
							r.dynamic = r.dynamic || sub.dynamic
							val, good = sub.text, sub.ok
						} else if wv != nil && isScalar(wv) && !isNull(wv) {
							val, good = wv.Value, true
						}
					}
				case "tasks", "item", "index":
					r.dynamic, r.untrust = true, true
				}
			} else if isRef {
				switch rf.root {
				case "tasks", "item", "index", "group":
					r.dynamic, r.untrust = true, true
				case "inputs":
					r.untrust = true
					if len(rf.path) > 0 {
						r.tainted = append(r.tainted, "inputs."+rf.path[0].name)
					}
				case "secrets":
					if len(rf.path) > 0 {
						r.secrets = append(r.secrets, rf.path[0].name)
					}
				}
			}
		}
		for _, rf := range refs(e) {
			if rf.root == "secrets" && len(rf.path) > 0 && !(e.kind == celSelect && len(rf.path) == 1) {
				r.secrets = append(r.secrets, rf.path[0].name)
			}
			if rf.root == "tasks" || rf.root == "item" || rf.root == "index" {
				r.dynamic, r.untrust = true, true
			}
		}
		if !good {
			r.ok = false
		}
		b.WriteString(val)
	}
	b.WriteString(unescape(s[last:]))
	r.text = b.String()
	return r
}

// unescape drops the backslash that escapes a literal "${{".
func unescape(s string) string { return strings.ReplaceAll(s, `\${{`, "${{") }

// needs infers the effects every task requires.
func (w *workflow) needs() []need {
	var out []need
	for _, t := range w.tasks {
		out = append(out, w.taskNeeds(t)...)
	}
	return out
}

func (w *workflow) taskNeeds(t *task) []need {
	var out []need
	v := t.verbNode
	if !isMap(v) {
		return nil
	}
	add := func(cat string, n *yaml.Node, raw string) {
		nd := need{task: t, cat: cat, node: n}
		if n != nil && raw != "" {
			res := w.resolveStr(t, raw, 0)
			if res.ok {
				nd.value = res.text
			}
			nd.tainted = res.tainted
		}
		out = append(out, nd)
	}
	switch t.verb {
	case "exec":
		if cmd := mapGet(v, "command"); isSeq(cmd) && len(cmd.Content) > 0 {
			nd := need{task: t, cat: "exec", node: cmd.Content[0], argv: cmd.Content}
			res := w.resolveStr(t, cmd.Content[0].Value, 0)
			if res.ok {
				nd.value = res.text
			}
			nd.tainted = res.tainted
			out = append(out, nd)
		} else if sh := mapGet(v, "shell"); isStr(sh) {
			out = append(out, need{task: t, cat: "exec", node: sh, shell: true, line: sh.Value})
		} else {
			out = append(out, need{task: t, cat: "exec", node: t.verbKey})
		}
	case "invoke":
		if t.tool == "" {
			break
		}
		if strings.HasPrefix(t.tool, "mcp:") {
			out = append(out, need{task: t, cat: "tools", value: t.tool, node: t.toolNode})
			break
		}
		b, ok := builtins[t.tool]
		if !ok || !b.effectful() {
			break
		}
		out = append(out, need{task: t, cat: "tools", value: t.tool, node: t.toolNode})
		args := t.args
		for _, a := range b.reads {
			if n := mapGet(args, a); isStr(n) {
				if t.tool == "nika:glob" {
					nd := need{task: t, cat: "fs.read", node: n}
					res := w.resolveStr(t, n.Value, 0)
					if res.ok {
						nd.value = globRoot(res.text)
					}
					nd.tainted = res.tainted
					out = append(out, nd)
					continue
				}
				add("fs.read", n, n.Value)
			} else if n == nil && t.tool == "nika:grep" {
				add("fs.read", t.toolNode, "")
			}
		}
		for _, a := range b.writes {
			dir := strings.HasSuffix(a, "/")
			a = strings.TrimSuffix(a, "/")
			if n := mapGet(args, a); isStr(n) {
				raw := n.Value
				if dir {
					raw = strings.TrimSuffix(raw, "/") + "/x"
				}
				add("fs.write", n, raw)
			} else {
				add("fs.write", t.toolNode, "")
			}
		}
		if t.tool == "nika:fetch" {
			if mp := mapGet(args, "multipart"); isSeq(mp) {
				for _, part := range mp.Content {
					if p := mapGet(part, "path"); isStr(p) {
						add("fs.read", p, p.Value)
					}
				}
			}
		}
		if b.net {
			n := mapGet(args, b.urlArg)
			if t.tool == "nika:notify" {
				if ch := mapGet(args, "channel"); isStr(ch) && ch.Value != "webhook" {
					add("net", t.toolNode, "")
					break
				}
			}
			if isStr(n) {
				nd := need{task: t, cat: "net", node: n}
				res := w.resolveStr(t, n.Value, 0)
				nd.tainted = res.tainted
				if res.ok {
					if h := urlHost(res.text); h != "" {
						nd.value = h
					}
				}
				out = append(out, nd)
			} else {
				add("net", t.toolNode, "")
			}
		}
	case "agent":
		if tl := mapGet(v, "tools"); isSeq(tl) {
			for _, it := range tl.Content {
				if isStr(it) && !strings.HasPrefix(it.Value, "!") && agentEntryEffectful(it.Value) {
					out = append(out, need{task: t, cat: "tools", value: it.Value, node: it})
				}
			}
		}
		if sk := mapGet(v, "skills"); isSeq(sk) {
			for _, it := range sk.Content {
				if isStr(it) {
					out = append(out, need{task: t, cat: "fs.read", value: it.Value, node: it})
				}
			}
		}
	case "infer":
		if vis := mapGet(v, "vision"); isSeq(vis) {
			for _, im := range vis.Content {
				if p := mapGet(im, "path"); isStr(p) {
					add("fs.read", p, p.Value)
				}
			}
		}
	}
	return out
}

// agentEntryEffectful reports whether an agent whitelist entry can reach a
// tool that carries an effect.
func agentEntryEffectful(id string) bool {
	if strings.HasPrefix(id, "mcp:") {
		return true
	}
	if !strings.ContainsAny(id, "*?[") {
		b, ok := builtins[id]
		return ok && b.effectful()
	}
	for name, b := range builtins {
		if b.effectful() && toolGlob(id, name) {
			return true
		}
	}
	return false
}

// globRoot is the literal directory a glob pattern walks from.
func globRoot(p string) string {
	i := strings.IndexAny(p, "*?[{")
	if i < 0 {
		return p
	}
	return path.Dir(p[:i] + "x")
}

// urlHost extracts the host of a literal URL, "" when there is none.
func urlHost(s string) string {
	if hasTemplate(s) {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// authority runs every judge of what the workflow may touch.
func (w *workflow) authority() {
	needs := w.needs()
	w.eff = w.collectEffects(needs)
	w.skills()
	if w.permits == nil {
		w.absentPermits(needs, "the absent permits: block grants no authority")
	} else {
		if w.permEmpty {
			// « permits: {} MUST be identical to an absent block »: zero
			// authority, said out loud. Each effect is also outside the
			// declared boundary, which judge reports.
			w.absentPermits(needs, "the empty permits: block declares zero authority, as an absent one does")
		}
		for _, nd := range needs {
			w.judge(nd)
		}
	}
	w.execReentry()
	w.fetchChecks()
	w.liftChecks()
	w.orderLaw()
	w.statusLiterals()
	w.liveness()
	w.sharedWrites()
	w.drift()
	w.consentLaw()
	w.trifecta()
	w.secretFlow()
	w.compose()
}

// absentPermits refuses every effect under an absent permits: block.
func (w *workflow) absentPermits(needs []need, why string) {
	byTask := map[*task][]need{}
	var order []*task
	for _, nd := range needs {
		if _, ok := byTask[nd.task]; !ok {
			order = append(order, nd.task)
		}
		byTask[nd.task] = append(byTask[nd.task], nd)
	}
	if len(order) == 0 {
		return
	}
	fix := "add this block: " + w.inferredBlock(needs)
	for _, t := range order {
		var what []string
		for _, nd := range byTask[t] {
			what = append(what, describeNeed(nd))
		}
		n := t.verbKey
		if n == nil {
			n = t.key
		}
		w.c.add("NIKA-AUTH-006", n, fix, "task %q needs %s, but %s", t.id, strings.Join(uniqSorted(what), ", "), why)
	}
}

func describeNeed(nd need) string {
	switch {
	case nd.cat == "exec" && nd.shell:
		return "exec (a shell line)"
	case nd.value == "":
		return nd.cat
	}
	return nd.cat + " " + nd.value
}

// inferredBlock renders the permits: block the body needs, in flow style.
func (w *workflow) inferredBlock(needs []need) string {
	var reads, writes, hosts, progs, tools []string
	execAll := false
	for _, nd := range needs {
		switch nd.cat {
		case "fs.read":
			if nd.value != "" {
				reads = append(reads, nd.value)
			}
		case "fs.write":
			if nd.value != "" {
				writes = append(writes, nd.value)
			}
		case "net":
			if nd.value != "" {
				hosts = append(hosts, nd.value)
			}
		case "exec":
			if nd.shell || nd.value == "" {
				execAll = true
			} else {
				progs = append(progs, nd.value)
			}
		case "tools":
			tools = append(tools, nd.value)
		}
	}
	q := func(xs []string) string {
		xs = uniqSorted(xs)
		parts := make([]string, len(xs))
		for i, x := range xs {
			parts[i] = fmt.Sprintf("%q", x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	var parts []string
	if len(reads)+len(writes) > 0 {
		var fsParts []string
		if len(reads) > 0 {
			fsParts = append(fsParts, "read: "+q(reads))
		}
		if len(writes) > 0 {
			fsParts = append(fsParts, "write: "+q(writes))
		}
		parts = append(parts, "fs: { "+strings.Join(fsParts, ", ")+" }")
	}
	if len(hosts) > 0 {
		parts = append(parts, "net: { http: "+q(hosts)+" }")
	}
	if execAll {
		parts = append(parts, "exec: true")
	} else if len(progs) > 0 {
		parts = append(parts, "exec: "+q(progs))
	}
	if len(tools) > 0 {
		parts = append(parts, "tools: "+q(tools))
	}
	return "permits: { " + strings.Join(parts, ", ") + " }"
}

// allows reports whether the declared boundary admits a need; taint says
// whether the refusal is a re-gate of an untrusted value.
func (p *permits) allows(nd need) (ok bool, why string) {
	switch nd.cat {
	case "fs.read", "fs.write":
		globs := p.fsRead
		if nd.cat == "fs.write" {
			globs = p.fsWrite
		}
		if len(globs) == 0 {
			return false, "permits." + nd.cat + " grants nothing"
		}
		if nd.value == "" || hasTemplate(nd.value) {
			return true, ""
		}
		if pathAllowed(nd.value, globs) {
			return true, ""
		}
		cp, _ := canonPath(nd.value)
		return false, fmt.Sprintf("%s (canonical %s) is outside permits.%s", nd.value, cp, nd.cat)
	case "net":
		if len(p.net) == 0 {
			return false, "permits.net.http grants no host"
		}
		if nd.value == "" {
			return true, ""
		}
		if hostAllowed(nd.value, p.net) {
			return true, ""
		}
		return false, fmt.Sprintf("host %s is outside permits.net.http", nd.value)
	case "exec":
		if p.execAll {
			return true, ""
		}
		if len(p.exec) == 0 {
			return false, "permits.exec grants no program"
		}
		if nd.shell {
			return false, "a shell line cannot be verified against the program allowlist permits.exec"
		}
		if nd.value == "" || hasTemplate(nd.value) {
			return true, ""
		}
		if programAllowed(nd.value, p.exec) {
			return true, ""
		}
		return false, fmt.Sprintf("program %s is outside permits.exec", nd.value)
	case "tools":
		if toolAllowed(nd.value, p.tools) {
			return true, ""
		}
		if strings.ContainsAny(nd.value, "*?[") {
			for _, x := range p.tools {
				if x == nd.value {
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("tool %s is outside permits.tools", nd.value)
	}
	return true, ""
}

// judge checks one need against a present permits: block.
func (w *workflow) judge(nd need) {
	ok, why := w.permits.allows(nd)
	if ok {
		return
	}
	n := nd.node
	if n == nil {
		n = nd.task.verbKey
	}
	lifted := false
	for _, src := range nd.tainted {
		if w.lifts(nd.task, "taint", src) {
			lifted = true
		}
	}
	if len(nd.tainted) > 0 && !lifted && nd.value != "" && w.permitsCategory(nd.cat) {
		w.c.add("NIKA-AUTH-008", n, "widen the bound deliberately, or declare lift: [{ law: taint, from: "+nd.tainted[0]+", because: \"...\" }]", "task %q: %s resolves to %s, which escapes the permit (%s)", nd.task.id, strings.Join(nd.tainted, ", "), nd.value, why)
		return
	}
	w.c.add("NIKA-SEC-004", n, w.grantFix(nd), "task %q: %s", nd.task.id, why)
}

// permitsCategory reports whether the category itself is granted, so that
// a refusal is about the value, not the verb.
func (w *workflow) permitsCategory(cat string) bool {
	p := w.permits
	switch cat {
	case "fs.read":
		return len(p.fsRead) > 0
	case "fs.write":
		return len(p.fsWrite) > 0
	case "net":
		return len(p.net) > 0
	case "exec":
		return p.execAll || len(p.exec) > 0
	}
	return true
}

func (w *workflow) grantFix(nd need) string {
	switch nd.cat {
	case "fs.read":
		return fmt.Sprintf("add %q to permits.fs.read", nd.value)
	case "fs.write":
		return fmt.Sprintf("add %q to permits.fs.write", nd.value)
	case "net":
		if nd.value != "" {
			return fmt.Sprintf("add %q to permits.net.http", nd.value)
		}
		return "list the host in permits.net.http"
	case "exec":
		if nd.shell {
			return "use the argv form command: [\"prog\", ...] under a program allowlist, or permits.exec: true"
		}
		if nd.value != "" {
			return fmt.Sprintf("add %q to permits.exec", nd.value)
		}
		return "grant permits.exec"
	case "tools":
		return fmt.Sprintf("add %q to permits.tools", nd.value)
	}
	return ""
}

func (w *workflow) lifts(t *task, law, from string) bool {
	for _, l := range t.lifts {
		if l.law == law && (from == "" || l.from == from) {
			return true
		}
	}
	return false
}

// reentry tokens make a permitted program run something else.
var reentryTokens = map[string]bool{
	"--exec": true, "-exec": true, "-execdir": true, "--execdir": true, "-ok": true, "-okdir": true,
	"-c": true, "--command": true, "-e": true, "--eval": true, "eval": true, "exec": true,
	"--upload-pack": true, "--receive-pack": true, "-o": false, "--config": false,
}

// programReentry are the flags of one program that make it read or run
// something other than its data: jq reads a program from a file (-f,
// --from-file), loads modules (-L, --library-path) and binds files
// (--rawfile, --slurpfile).
var programReentry = map[string][]string{
	"jq":   {"-f", "--from-file", "-L", "--library-path", "--rawfile", "--slurpfile"},
	"gojq": {"-f", "--from-file", "-L", "--library-path", "--rawfile", "--slurpfile"},
	"yq":   {"--from-file", "-L"},
}

// reentryFlag returns the re-entry flag an argv token carries for prog,
// or "": the token itself, its name before an "=" (--exec=rm), or, for a
// program with short re-entry flags, a cluster holding one (jq -rf).
func reentryFlag(prog, tok string) string {
	name, _, _ := strings.Cut(tok, "=")
	if reentryTokens[tok] {
		return tok
	}
	if reentryTokens[name] && strings.HasPrefix(name, "-") {
		return name
	}
	for _, f := range programReentry[prog] {
		if name == f {
			return f
		}
		if len(f) == 2 && len(name) > 2 && name[0] == '-' && name[1] != '-' && strings.ContainsRune(name[1:], rune(f[1])) {
			return f
		}
	}
	return ""
}

// execReentry refuses an untrusted argv token that resolves to a
// re-entry flag the program allowlist does not list.
func (w *workflow) execReentry() {
	if w.permits == nil || w.permits.execAll {
		return
	}
	for _, t := range w.tasks {
		if t.verb != "exec" || !isMap(t.verbNode) {
			continue
		}
		cmd := mapGet(t.verbNode, "command")
		if !isSeq(cmd) {
			continue
		}
		for _, arg := range cmd.Content[1:] {
			if !isStr(arg) || !hasTemplate(arg.Value) {
				continue
			}
			res := w.resolveStr(t, arg.Value, 0)
			if !res.ok || !res.untrust {
				continue
			}
			tok := strings.TrimSpace(res.text)
			prog := ""
			if p0 := cmd.Content[0]; isStr(p0) && !hasTemplate(p0.Value) {
				prog = path.Base(p0.Value)
			}
			if flag := reentryFlag(prog, tok); flag != "" && !oneOf(tok, w.permits.exec...) && !oneOf(flag, w.permits.exec...) {
				tok = flag
				lifted := false
				for _, src := range res.tainted {
					lifted = lifted || w.lifts(t, "taint", src)
				}
				if !lifted {
					w.c.add("NIKA-AUTH-008", arg, "pass the value as data the program cannot execute, or lift the taint law with a reason", "task %q: %s resolves to %s, a re-entry flag the exec permit does not cover", t.id, strings.Join(res.tainted, ", "), tok)
				}
			}
		}
	}
}
