package checker

import (
	"fmt"
	"strconv"
	"strings"
)

// island is one ${{ ... }} occurrence inside a string.
type island struct {
	expr  string // the text between the delimiters, trimmed
	start int    // byte offset of "${{" in the string
	whole bool   // the island is the whole (trimmed) string
}

// islands finds the live ${{ }} islands of s. An odd run of backslashes
// right before "${{" escapes it. unclosed is the offset of an opener with no
// closing "}}", or -1.
func islands(s string) (out []island, unclosed int) {
	unclosed = -1
	i := 0
	for {
		j := strings.Index(s[i:], "${{")
		if j < 0 {
			return out, unclosed
		}
		j += i
		bs := 0
		for k := j - 1; k >= 0 && s[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 1 {
			i = j + 3
			continue
		}
		end := closeIndex(s, j+3)
		if end < 0 {
			return out, j
		}
		inner := strings.TrimSpace(s[j+3 : end])
		whole := strings.TrimSpace(s[:j]) == "" && strings.TrimSpace(s[end+2:]) == ""
		out = append(out, island{expr: inner, start: j, whole: whole})
		i = end + 2
	}
}

// closeIndex finds the "}}" closing an island opened before from, skipping
// quoted strings inside the expression.
func closeIndex(s string, from int) int {
	var quote byte
	for k := from; k < len(s); k++ {
		ch := s[k]
		if quote != 0 {
			if ch == '\\' {
				k++
				continue
			}
			if ch == quote {
				quote = 0
			}
			continue
		}
		if ch == '\'' || ch == '"' {
			quote = ch
			continue
		}
		if ch == '}' && k+1 < len(s) && s[k+1] == '}' {
			return k
		}
	}
	// A stray quote may hide the closer: fall back to a plain search.
	if k := strings.Index(s[from:], "}}"); k >= 0 {
		return from + k
	}
	return -1
}

// celKind tags the nodes of the expression tree.
type celKind int

const (
	celLit celKind = iota
	celIdent
	celSelect
	celIndex
	celCall
	celUnary
	celBinary
	celCond
	celList
)

// cel is a node of a parsed cel-subset/0.1 expression.
type cel struct {
	kind celKind
	op   string // operator, function or method name, or identifier
	lit  any    // literal value: bool, string, float64, nil
	args []*cel // operands; for select/index/method the receiver is args[0]
	name string // member name of a select
}

type tok struct {
	kind string // ident, num, str, op, eof
	text string
	val  any
}

func lexCEL(src string) ([]tok, error) {
	toks := make([]tok, 0, len(src)/4+2) // about one token per four bytes, and eof
	i := 0
	for i < len(src) {
		ch := src[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
		case isIdentStart(ch):
			j := i + 1
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			toks = append(toks, tok{kind: "ident", text: src[i:j]})
			i = j
		case ch >= '0' && ch <= '9':
			j := i
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			if j+1 < len(src) && src[j] == '.' && src[j+1] >= '0' && src[j+1] <= '9' {
				j++
				for j < len(src) && src[j] >= '0' && src[j] <= '9' {
					j++
				}
			}
			f, _ := strconv.ParseFloat(src[i:j], 64) // digits, and a fraction: always a number
			toks = append(toks, tok{kind: "num", text: src[i:j], val: f})
			i = j
		case ch == '\'' || ch == '"':
			// Without a backslash, the value is the text between the quotes.
			if k := strings.IndexByte(src[i+1:], ch); k >= 0 && strings.IndexByte(src[i+1:i+1+k], '\\') < 0 {
				toks = append(toks, tok{kind: "str", text: src[i : i+k+2], val: src[i+1 : i+1+k]})
				i += k + 2
				continue
			}
			j := i + 1
			var b strings.Builder
			closed := false
			for j < len(src) {
				if src[j] == '\\' && j+1 < len(src) {
					switch src[j+1] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(src[j+1])
					}
					j += 2
					continue
				}
				if src[j] == ch {
					closed = true
					break
				}
				b.WriteByte(src[j])
				j++
			}
			if !closed {
				return nil, fmt.Errorf("unterminated string literal")
			}
			toks = append(toks, tok{kind: "str", text: src[i : j+1], val: b.String()})
			i = j + 1
		default:
			two := ""
			if i+1 < len(src) {
				two = src[i : i+2]
			}
			switch two {
			case "==", "!=", "<=", ">=", "&&", "||":
				toks = append(toks, tok{kind: "op", text: two})
				i += 2
				continue
			}
			switch ch {
			case '<', '>', '!', '.', '[', ']', '(', ')', ',', '?', ':', '-':
				toks = append(toks, tok{kind: "op", text: string(ch)})
				i++
			default:
				return nil, fmt.Errorf("unexpected character %q", ch)
			}
		}
	}
	toks = append(toks, tok{kind: "eof"})
	return toks, nil
}

