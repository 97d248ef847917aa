package checker

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/itchyny/gojq"
	"go.yaml.in/yaml/v3"
)

// The static argument contracts of the builtins whose page in
// stdlib/builtins-v0.1.md names their own error plane: a literal argument
// that can never satisfy its contract is refused before the run, with the
// builtin's own code (NIKA-BUILTIN-<NAME>-NNN) where the page names one,
// else with NIKA-BUILTIN-001, the generic arg-contract code. A templated
// value is never judged here: it is the run's business.

// literal reports whether n is a scalar whose value is known before the
// run (not a template).
func literal(n *yaml.Node) bool {
	return isScalar(n) && !isNull(n) && !hasTemplate(n.Value)
}

// builtinArgs judges the builtin-specific argument shapes of one invoke.
func (w *workflow) builtinArgs(t *task, id string, tool *yaml.Node) {
	args := t.args
	if args != nil && !isMap(args) {
		return
	}
	switch id {
	case "nika:wait":
		w.waitArgs(args, tool)
	case "nika:prompt":
		w.promptArgs(args)
	case "nika:convert":
		w.convertArgs(args, tool)
	case "nika:edit":
		w.editArgs(args)
	case "nika:inspect":
		w.inspectArgs(args, tool)
	case "nika:emit":
		w.emitArgs(args, tool)
	case "nika:hash":
		w.hashArgs(args, tool)
	case "nika:date":
		w.dateArgs(args)
	case "nika:fetch":
		w.fetchArgs(t, args, tool)
	case "nika:glob":
		w.globArgs(args)
	case "nika:grep":
		w.grepArgs(args)
	case "nika:notify":
		if ch := mapGet(args, "channel"); literal(ch) && !oneOf(ch.Value, "webhook", "slack", "email", "discord", "sms") {
			w.c.add("NIKA-BUILTIN-001", ch, "use channel webhook, slack, email, discord or sms", "nika:notify channel %q is not one of webhook, slack, email, discord, sms", ch.Value)
		}
	case "nika:jq":
		if e := mapGet(args, "expression"); literal(e) && isStr(e) {
			w.jqCompiles(e, "nika:jq expression")
		}
	}
}

// waitArgs: « relative duration: XOR absolute until: · exactly-one-of
// validated at parse time » · « -003 if neither duration: nor until: set
// (or both set) ».
func (w *workflow) waitArgs(args, tool *yaml.Node) {
	d, u := mapGet(args, "duration"), mapGet(args, "until")
	switch {
	case d == nil && u == nil:
		w.c.add("NIKA-BUILTIN-WAIT-003", tool, "give duration: \"5s\" (relative) or until: <timestamp> (absolute)", "nika:wait needs one of duration: and until:, and has neither")
	case d != nil && u != nil:
		w.c.add("NIKA-BUILTIN-WAIT-003", mapKey(args, "until"), "keep one of duration: and until:", "nika:wait takes duration: or until:, never both")
	}
	if d != nil && literal(d) {
		if !isStr(d) || badDuration(d) != "" {
			w.c.add("NIKA-BUILTIN-WAIT-003", d, "write a quoted Go duration such as \"5s\" or \"1h30m\"", "nika:wait duration %q is not a Go duration", d.Value)
		}
	}
	if k := mapKey(args, "timeout"); k != nil && u == nil {
		w.c.add("NIKA-BUILTIN-WAIT-003", k, "drop timeout:, or wait until: a timestamp", "nika:wait timeout: caps an absolute wait and needs until:")
	}
}

