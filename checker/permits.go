package checker

import (
	"net/netip"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// permits is the declared capability boundary.
type permits struct {
	fsRead, fsWrite []string
	net             []string
	execAll         bool
	exec            []string
	tools           []string
	env             []string
}

// dangerousEnv is the floor of names no grant can pass to a child process:
// dynamic-linker injection, shell startup sourcing, tool command hooks,
// interpreter pre-exec hooks, and IFS.
var dangerousEnv = map[string]bool{
	"LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true, "LD_DEBUG": true,
	"DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true, "DYLD_FRAMEWORK_PATH": true, "DYLD_FALLBACK_LIBRARY_PATH": true,
	"BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true, "IFS": true, "CDPATH": true,
	"GIT_SSH_COMMAND": true, "GIT_EXEC_PATH": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true,
	"PYTHONSTARTUP": true, "PYTHONPATH": true, "PYTHONHOME": true, "NODE_OPTIONS": true, "NODE_PATH": true,
	"PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true,
}

func (w *workflow) permitsBlock(key, n *yaml.Node) {
	c := w.c
	if key == nil {
		return
	}
	w.permNode = key
	p := &permits{}
	w.permits = p
	w.permEmpty = isNull(n) || (isMap(n) && len(n.Content) == 0)
	if isNull(n) {
		return
	}
	if !isMap(n) {
		c.add("NIKA-PARSE-019", n, "write permits: {} for zero authority, or list the categories", "permits: must be a map, found %s", kindName(n))
		return
	}
	list := func(v *yaml.Node, where string) []string {
		if isNull(v) {
			return []string{}
		}
		items, ok := strs(v)
		if !ok {
			c.add("NIKA-PARSE-019", v, "", "permits.%s must be a list of strings", where)
		}
		for i, s := range items {
			if hasTemplate(s) {
				c.add("NIKA-AUTH-007", v.Content[i], "write the bound as a literal", "permits.%s[%d] interpolates a value; a bound must be a literal", where, i)
			}
		}
		return items
	}
	for _, q := range pairs(n) {
		switch q.k.Value {
		case "fs":
			if !isMap(q.v) && !isNull(q.v) {
				c.add("NIKA-PARSE-019", q.v, "write fs: { read: [...], write: [...] }", "permits.fs must be a map")
			}
			for _, r := range pairs(q.v) {
				switch r.k.Value {
				case "read":
					p.fsRead = list(r.v, "fs.read")
				case "write":
					p.fsWrite = list(r.v, "fs.write")
				default:
					c.add("NIKA-PARSE-005", r.k, "keep read and write", "unknown key %q in permits.fs", r.k.Value)
				}
			}
		case "net":
			if !isMap(q.v) && !isNull(q.v) {
				c.add("NIKA-PARSE-019", q.v, "write net: { http: [\"api.example.com\"] }", "permits.net must be a map")
			}
			for _, r := range pairs(q.v) {
				if r.k.Value != "http" {
					c.add("NIKA-PARSE-005", r.k, "keep http", "unknown key %q in permits.net", r.k.Value)
					continue
				}
				p.net = list(r.v, "net.http")
				for i, h := range p.net {
					w.netEntry(r.v.Content[i], h)
				}
			}
		case "exec":
			switch {
			case isBool(q.v):
				p.execAll, _ = boolVal(q.v)
			case isSeq(q.v):
				p.exec = list(q.v, "exec")
			default:
				c.add("NIKA-PARSE-019", q.v, "write exec: false, exec: true or exec: [\"git\"]", "permits.exec must be a boolean or a list of programs")
			}
		case "tools":
			p.tools = list(q.v, "tools")
			for i, t := range p.tools {
				w.checkToolPattern(q.v.Content[i], t)
			}
		case "env":
			p.env = list(q.v, "env")
			for i, e := range p.env {
				switch {
				case hasTemplate(e):
				case !envNameRe.MatchString(e):
					c.add("NIKA-PARSE-019", q.v.Content[i], "write an exact variable name", "permits.env entry %q is not a variable name", e)
				case dangerousEnv[e]:
					c.add("NIKA-AUTH-009", q.v.Content[i], "remove "+e+"; the engine always strips it", "permits.env grants %s, which no child may inherit", e)
				}
			}
		default:
			c.add("NIKA-PARSE-005", q.k, "keep fs, net, exec, tools and env"+didYouMean(q.k.Value, []string{"fs", "net", "exec", "tools", "env"}), "unknown key %q in permits:", q.k.Value)
		}
	}
}

// netEntry judges one permits.net.http entry.
func (w *workflow) netEntry(n *yaml.Node, h string) {
	if hasTemplate(h) || h == "*" {
		return
	}
	if strings.Contains(h, "*") {
		w.c.add("NIKA-AUTH-010", n, "list each exact host; only the bare \"*\" is the explicit escape", "net.http entry %q carries a wildcard", h)
		return
	}
	if floorBlocked(h) && !isLoopback(h) {
		w.c.add("NIKA-SEC-005", n, "remove the entry; the SSRF floor refuses this target whatever the grant", "net.http entry %q names a floor-blocked target, a dead grant", h)
	}
}

// canonHost lowercases a host and strips a trailing dot, brackets and a
// port.
func canonHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if strings.HasPrefix(h, "[") {
		if i := strings.Index(h, "]"); i > 0 {
			return h[1:i]
		}
	}
	if i := strings.LastIndex(h, ":"); i > 0 && strings.Count(h, ":") == 1 {
		h = h[:i]
	}
	return strings.TrimSuffix(h, ".")
}

