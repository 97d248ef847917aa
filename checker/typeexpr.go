package checker

import (
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var primitiveTypes = []string{"null", "bool", "integer", "number", "string", "bytes", "uri", "path", "duration", "timestamp"}

var typeConstructors = []string{"array", "map", "object", "union", "enum", "integer", "number", "string", "optional"}

// checkType judges a type expression of the closed v1 grammar. fieldPos is
// true for the type of an object field, the only place optional: is legal.
// It reports whether the expression is well formed.
func (w *workflow) checkType(n *yaml.Node, fieldPos bool) bool {
	c := w.c
	switch {
	case n == nil:
		return false
	case isNull(n):
		return true
	case n.Kind == yaml.ScalarNode:
		if oneOf(n.Value, primitiveTypes...) {
			return true
		}
		fix := "write the type inline: a primitive (" + strings.Join(primitiveTypes, ", ") + ") or a constructor such as { object: { field: string } }"
		if s := closest(n.Value, primitiveTypes); s != "" {
			fix = "write " + s
		}
		switch n.Value {
		case "boolean":
			fix = "write bool"
		case "text", "str":
			fix = "write string"
		case "array", "object":
			fix = "write { " + n.Value + ": ... } with its element type"
		}
		c.add("NIKA-TYPE-001", n, fix, "unknown type %q", n.Value)
		return false
	case n.Kind != yaml.MappingNode:
		c.add("NIKA-TYPE-001", n, "", "a type expression must be a name or a single-key map, found %s", kindName(n))
		return false
	}
	var ctor *pair
	var additional *pair
	ok := true
	for _, p := range pairs(n) {
		p := p
		switch {
		case p.k.Value == "additional":
			additional = &p
		case oneOf(p.k.Value, typeConstructors...):
			if ctor != nil {
				c.add("NIKA-TYPE-001", p.k, "split the type; one constructor per map", "a type expression names two constructors (%s and %s)", ctor.k.Value, p.k.Value)
				return false
			}
			ctor = &p
		default:
			c.add("NIKA-TYPE-001", p.k, "use one of "+strings.Join(typeConstructors, ", "), "unknown type constructor %q", p.k.Value)
			ok = false
		}
	}
	if ctor == nil {
		if ok {
			c.add("NIKA-TYPE-001", n, "", "a type expression map names no constructor")
		}
		return false
	}
	if additional != nil {
		if ctor.k.Value != "object" {
			c.add("NIKA-TYPE-001", additional.k, "additional: only opens an { object: ... }", "additional: is only legal beside object:")
			ok = false
		} else if !isBool(additional.v) {
			c.add("NIKA-TYPE-001", additional.v, "", "additional: must be a boolean")
			ok = false
		}
	}
	v := ctor.v
	switch ctor.k.Value {
	case "array", "map":
		return w.checkType(v, false) && ok
	case "optional":
		if !fieldPos {
			c.add("NIKA-TYPE-001", ctor.k, "optional: is a field-presence modifier; for a nullable value write { union: [T, null] }", "optional: is only legal on an object field")
			return false
		}
		return w.checkType(v, false) && ok
	case "object":
		if !isMap(v) {
			c.add("NIKA-TYPE-001", v, "write { object: { field: type } }", "object: must map field names to types")
			return false
		}
		for _, p := range pairs(v) {
			if !w.checkType(p.v, true) {
				ok = false
			}
		}
		return ok
	case "union":
		if !isSeq(v) || len(v.Content) < 2 {
			c.add("NIKA-TYPE-001", v, "list at least two member types", "union: needs at least two members")
			return false
		}
		for _, it := range v.Content {
			if !w.checkType(it, false) {
				ok = false
			}
		}
		return ok
	case "enum":
		items, allStr := strs(v)
		if !allStr || len(items) == 0 {
			c.add("NIKA-TYPE-001", v, "list one or more string values", "enum: must be a non-empty list of strings")
			return false
		}
		seen := map[string]bool{}
		for i, s := range items {
			if seen[s] {
				c.add("NIKA-TYPE-001", v.Content[i], "", "enum value %q is repeated", s)
				ok = false
			}
			seen[s] = true
		}
		return ok
	case "integer", "number":
		if isNull(v) {
			return ok
		}
		if !isMap(v) {
			c.add("NIKA-TYPE-001", v, "write { "+ctor.k.Value+": { min: 0, max: 100 } }", "%s: bounds must be a map {min, max}", ctor.k.Value)
			return false
		}
		for _, p := range pairs(v) {
			if p.k.Value != "min" && p.k.Value != "max" {
				c.add("NIKA-TYPE-001", p.k, "keep min and max", "unknown bound %q", p.k.Value)
				ok = false
			} else if (ctor.k.Value == "integer" && !isInt(p.v)) || !isNumber(p.v) {
				c.add("NIKA-TYPE-001", p.v, "", "the bound %s must be a number", p.k.Value)
				ok = false
			}
		}
		// « an empty range is refused at parse (NIKA-TYPE-001), never
		// silently inhabited by nothing ».
		if lo, hi := mapGet(v, "min"), mapGet(v, "max"); ok && isNumber(lo) && isNumber(hi) && numLess(hi.Value, lo.Value) {
			c.add("NIKA-TYPE-001", hi, "make min at most max", "the range %s..%s is empty: no value inhabits it", lo.Value, hi.Value)
			ok = false
		}
		return ok
	case "string":
		if isNull(v) {
			return ok
		}
		if !isMap(v) {
			c.add("NIKA-TYPE-001", v, "write { string: { pattern: \"^...$\" } }", "string: refinements must be a map {pattern, min_len, max_len}")
			return false
		}
		for _, p := range pairs(v) {
			switch p.k.Value {
			case "pattern":
				if !isStr(p.v) {
					c.add("NIKA-TYPE-001", p.v, "", "pattern must be a string")
					ok = false
				} else if msg := regexOutOfDialect(p.v.Value); msg != "" {
					c.add("NIKA-TYPE-006", p.v, "rewrite the pattern inside the locked dialect", "pattern %q uses %s", p.v.Value, msg)
					ok = false
				}
			case "min_len", "max_len":
				if n, good := intVal(p.v); !good || n < 0 {
					c.add("NIKA-TYPE-001", p.v, "", "%s must be a non-negative integer", p.k.Value)
					ok = false
				}
			default:
				c.add("NIKA-TYPE-001", p.k, "keep pattern, min_len and max_len", "unknown string refinement %q", p.k.Value)
				ok = false
			}
		}
		lo, okLo := intVal(mapGet(v, "min_len"))
		hi, okHi := intVal(mapGet(v, "max_len"))
		if ok && okLo && okHi && hi < lo {
			c.add("NIKA-TYPE-001", mapGet(v, "max_len"), "make min_len at most max_len", "the length range %d..%d is empty: no string inhabits it", lo, hi)
			ok = false
		}
		return ok
	}
	return ok
}

// regexOutOfDialect names the first construct outside the locked regex
// dialect, or returns "".
func regexOutOfDialect(p string) string {
	if len(p) > 512 {
		return "more than 512 characters"
	}
	inClass := false
	for i := 0; i < len(p); i++ {
		ch := p[i]
		if ch == '\\' {
			if i+1 >= len(p) {
				return "a trailing backslash"
			}
			nx := p[i+1]
			switch {
			case nx >= '1' && nx <= '9':
				if !inClass {
					return "a backreference"
				}
			case nx == 'b' || nx == 'B':
				if !inClass {
					return "a word boundary"
				}
			case nx == 'p' || nx == 'P':
				return "a unicode property class"
			case nx == 'k':
				return "a named backreference"
			}
			i++
			continue
		}
		if inClass {
			if ch == ']' {
				inClass = false
			}
			continue
		}
		switch ch {
		case '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case '(':
			if i+1 < len(p) && p[i+1] == '?' {
				rest := p[i+2:]
				switch {
				case strings.HasPrefix(rest, ":"):
				case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
					return "lookaround"
				case strings.HasPrefix(rest, "P<"), strings.HasPrefix(rest, "<"):
					return "a named group"
				default:
					return "inline flags"
				}
			}
		case '*', '+', '?', '}':
			if i+1 < len(p) && (p[i+1] == '?' || p[i+1] == '+') && !(ch == '?' && i > 0 && p[i-1] == '(') {
				return "a lazy or possessive quantifier"
			}
		}
	}
	if _, err := regexp.Compile(p); err != nil {
		return "an invalid expression"
	}
	return ""
}

// fitsType reports whether a literal YAML value fits a type expression. It
// answers true when it cannot tell (a template, an unknown shape).
func fitsType(v, t *yaml.Node) bool {
	if v == nil || t == nil {
		return true
	}
	if isStr(v) && hasTemplate(v.Value) {
		return true
	}
	if isNull(t) {
		return isNull(v)
	}
	if t.Kind == yaml.ScalarNode {
		switch t.Value {
		case "null":
			return isNull(v)
		case "bool":
			return isBool(v)
		case "integer":
			return isInt(v)
		case "number":
			return isNumber(v)
		case "string", "uri", "path", "duration", "timestamp", "bytes":
			return v.Kind == yaml.ScalarNode && (v.Tag == "!!str" || v.Tag == "!!timestamp")
		}
		return true
	}
	if !isMap(t) {
		return true
	}
	for _, p := range pairs(t) {
		switch p.k.Value {
		case "array":
			if !isSeq(v) {
				return false
			}
			for _, it := range v.Content {
				if !fitsType(it, p.v) {
					return false
				}
			}
			return true
		case "map":
			if !isMap(v) {
				return false
			}
			for _, q := range pairs(v) {
				if !fitsType(q.v, p.v) {
					return false
				}
			}
			return true
		case "object":
			return isMap(v)
		case "union":
			for _, m := range p.v.Content {
				if fitsType(v, m) {
					return true
				}
			}
			return false
		case "enum":
			items, _ := strs(p.v)
			return isStr(v) && oneOf(v.Value, items...)
		case "integer":
			return isInt(v)
		case "number":
			return isNumber(v)
		case "string":
			return isStr(v)
		}
	}
	return true
}

// returnsFit judges that an exec returns: type can come out of its decode.
func (w *workflow) returnsFit(t *task) {
	if t.verb != "exec" || !isMap(t.verbNode) {
		return
	}
	capture := mapGet(t.verbNode, "capture")
	if isStr(capture) && capture.Value == "structured" {
		return
	}
	decode := "text"
	if d := mapGet(t.verbNode, "decode"); isStr(d) {
		decode = d.Value
	}
	r := t.returns
	stringish := func(n *yaml.Node) bool {
		if isScalar(n) && !isNull(n) {
			return oneOf(n.Value, "string", "uri", "path", "duration", "timestamp")
		}
		return isMap(n) && (mapGet(n, "string") != nil || mapGet(n, "enum") != nil)
	}
	switch decode {
	case "text":
		if !stringish(r) {
			w.c.add("NIKA-TYPE-004", r, "declare decode: json (or jsonl) on the exec, or return a string", "task %q returns a structured type over decode: text", t.id)
		}
	case "bytes":
		if !(isScalar(r) && r.Value == "bytes") {
			w.c.add("NIKA-TYPE-004", r, "return bytes, or decode the stream as text or json", "task %q returns a non-bytes type over decode: bytes", t.id)
		}
	}
}

// numLess reports a < b for two YAML number literals.
func numLess(a, b string) bool {
	x, err1 := strconv.ParseFloat(strings.ReplaceAll(a, "_", ""), 64)
	y, err2 := strconv.ParseFloat(strings.ReplaceAll(b, "_", ""), 64)
	return err1 == nil && err2 == nil && x < y
}