func isIdentStart(c byte) bool { return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || (c >= '0' && c <= '9') }

type celParser struct {
	toks []tok
	pos  int
}

func (p *celParser) peek() tok { return p.toks[p.pos] }
func (p *celParser) next() tok {
	t := p.toks[p.pos]
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return t
}
func (p *celParser) is(text string) bool {
	t := p.peek()
	return (t.kind == "op" || t.kind == "ident") && t.text == text
}
func (p *celParser) expect(text string) error {
	if !p.is(text) {
		return fmt.Errorf("expected %q, found %q", text, p.peek().text)
	}
	p.next()
	return nil
}

// parseCEL parses one expression of the cel-subset/0.1 grammar.
// celParsed is one expression's parse, kept for the rest of an audit.
type celParsed struct {
	e   *cel
	err error
}

// parseCEL is parseCEL(src) once per audit: the laws walk the same
// strings several times (references, authority, secret flow, drift), and
// a parsed tree is never modified after the parse.
func (c *checker) parseCEL(src string) (*cel, error) {
	if r, ok := c.cels[src]; ok {
		return r.e, r.err
	}
	e, err := parseCEL(src)
	if c.cels == nil {
		c.cels = map[string]celParsed{}
	}
	c.cels[src] = celParsed{e, err}
	return e, err
}

func parseCEL(src string) (*cel, error) {
	toks, err := lexCEL(src)
	if err != nil {
		return nil, err
	}
	if len(toks) == 1 {
		return nil, fmt.Errorf("the expression is empty")
	}
	p := &celParser{toks: toks}
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.peek().kind != "eof" {
		return nil, fmt.Errorf("unexpected %q", p.peek().text)
	}
	return e, nil
}

const maxCELDepth = 64

func (p *celParser) expr(d int) (*cel, error) {
	if d > maxCELDepth {
		return nil, fmt.Errorf("the expression nests too deep")
	}
	c, err := p.or(d)
	if err != nil {
		return nil, err
	}
	if p.is("?") {
		p.next()
		a, err := p.expr(d + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		b, err := p.expr(d + 1)
		if err != nil {
			return nil, err
		}
		return &cel{kind: celCond, args: []*cel{c, a, b}}, nil
	}
	return c, nil
}

func (p *celParser) or(d int) (*cel, error) {
	l, err := p.and(d)
	if err != nil {
		return nil, err
	}
	for p.is("||") {
		p.next()
		r, err := p.and(d)
		if err != nil {
			return nil, err
		}
		l = &cel{kind: celBinary, op: "||", args: []*cel{l, r}}
	}
	return l, nil
}

func (p *celParser) and(d int) (*cel, error) {
	l, err := p.rel(d)
	if err != nil {
		return nil, err
	}
	for p.is("&&") {
		p.next()
		r, err := p.rel(d)
		if err != nil {
			return nil, err
		}
		l = &cel{kind: celBinary, op: "&&", args: []*cel{l, r}}
	}
	return l, nil
}

var relops = map[string]bool{"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true, "in": true}

func (p *celParser) rel(d int) (*cel, error) {
	l, err := p.unary(d)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); relops[t.text] && (t.kind == "op" || t.text == "in") {
		p.next()
		r, err := p.unary(d)
		if err != nil {
			return nil, err
		}
		if t2 := p.peek(); relops[t2.text] && (t2.kind == "op" || t2.text == "in") {
			return nil, fmt.Errorf("relations do not chain (%s ... %s); add parentheses", t.text, t2.text)
		}
		return &cel{kind: celBinary, op: t.text, args: []*cel{l, r}}, nil
	}
	return l, nil
}

func (p *celParser) unary(d int) (*cel, error) {
	if d > maxCELDepth {
		return nil, fmt.Errorf("the expression nests too deep")
	}
	if p.is("!") {
		p.next()
		x, err := p.unary(d + 1)
		if err != nil {
			return nil, err
		}
		return &cel{kind: celUnary, op: "!", args: []*cel{x}}, nil
	}
	if p.is("-") {
		p.next()
		t := p.peek()
		if t.kind != "num" {
			return nil, fmt.Errorf("arithmetic is not in the subset")
		}
		p.next()
		return &cel{kind: celLit, lit: -t.val.(float64)}, nil
	}
	return p.postfix(d)
}

var celMethods = map[string]int{"size": 0, "contains": 1, "startsWith": 1, "endsWith": 1}

func (p *celParser) postfix(d int) (*cel, error) {
	x, err := p.primary(d)
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.is("."):
			p.next()
			t := p.next()
			if t.kind != "ident" {
				return nil, fmt.Errorf("expected a member name after '.'")
			}
			if p.is("(") {
				if _, ok := celMethods[t.text]; !ok {
					return nil, fmt.Errorf("method %s() is not in the subset (size, contains, startsWith, endsWith)", t.text)
				}
				p.next()
				var args []*cel
				if !p.is(")") {
					a, err := p.expr(d + 1)
					if err != nil {
						return nil, err
					}
					args = append(args, a)
				}
				if err := p.expect(")"); err != nil {
					return nil, err
				}
				want, ok := celMethods[t.text]
				if !ok {
					return nil, fmt.Errorf("method %s() is not in the subset (size, contains, startsWith, endsWith)", t.text)
				}
				if len(args) != want {
					return nil, fmt.Errorf("method %s() takes %d argument(s)", t.text, want)
				}
				x = &cel{kind: celCall, op: t.text, args: append([]*cel{x}, args...), name: "method"}
				continue
			}
			x = &cel{kind: celSelect, name: t.text, args: []*cel{x}}
		case p.is("["):
			p.next()
			i, err := p.expr(d + 1)
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			x = &cel{kind: celIndex, args: []*cel{x, i}}
		default:
			return x, nil
		}
	}
}