// promptArgs: « A choice whose default: is not an element of choices: is
// a parse error (NIKA-BUILTIN-PROMPT-002) » and choice's choices: are
// « required · non-empty array ».
func (w *workflow) promptArgs(args *yaml.Node) {
	mode := "confirm"
	m := mapGet(args, "mode")
	if literal(m) {
		if !oneOf(m.Value, "confirm", "input", "choice") {
			w.c.add("NIKA-BUILTIN-PROMPT-002", m, "use mode confirm, input or choice", "nika:prompt mode %q is not confirm, input or choice", m.Value)
			return
		}
		mode = m.Value
	}
	choices := mapGet(args, "choices")
	switch {
	case mode != "choice" && choices != nil:
		w.c.add("NIKA-BUILTIN-PROMPT-002", mapKey(args, "choices"), "drop choices:, or set mode: choice", "nika:prompt choices: only belong to mode: choice")
	case mode == "choice" && choices == nil:
		w.c.add("NIKA-BUILTIN-PROMPT-002", m, "list the choices: a human picks from", "nika:prompt mode: choice needs a non-empty choices: list")
	case mode == "choice" && isSeq(choices) && len(choices.Content) == 0:
		w.c.add("NIKA-BUILTIN-PROMPT-002", choices, "list at least one choice", "nika:prompt choices: is empty")
	case mode == "choice" && choices != nil && !isSeq(choices) && !(isStr(choices) && hasTemplate(choices.Value)):
		w.c.add("NIKA-BUILTIN-PROMPT-002", choices, "write choices: [a, b]", "nika:prompt choices: must be a list")
	}
	def := mapGet(args, "default")
	if def == nil || !literal(def) {
		return
	}
	switch mode {
	case "confirm":
		if !isBool(def) {
			w.c.add("NIKA-BUILTIN-PROMPT-002", def, "write default: true or default: false", "a confirm prompt's default: must be a boolean")
		}
	case "choice":
		items, all := strs(choices)
		if isSeq(choices) && all {
			for _, it := range choices.Content {
				if hasTemplate(it.Value) {
					return // a templated choice may equal the default
				}
			}
			if !oneOf(def.Value, items...) {
				w.c.add("NIKA-BUILTIN-PROMPT-002", def, "make default: one of the choices", "nika:prompt default %q is not one of its choices", def.Value)
			}
		}
	}
}

var convertFormats = []string{"json", "yaml", "toml", "csv"}

// convertArgs: « from: REQUIRED · enum · json | yaml | toml | csv » ·
// « from == to is rejected (NIKA-BUILTIN-CONVERT-001) » · a non-boolean
// formula_guard « is a loud -001 arg error ».
func (w *workflow) convertArgs(args, tool *yaml.Node) {
	for _, k := range []string{"input", "from", "to"} {
		if mapGet(args, k) == nil {
			w.c.add("NIKA-BUILTIN-CONVERT-001", tool, "add args."+k, "nika:convert requires the argument %s", k)
		}
	}
	from, to := mapGet(args, "from"), mapGet(args, "to")
	for _, n := range []*yaml.Node{from, to} {
		if literal(n) && !oneOf(n.Value, convertFormats...) {
			w.c.add("NIKA-BUILTIN-CONVERT-001", n, "use one of "+strings.Join(convertFormats, ", "), "nika:convert format %q is not one of json, yaml, toml, csv", n.Value)
		}
	}
	if literal(from) && literal(to) && from.Value == to.Value {
		w.c.add("NIKA-BUILTIN-CONVERT-001", to, "drop the conversion, or name another target format", "nika:convert from %s to %s converts nothing", from.Value, to.Value)
	}
	for _, k := range []string{"formula_guard", "has_header"} {
		if v := mapGet(args, k); literal(v) && !isBool(v) {
			w.c.add("NIKA-BUILTIN-CONVERT-001", v, "write "+k+": true or false", "nika:convert %s must be a boolean, never read as false", k)
		}
	}
	if v := mapKey(args, "formula_guard"); v != nil && literal(to) && to.Value != "csv" {
		w.c.add("NIKA-BUILTIN-CONVERT-001", v, "drop formula_guard:, which guards CSV output only", "nika:convert formula_guard: applies to to: csv only")
	}
}

