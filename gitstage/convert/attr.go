package convert

import (
	"path"
	"strings"
)

// State is how an attribute stands for a path, as git says it.
type State int

const (
	Unspecified State = iota // no line names it (or !name)
	Set                      // name
	Unset                    // -name
	Value                    // name=value
)

// Attr is one attribute's state for a path.
type Attr struct {
	State State
	Value string // for Value
}

// IsValue reports the value v.
func (a Attr) IsValue(v string) bool { return a.State == Value && a.Value == v }

// String renders the attribute as a .gitattributes line would: text,
// -text, text=auto, or "" when unspecified.
func (a Attr) String(name string) string {
	switch a.State {
	case Set:
		return name
	case Unset:
		return "-" + name
	case Value:
		return name + "=" + a.Value
	}
	return ""
}

// Attributes answers which attributes apply to a path, as git's attr.c
// does: the system file, then the global one (core.attributesFile), then
// each .gitattributes from the root down to the path's directory, then
// $GIT_DIR/info/attributes; a later line wins. Macros ([attr]name …, and
// the built-in binary) may be defined in the files outside the tree and in
// the root .gitattributes only; a negative pattern is ignored; a pattern
// with a trailing slash matches directories only, so never a file.
type Attributes struct {
	outer  [][]attrLine // system, global (lowest first)
	info   []attrLine
	tree   func(dir string) ([]byte, bool)
	files  map[string][]attrLine
	macros map[string][]attrSetting
}

type attrLine struct {
	dir     string // the directory of the file, "" for the root and the outer files
	pattern string
	flags   int
	attrs   []attrSetting
}

type attrSetting struct {
	name string
	attr Attr
}

const (
	patNoDir = 1 << iota
	patMustBeDir
	patAnchored
)

// NewAttributes reads the attribute files. system, global and info are
// their contents (nil when absent); tree returns the .gitattributes of a
// directory of the tree ("" is the root), read once each.
func NewAttributes(system, global, info []byte, tree func(dir string) ([]byte, bool)) *Attributes {
	a := &Attributes{tree: tree, files: map[string][]attrLine{}, macros: map[string][]attrSetting{
		"binary": {{"diff", Attr{State: Unset}}, {"merge", Attr{State: Unset}}, {"text", Attr{State: Unset}}},
	}}
	for _, data := range [][]byte{system, global} {
		a.outer = append(a.outer, a.parse("", data, true))
	}
	a.info = a.parse("", info, true)
	if tree != nil {
		a.load("") // the root's macros are known before any lookup
	}
	return a
}

func (a *Attributes) load(dir string) []attrLine {
	if ls, ok := a.files[dir]; ok {
		return ls
	}
	var ls []attrLine
	if a.tree != nil {
		if data, ok := a.tree(dir); ok {
			ls = a.parse(dir, data, dir == "")
		}
	}
	a.files[dir] = ls
	return ls
}

// parse reads one attribute file; macros are recorded where allowed.
func (a *Attributes) parse(dir string, data []byte, macroOK bool) []attrLine {
	var out []attrLine
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimLeft(raw, " \t\r\n")
		if line == "" || line[0] == '#' || len(raw) >= 2048 {
			continue
		}
		var pat, rest string
		if line[0] == '"' {
			if p, n, ok := unquoteC(line); ok {
				pat, rest = p, line[n:]
			}
		}
		if pat == "" {
			i := strings.IndexAny(line, " \t\r\n")
			if i < 0 {
				i = len(line)
			}
			pat, rest = line[:i], line[i:]
		}
		if strings.HasPrefix(pat, "[attr]") && len(pat) > len("[attr]") {
			if !macroOK {
				continue
			}
			name := pat[len("[attr]"):]
			a.macros[name] = parseStates(rest)
			continue
		}
		if strings.HasPrefix(pat, "!") {
			continue // git: negative patterns are ignored in git attributes
		}
		l := attrLine{dir: dir, attrs: parseStates(rest)}
		if strings.HasSuffix(pat, "/") {
			l.flags |= patMustBeDir
			pat = strings.TrimSuffix(pat, "/")
		}
		if !strings.Contains(pat, "/") {
			l.flags |= patNoDir
		}
		if strings.HasPrefix(pat, "/") {
			l.flags |= patAnchored
			pat = pat[1:]
		}
		l.pattern = strings.ReplaceAll(pat, "[!", "[^")
		out = append(out, l)
	}
	return out
}

func parseStates(s string) []attrSetting {
	var out []attrSetting
	for _, f := range strings.Fields(s) {
		switch {
		case strings.HasPrefix(f, "-"):
			out = append(out, attrSetting{f[1:], Attr{State: Unset}})
		case strings.HasPrefix(f, "!"):
			out = append(out, attrSetting{f[1:], Attr{State: Unspecified}})
		case strings.Contains(f, "="):
			k, v, _ := strings.Cut(f, "=")
			out = append(out, attrSetting{k, Attr{State: Value, Value: v}})
		default:
			out = append(out, attrSetting{f, Attr{State: Set}})
		}
	}
	return out
}

// unquoteC reads a C-quoted pattern at the start of s, returning it and
// the length consumed.
func unquoteC(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, true
		case '\\':
			i++
			if i >= len(s) {
				return "", 0, false
			}
			switch e := s[i]; e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '"', '\\':
				b.WriteByte(e)
			default:
				if e >= '0' && e <= '3' && i+2 < len(s) {
					v := int(e-'0')<<6 | int(s[i+1]-'0')<<3 | int(s[i+2]-'0')
					b.WriteByte(byte(v))
					i += 2
				} else {
					return "", 0, false
				}
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

func (l *attrLine) matches(p string) bool {
	if l.flags&patMustBeDir != 0 {
		return false // a file is never a directory
	}
	rel := p
	if l.dir != "" {
		if !strings.HasPrefix(p, l.dir+"/") {
			return false
		}
		rel = p[len(l.dir)+1:]
	}
	if l.flags&patNoDir != 0 {
		base := rel
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			base = rel[i+1:]
		}
		ok, err := path.Match(l.pattern, base)
		return err == nil && ok
	}
	return matchPath(strings.Split(l.pattern, "/"), strings.Split(rel, "/"))
}

// matchPath is wildmatch with WM_PATHNAME over slash components: * and ?
// stay within a component, and a component ** matches any number of them,
// but a trailing /** at least one (git's "a/**" matches what is inside a,
// never a itself), which is where it differs from changeset.MatchGlob.
func matchPath(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return len(name) > 0
			}
			for i := 0; i <= len(name); i++ {
				if matchPath(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// Lookup returns every attribute that is specified for the file p (a
// slash path from the root).
func (a *Attributes) Lookup(p string) map[string]Attr {
	out := map[string]Attr{}
	var set func(s attrSetting, depth int)
	set = func(s attrSetting, depth int) {
		if s.attr.State == Unspecified {
			delete(out, s.name)
		} else {
			out[s.name] = s.attr
		}
		if m, ok := a.macros[s.name]; ok && s.attr.State == Set && depth < 8 {
			for _, ms := range m {
				set(ms, depth+1)
			}
		}
	}
	apply := func(ls []attrLine) {
		for i := range ls {
			if ls[i].matches(p) {
				for _, s := range ls[i].attrs {
					set(s, 0)
				}
			}
		}
	}
	for _, ls := range a.outer {
		apply(ls)
	}
	apply(a.load(""))
	comps := strings.Split(p, "/")
	for i := 1; i < len(comps); i++ {
		apply(a.load(strings.Join(comps[:i], "/")))
	}
	apply(a.info)
	return out
}