func (p *celParser) primary(d int) (*cel, error) {
	t := p.next()
	switch t.kind {
	case "num":
		return &cel{kind: celLit, lit: t.val}, nil
	case "str":
		return &cel{kind: celLit, lit: t.val}, nil
	case "ident":
		switch t.text {
		case "true":
			return &cel{kind: celLit, lit: true}, nil
		case "false":
			return &cel{kind: celLit, lit: false}, nil
		case "null":
			return &cel{kind: celLit, lit: nil}, nil
		case "in":
			return nil, fmt.Errorf("unexpected 'in'")
		}
		if p.is("(") {
			p.next()
			if t.text != "size" && t.text != "has" {
				return nil, fmt.Errorf("function %s() is not in the subset (size, has)", t.text)
			}
			a, err := p.expr(d + 1)
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return &cel{kind: celCall, op: t.text, args: []*cel{a}}, nil
		}
		return &cel{kind: celIdent, op: t.text}, nil
	case "op":
		switch t.text {
		case "(":
			e, err := p.expr(d + 1)
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return e, nil
		case "[":
			l := &cel{kind: celList}
			if p.is("]") {
				p.next()
				return l, nil
			}
			for {
				e, err := p.expr(d + 1)
				if err != nil {
					return nil, err
				}
				l.args = append(l.args, e)
				if p.is(",") {
					p.next()
					continue
				}
				if err := p.expect("]"); err != nil {
					return nil, err
				}
				return l, nil
			}
		}
	case "eof":
		return nil, fmt.Errorf("the expression ends too early")
	}
	return nil, fmt.Errorf("unexpected %q", t.text)
}

// seg is one step of a reference path: a member name or an index.
type seg struct {
	name  string
	index bool
}

// ref is a reference read by an expression: a root identifier and the
// static steps that follow it.
type ref struct {
	root  string
	path  []seg
	inHas bool
}

// refs collects the references of an expression tree.
func refs(e *cel) []ref {
	var out []ref
	var walk func(e *cel, inHas bool)
	walk = func(e *cel, inHas bool) {
		if e == nil {
			return
		}
		switch e.kind {
		case celIdent, celSelect, celIndex:
			if r, ok := refOf(e); ok {
				r.inHas = inHas
				out = append(out, r)
				// index expressions may carry references of their own
				collectIndexArgs(e, func(x *cel) { walk(x, inHas) })
				return
			}
		case celCall:
			if e.op == "has" && e.name == "" {
				walk(e.args[0], true)
				return
			}
		}
		for _, a := range e.args {
			walk(a, inHas)
		}
	}
	walk(e, false)
	return out
}