// editArgs: « count: MUST be a non-negative integer — a present
// non-integer (e.g. the string "2") is a loud -001 arg error ».
func (w *workflow) editArgs(args *yaml.Node) {
	if n := mapGet(args, "count"); n != nil && !(isStr(n) && hasTemplate(n.Value)) {
		if v, ok := intVal(n); !ok || v < 0 {
			w.c.add("NIKA-BUILTIN-EDIT-001", n, "write count: as a non-negative integer, or drop it to replace all", "nika:edit count must be a non-negative integer, found %s", kindName(n))
		}
	}
	for _, k := range []string{"find", "replace"} {
		if mapGet(args, k) == nil {
			w.c.add("NIKA-BUILTIN-EDIT-001", mapKey(args, "path"), "add args."+k, "nika:edit requires the argument %s", k)
		}
	}
	if f := mapGet(args, "find"); literal(f) && f.Value == "" {
		w.c.add("NIKA-BUILTIN-EDIT-001", f, "name the text to find", "nika:edit find: is empty, so it can match nothing")
	}
}

// inspectArgs: « view: REQUIRED · enum · cost | records | dag_info |
// threads » · « NIKA-BUILTIN-INSPECT-001 if view: value not in the
// canonical enum ».
func (w *workflow) inspectArgs(args, tool *yaml.Node) {
	v := mapGet(args, "view")
	switch {
	case v == nil:
		w.c.add("NIKA-BUILTIN-INSPECT-001", tool, "add view: cost, records, dag_info or threads", "nika:inspect requires view:")
	case literal(v) && !oneOf(v.Value, "cost", "records", "dag_info", "threads"):
		w.c.add("NIKA-BUILTIN-INSPECT-001", v, "use view: cost, records, dag_info or threads"+didYouMean(v.Value, []string{"cost", "records", "dag_info", "threads"}), "nika:inspect view %q is not in the canonical enum", v.Value)
	}
}

var eventTypeRe = regexp.MustCompile(`^[a-z][a-z0-9_.-]*$`)

// emitArgs: « event_type: matches ^[a-z][a-z0-9_.-]*$ » · « Throws ·
// NIKA-BUILTIN-EMIT-001 (invalid event shape) ».
func (w *workflow) emitArgs(args, tool *yaml.Node) {
	e := mapGet(args, "event_type")
	switch {
	case e == nil:
		w.c.add("NIKA-BUILTIN-EMIT-001", tool, "add event_type: custom.event", "nika:emit requires event_type:")
	case literal(e) && (!isStr(e) || !eventTypeRe.MatchString(e.Value)):
		w.c.add("NIKA-BUILTIN-EMIT-001", e, "write a lowercase dotted name such as build.finished", "nika:emit event_type %q does not match ^[a-z][a-z0-9_.-]*$", e.Value)
	}
}