func isLoopback(h string) bool {
	h = canonHost(h)
	if h == "localhost" {
		return true
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.IsLoopback()
	}
	return false
}

// floorBlocked reports whether the SSRF floor always refuses a host:
// loopback, private, link-local, shared (CGN), unspecified, metadata.
func floorBlocked(h string) bool {
	h = canonHost(h)
	switch {
	case h == "localhost", strings.HasSuffix(h, ".localhost"), h == "metadata.google.internal", h == "metadata", strings.HasSuffix(h, ".internal") && strings.HasPrefix(h, "metadata"):
		return true
	}
	a, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified() || a.IsMulticast() {
		return true
	}
	if a.Is4() {
		cgn := netip.MustParsePrefix("100.64.0.0/10")
		zero := netip.MustParsePrefix("0.0.0.0/8")
		return cgn.Contains(a) || zero.Contains(a)
	}
	return false
}

// canonPath normalizes a relative or absolute path lexically: "./" and
// "." steps vanish, ".." steps fold. escapes reports a relative path that
// climbs above its root.
func canonPath(p string) (string, bool) {
	p = strings.ReplaceAll(p, "\\", "/")
	abs := strings.HasPrefix(p, "/")
	cl := path.Clean(p)
	if abs {
		return cl, false
	}
	if cl == ".." || strings.HasPrefix(cl, "../") {
		return cl, true
	}
	return cl, false
}

// pathAllowed matches a path against fs globs, both sides canonical; a
// path that escapes its root never matches a relative bound.
func pathAllowed(p string, globs []string) bool {
	cp, esc := canonPath(p)
	for _, g := range globs {
		cg, gesc := canonPath(g)
		// "dir/**" covers the directory itself as well as what lies under it.
		if strings.HasSuffix(cg, "/**") && cp == strings.TrimSuffix(cg, "/**") {
			return true
		}
		if esc && !gesc && !strings.HasPrefix(cg, "/") {
			continue
		}
		if cg == "." {
			cg = "**"
		}
		if globMatch(cg, cp, "/") {
			return true
		}
		// A grant on a directory covers what lies under it.
		if !strings.ContainsAny(cg, "*?[") && (cp == cg || strings.HasPrefix(cp, strings.TrimSuffix(cg, "/")+"/")) {
			return true
		}
	}
	return false
}

func hostAllowed(h string, hosts []string) bool {
	ch := canonHost(h)
	for _, x := range hosts {
		if x == "*" || canonHost(x) == ch {
			return true
		}
	}
	return false
}

func programAllowed(prog string, list []string) bool {
	for _, x := range list {
		if x == prog {
			return true
		}
		if !strings.Contains(x, "/") && path.Base(prog) == x && strings.HasPrefix(prog, "/") {
			return true
		}
	}
	return false
}

func toolAllowed(id string, list []string) bool {
	allowed := false
	for _, x := range list {
		neg := strings.HasPrefix(x, "!")
		if toolGlob(strings.TrimPrefix(x, "!"), id) {
			allowed = !neg
		}
	}
	return allowed
}