func collectIndexArgs(e *cel, f func(*cel)) {
	for e != nil {
		switch e.kind {
		case celIndex:
			f(e.args[1])
			e = e.args[0]
		case celSelect:
			e = e.args[0]
		default:
			return
		}
	}
}

// refOf turns a chain of selects and indexes rooted at an identifier into a
// ref.
func refOf(e *cel) (ref, bool) {
	var steps []seg
	for {
		switch e.kind {
		case celIdent:
			for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
				steps[i], steps[j] = steps[j], steps[i]
			}
			return ref{root: e.op, path: steps}, true
		case celSelect:
			steps = append(steps, seg{name: e.name})
			e = e.args[0]
		case celIndex:
			if s, ok := e.args[1].lit.(string); ok && e.args[1].kind == celLit {
				steps = append(steps, seg{name: s})
			} else {
				steps = append(steps, seg{index: true})
			}
			e = e.args[0]
		default:
			return ref{}, false
		}
	}
}

// boolShaped reports whether the root of an expression can only be a
// boolean: a relation, a boolean operator, a boolean literal, has(), or a
// boolean string method.
func boolShaped(e *cel) bool {
	switch e.kind {
	case celLit:
		_, ok := e.lit.(bool)
		return ok
	case celBinary, celUnary:
		return true
	case celCall:
		return e.op == "has" || e.op == "contains" || e.op == "startsWith" || e.op == "endsWith"
	case celCond:
		return boolShaped(e.args[1]) || boolShaped(e.args[2]) || true
	}
	return false
}

// tri is a Kleene truth value.
type tri int

const (
	triUnknown tri = iota
	triFalse
	triTrue
)

// evalTri evaluates an expression with some references bound to values;
// anything it cannot decide is unknown.
func evalTri(e *cel, env func(ref) (any, bool)) tri {
	v, ok := evalVal(e, env, 0)
	if !ok {
		return triUnknown
	}
	if b, isB := v.(bool); isB {
		if b {
			return triTrue
		}
		return triFalse
	}
	return triUnknown
}

func evalVal(e *cel, env func(ref) (any, bool), d int) (any, bool) {
	if e == nil || d > maxCELDepth {
		return nil, false
	}
	switch e.kind {
	case celLit:
		return e.lit, true
	case celIdent, celSelect, celIndex:
		r, ok := refOf(e)
		if !ok {
			return nil, false
		}
		return env(r)
	case celUnary:
		v, ok := evalVal(e.args[0], env, d+1)
		b, isB := v.(bool)
		if !ok || !isB {
			return nil, false
		}
		return !b, true
	case celCond:
		c := evalTri(e.args[0], env)
		switch c {
		case triTrue:
			return evalVal(e.args[1], env, d+1)
		case triFalse:
			return evalVal(e.args[2], env, d+1)
		}
		return nil, false
	case celBinary:
		switch e.op {
		case "&&", "||":
			a := evalTri(e.args[0], env)
			b := evalTri(e.args[1], env)
			if e.op == "&&" {
				if a == triFalse || b == triFalse {
					return false, true
				}
				if a == triTrue && b == triTrue {
					return true, true
				}
				return nil, false
			}
			if a == triTrue || b == triTrue {
				return true, true
			}
			if a == triFalse && b == triFalse {
				return false, true
			}
			return nil, false
		case "==", "!=":
			a, ok1 := evalVal(e.args[0], env, d+1)
			b, ok2 := evalVal(e.args[1], env, d+1)
			if !ok1 || !ok2 {
				return nil, false
			}
			eq := fmt.Sprint(a) == fmt.Sprint(b) && fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b)
			if e.op == "==" {
				return eq, true
			}
			return !eq, true
		case "in":
			a, ok1 := evalVal(e.args[0], env, d+1)
			if !ok1 || e.args[1].kind != celList {
				return nil, false
			}
			for _, it := range e.args[1].args {
				b, ok := evalVal(it, env, d+1)
				if !ok {
					return nil, false
				}
				if fmt.Sprint(a) == fmt.Sprint(b) && fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b) {
					return true, true
				}
			}
			return false, true
		}
	}
	return nil, false
}