// hashArgs: the op-discriminated surface of nika:hash. « md5/sha1 NOT
// supported (cryptographically broken · NIKA-BUILTIN-HASH-001) » · « A
// malformed key, an unknown op:, or a missing per-op required arg is
// NIKA-BUILTIN-HASH-001 » · the key « MUST be a ${{ secrets.X }}
// reference ».
func (w *workflow) hashArgs(args, tool *yaml.Node) {
	const code = "NIKA-BUILTIN-HASH-001"
	op := "hash"
	if o := mapGet(args, "op"); o != nil {
		if !literal(o) {
			return // a templated op decides the contract at run time
		}
		if !oneOf(o.Value, "hash", "sign", "verify") {
			w.c.add(code, o, "use op: hash, sign or verify", "nika:hash op %q is not hash, sign or verify", o.Value)
			return
		}
		op = o.Value
	}
	if mapGet(args, "content") == nil {
		w.c.add(code, tool, "add args.content", "nika:hash op %s requires content:", op)
	}
	belongs := map[string][]string{
		"content": {"hash", "sign", "verify"}, "op": {"hash", "sign", "verify"},
		"algo": {"hash"}, "encoding": {"hash", "sign", "verify"},
		"key": {"sign"}, "public_key": {"verify"}, "signature": {"verify"},
	}
	for _, p := range pairs(args) {
		ops, known := belongs[p.k.Value]
		switch {
		case !known:
			w.c.add(code, p.k, "keep content, op, algo, encoding, key, public_key and signature", "nika:hash has no argument %q", p.k.Value)
		case !oneOf(op, ops...):
			w.c.add(code, p.k, "drop "+p.k.Value+":, which belongs to op "+strings.Join(ops, ", "), "nika:hash %s: does not belong to op %s", p.k.Value, op)
		}
	}
	if a := mapGet(args, "algo"); literal(a) && !oneOf(a.Value, "blake3", "sha256", "sha512") {
		fix := "use blake3 (the default), sha256 or sha512"
		what := "is not supported"
		if oneOf(strings.ToLower(a.Value), "md5", "sha1", "sha-1", "md4", "sha224") {
			what = "is cryptographically broken and not supported"
		}
		w.c.add(code, a, fix, "nika:hash algo %q %s", a.Value, what)
	}
	if e := mapGet(args, "encoding"); literal(e) && !oneOf(e.Value, "hex", "base64") {
		w.c.add(code, e, "use encoding: hex or base64", "nika:hash encoding %q is not hex or base64", e.Value)
	}
	switch op {
	case "sign":
		k := mapGet(args, "key")
		if k == nil {
			w.c.add(code, tool, "add key: \"${{ secrets.signing_key }}\"", "nika:hash op sign requires key:")
		} else if !wholeSecretRef(k) {
			w.c.add(code, k, "declare the private key under secrets: and write key: \"${{ secrets.NAME }}\"", "nika:hash sign key: must be a ${{ secrets.X }} reference, never a literal or another value")
		}
	case "verify":
		for _, r := range []string{"public_key", "signature"} {
			if mapGet(args, r) == nil {
				w.c.add(code, tool, "add args."+r, "nika:hash op verify requires %s:", r)
			}
		}
	}
}

// wholeSecretRef reports whether n is exactly one ${{ secrets.X }} island.
func wholeSecretRef(n *yaml.Node) bool {
	if !isStr(n) {
		return false
	}
	isl, unclosed := islands(n.Value)
	if unclosed > 0 || len(isl) != 1 || !isl[0].whole {
		return false
	}
	e := strings.ReplaceAll(isl[0].expr, " ", "")
	return strings.HasPrefix(e, "secrets.") && snakeOrIdent(strings.TrimPrefix(e, "secrets."))
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func snakeOrIdent(s string) bool { return identRe.MatchString(s) }

var dateOps = []string{"now", "add", "subtract", "format", "parse", "diff"}

// dateArgs: « op: now { tz } | add { base, duration } | subtract | format
// { input, format } | parse | diff { start, end, unit } » · « unknown op
// · NIKA-BUILTIN-DATE-001 ».
func (w *workflow) dateArgs(args *yaml.Node) {
	if o := mapGet(args, "op"); literal(o) && !oneOf(o.Value, dateOps...) {
		w.c.add("NIKA-BUILTIN-DATE-001", o, "use op "+strings.Join(dateOps, ", ")+didYouMean(o.Value, dateOps), "nika:date op %q is not one of its ops", o.Value)
	}
}

var fetchMethods = []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"}

// fetchArgs: the payload shapes of nika:fetch and their conflicts (the
// arg table and « Payload exclusivity (normative) » of its page).
func (w *workflow) fetchArgs(t *task, args, tool *yaml.Node) {
	const code = "NIKA-BUILTIN-001"
	method := "GET"
	methodKnown := true
	if m := mapGet(args, "method"); m != nil {
		if !literal(m) {
			methodKnown = false
		} else if !oneOf(m.Value, fetchMethods...) {
			w.c.add(code, m, "use one of "+strings.Join(fetchMethods, ", "), "nika:fetch method %q is not one of %s", m.Value, strings.Join(fetchMethods, ", "))
			methodKnown = false
		} else {
			method = m.Value
		}
	}
	var payloads []*yaml.Node
	for _, k := range []string{"body", "form", "multipart"} {
		if n := mapKey(args, k); n != nil {
			payloads = append(payloads, n)
		}
	}
	if len(payloads) > 1 {
		w.c.add(code, payloads[1], "send one payload: body, form or multipart", "nika:fetch takes at most one of body, form and multipart; this one has %s and %s", payloads[0].Value, payloads[1].Value)
	}
	for _, k := range []string{"form", "multipart"} {
		kn := mapKey(args, k)
		if kn == nil {
			continue
		}
		if methodKnown && !oneOf(method, "POST", "PUT", "PATCH") {
			w.c.add(code, kn, "set method: POST (or PUT, PATCH)", "nika:fetch %s: needs a body-bearing method, and the method is %s", k, method)
		}
		if h := mapGet(args, "headers"); isMap(h) {
			for _, p := range pairs(h) {
				if strings.EqualFold(p.k.Value, "content-type") {
					w.c.add(code, p.k, "drop the content-type header; "+k+": sets its own", "nika:fetch %s: owns the content-type, and a content-type header conflicts with it", k)
				}
			}
		}
	}
	if f := mapGet(args, "form"); f != nil && !(isStr(f) && hasTemplate(f.Value)) {
		if !isMap(f) {
			w.c.add(code, f, "write form: { field: value }", "nika:fetch form: must be a map of scalar fields")
		} else {
			for _, p := range pairs(f) {
				if !isScalar(p.v) || isNull(p.v) {
					w.c.add(code, p.v, "reshape the value with nika:jq into a scalar", "nika:fetch form field %q is %s; form fields are strings, numbers or booleans, nesting is refused", p.k.Value, kindName(p.v))
				}
			}
		}
	}
	if mp := mapGet(args, "multipart"); mp != nil {
		w.multipartArgs(t, mp)
	}
	if tr := mapGet(args, "traverse"); tr != nil {
		trk := mapKey(args, "traverse")
		if methodKnown && method != "GET" {
			w.c.add(code, trk, "drop method:, a crawl is GET only", "nika:fetch traverse: is GET only, and the method is %s", method)
		}
		for _, k := range []string{"mode", "selector", "jq", "body", "form", "multipart"} {
			if kn := mapKey(args, k); kn != nil {
				w.c.add(code, kn, "drop "+k+": from a traverse crawl", "nika:fetch traverse: excludes %s:", k)
			}
		}
		if !isMap(tr) {
			w.c.add(code, tr, "write traverse: { max_pages: 10 }", "nika:fetch traverse: must be a map { max_pages, respect_robots }")
		} else {
			mpn := mapGet(tr, "max_pages")
			if mpn == nil {
				w.c.add(code, tr, "add max_pages: 1..25", "nika:fetch traverse: requires max_pages")
			} else if literal(mpn) {
				if v, ok := intVal(mpn); !ok || v < 1 || v > 25 {
					w.c.add(code, mpn, "bound the crawl with max_pages: 1..25", "nika:fetch traverse max_pages must be an integer from 1 to 25")
				}
			}
			if r := mapGet(tr, "respect_robots"); literal(r) && !isBool(r) {
				w.c.add(code, r, "write respect_robots: true or false", "nika:fetch traverse respect_robots must be a boolean")
			}
			for _, p := range pairs(tr) {
				if !oneOf(p.k.Value, "max_pages", "respect_robots") {
					w.c.add(code, p.k, "keep max_pages and respect_robots", "nika:fetch traverse has no key %q", p.k.Value)
				}
			}
		}
	}
	if e := mapGet(args, "jq"); literal(e) && isStr(e) {
		w.jqCompiles(e, "nika:fetch jq")
	}
}

// multipartArgs: « multipart/form-data parts array · {name, value} text
// XOR {name, path, filename?, content_type?} file · ≤64 parts ».
func (w *workflow) multipartArgs(t *task, mp *yaml.Node) {
	const code = "NIKA-BUILTIN-001"
	if isStr(mp) && hasTemplate(mp.Value) {
		return
	}
	if !isSeq(mp) {
		w.c.add(code, mp, "write multipart: [{ name: field, value: text }, { name: file, path: ./f.png }]", "nika:fetch multipart: must be a list of parts")
		return
	}
	if len(mp.Content) == 0 {
		w.c.add(code, mp, "add at least one part", "nika:fetch multipart: is empty")
	}
	if len(mp.Content) > 64 {
		w.c.add(code, mp.Content[64], "send at most 64 parts", "nika:fetch multipart: has %d parts, over the 64-part cap", len(mp.Content))
	}
	for _, part := range mp.Content {
		if !isMap(part) {
			w.c.add(code, part, "write { name, value } or { name, path }", "a multipart part must be a map")
			continue
		}
		if mapGet(part, "name") == nil {
			w.c.add(code, part, "add name:", "a multipart part needs name:")
		}
		v, p := mapKey(part, "value"), mapKey(part, "path")
		switch {
		case v != nil && p != nil:
			w.c.add(code, p, "keep value: (a text part) or path: (a file part)", "a multipart part is text (value:) or a file (path:), never both")
		case v == nil && p == nil:
			w.c.add(code, part, "add value: (text) or path: (a file)", "a multipart part needs value: or path:")
		}
		for _, q := range pairs(part) {
			ok := oneOf(q.k.Value, "name", "value", "path", "filename", "content_type")
			if ok && v != nil && oneOf(q.k.Value, "filename", "content_type") {
				w.c.add(code, q.k, "drop "+q.k.Value+":, which describes a file part", "a text part carries no %s:", q.k.Value)
			}
			if !ok {
				w.c.add(code, q.k, "keep name, value or path, filename, content_type", "a multipart part has no key %q", q.k.Value)
			}
		}
	}
}

// globArgs: « NIKA-BUILTIN-GLOB-001 (invalid pattern) ».
func (w *workflow) globArgs(args *yaml.Node) {
	for _, k := range []string{"pattern", "exclude"} {
		n := mapGet(args, k)
		var items []*yaml.Node
		if isSeq(n) {
			items = n.Content
		} else if n != nil {
			items = []*yaml.Node{n}
		}
		for _, it := range items {
			if !literal(it) || !isStr(it) {
				continue
			}
			if _, err := path.Match(strings.ReplaceAll(it.Value, "**", "*"), ""); err != nil {
				w.c.add("NIKA-BUILTIN-GLOB-001", it, "close the bracket or escape it", "nika:glob %s %q is not a valid glob", k, it.Value)
			}
		}
	}
}

// grepArgs: « pattern: is a Rust-regex-class expression (RE2-compatible ·
// no backreferences · the portable subset) » · « NIKA-BUILTIN-GREP-001
// (invalid pattern) ».
func (w *workflow) grepArgs(args *yaml.Node) {
	p := mapGet(args, "pattern")
	if !literal(p) || !isStr(p) {
		return
	}
	if _, err := regexp.Compile(p.Value); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "error parsing regexp") {
			msg = msg[i+2:]
		}
		w.c.add("NIKA-BUILTIN-GREP-001", p, "write an RE2 pattern: no backreferences or lookaround", "nika:grep pattern %q does not compile: %s", p.Value, msg)
	}
}

// jqCompiles refuses a literal jq program that does not compile: « Compile
// errors are caught statically (NIKA-VAR-005) ». The program is parsed and
// compiled as jq defines it (gojq), without the environment, which no
// Nika jq seam offers.
func (w *workflow) jqCompiles(n *yaml.Node, what string) {
	if msg := jqCompileError(n.Value); msg != "" {
		w.c.add("NIKA-VAR-005", n, "fix the jq program", "the %s does not compile: %s", what, msg)
	}
}

// jqCompileError returns why a jq program does not compile, or "". A
// panic inside the jq library is a finding, never a crash of the audit.
func jqCompileError(prog string) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("the jq compiler failed on it: %v", r)
		}
	}()
	if jqReadsEnv(prog) {
		return "" // refused with its own message
	}
	q, err := gojq.Parse(prog)
	if err != nil {
		return strings.TrimSpace(err.Error())
	}
	if _, err := gojq.Compile(q); err != nil {
		return strings.TrimSpace(err.Error())
	}
	return ""
}
