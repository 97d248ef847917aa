package checker

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// builtin describes one nika: builtin: the effect it carries and the
// arguments its static contract requires.
type builtin struct {
	reads, writes []string // argument names holding a path read or written
	net           bool     // reaches the network
	urlArg        string   // the argument holding the destination
	pause         bool     // waits for a human answer
	loopOnly      string   // code refused when invoked outside an agent loop
	required      []string // arguments the static contract requires
	oneOfArgs     []string // exactly one of these is required
}

// effectful reports whether the builtin carries an effect category, and
// so needs a permits.tools grant.
func (b builtin) effectful() bool {
	return b.net || len(b.reads) > 0 || len(b.writes) > 0
}

var builtins = map[string]builtin{
	"nika:assert":           {required: []string{"condition"}},
	"nika:chart":            {writes: []string{"out"}},
	"nika:compose":          {loopOnly: "NIKA-BUILTIN-COMPOSE-001"},
	"nika:convert":          {},
	"nika:date":             {},
	"nika:decide":           {required: []string{"bundle", "evidence"}},
	"nika:done":             {loopOnly: "NIKA-BUILTIN-DONE-001"},
	"nika:edit":             {reads: []string{"path"}, writes: []string{"path"}, required: []string{"path"}},
	"nika:emit":             {},
	"nika:fetch":            {net: true, urlArg: "url", required: []string{"url"}},
	"nika:glob":             {reads: []string{"pattern"}, required: []string{"pattern"}},
	"nika:grep":             {reads: []string{"path"}, required: []string{"pattern"}},
	"nika:hash":             {},
	"nika:image_fx":         {reads: []string{"input"}, writes: []string{"out"}},
	"nika:image_generate":   {writes: []string{"output_dir/"}},
	"nika:inspect":          {},
	"nika:jq":               {required: []string{"expression"}},
	"nika:json_diff":        {},
	"nika:json_merge_patch": {},
	"nika:log":              {},
	"nika:notify":           {net: true, urlArg: "target", required: []string{"channel", "target", "message"}},
	"nika:prompt":           {pause: true, required: []string{"message"}},
	"nika:read":             {reads: []string{"path"}, required: []string{"path"}},
	"nika:tts_generate":     {writes: []string{"output_dir/"}},
	"nika:uuid":             {},
	"nika:validate":         {},
	"nika:wait":             {},
	"nika:write":            {writes: []string{"path"}, required: []string{"path", "content"}},
}

var fetchModes = []string{"markdown", "article", "text", "selector", "jq", "metadata", "links", "feed", "sitemap", "raw"}

func builtinNames() []string {
	out := make([]string, 0, len(builtins))
	for k := range builtins {
		out = append(out, strings.TrimPrefix(k, "nika:"))
	}
	sortStrings(out)
	return out
}

// checkTool judges the tool id of an invoke: and the static argument
// contract of a builtin.
func (w *workflow) checkTool(t *task, n *yaml.Node) {
	c := w.c
	id := n.Value
	if hasTemplate(id) {
		c.add("NIKA-PARSE-019", n, "name the tool literally", "invoke.tool must be a literal tool id")
		return
	}
	ns, rest, ok := strings.Cut(id, ":")
	switch {
	case !ok:
		c.add("NIKA-PARSE-019", n, "write nika:<builtin> or mcp:<server>/<tool>", "tool %q has no namespace", id)
		return
	case ns == "mcp":
		if !mcpToolRe.MatchString(id) {
			fix := "write mcp:<server>/<tool>"
			if !strings.Contains(rest, "/") {
				fix = "add the tool name: mcp:" + rest + "/<tool>"
			}
			c.add("NIKA-PARSE-019", n, fix, "tool %q is not mcp:<server>/<tool>", id)
		}
		return
	case ns != "nika":
		c.add("NIKA-PARSE-019", n, "use nika:<builtin> or mcp:<server>/<tool>", "tool namespace %q is not nika: or mcp:", ns)
		return
	}
	if strings.Contains(rest, "/") {
		c.add("NIKA-INVOKE-001", n, "", "grouped builtin %q does not exist in v1", id)
		return
	}
	b, known := builtins[id]
	if !known {
		c.add("NIKA-BUILTIN-001", n, "use a builtin"+didYouMean(rest, builtinNames()), "builtin %q does not exist", id)
		return
	}
	if b.loopOnly != "" {
		c.add(b.loopOnly, n, "list "+id+" in an agent: tools: whitelist instead", "%s is only meaningful inside an agent loop", id)
		return
	}
	args := t.args
	if args != nil && !isMap(args) {
		return
	}
	for _, r := range b.required {
		if mapGet(args, r) == nil {
			c.add("NIKA-BUILTIN-001", n, "add args."+r, "%s requires the argument %s", id, r)
		}
	}
	if len(b.oneOfArgs) > 0 {
		cnt := 0
		for _, r := range b.oneOfArgs {
			if mapGet(args, r) != nil {
				cnt++
			}
		}
		if cnt != 1 {
			c.add("NIKA-BUILTIN-001", n, "give exactly one of "+strings.Join(b.oneOfArgs, ", "), "%s takes exactly one of %s", id, strings.Join(b.oneOfArgs, " and "))
		}
	}
	if id == "nika:jq" || id == "nika:fetch" {
		key := "expression"
		if id == "nika:fetch" {
			key = "jq"
		}
		if e := mapGet(args, key); isStr(e) && !hasTemplate(e.Value) && jqReadsEnv(e.Value) {
			c.add("NIKA-VAR-005", e, "declare the value as an input or a secret and pass it in", "the jq expression of %s reads the engine's environment; an expression sees only its input", id)
		}
	}
	w.builtinArgs(t, id, n)
	if id == "nika:fetch" {
		mode := mapGet(args, "mode")
		if isStr(mode) && !hasTemplate(mode.Value) && !oneOf(mode.Value, fetchModes...) {
			c.add("NIKA-BUILTIN-001", mode, "use one of "+strings.Join(fetchModes, ", "), "nika:fetch mode %q is not a canonical extract mode", mode.Value)
		}
		if jq := mapGet(args, "jq"); jq != nil && (!isStr(mode) || mode.Value != "jq") {
			c.add("NIKA-BUILTIN-001", mapKey(args, "jq"), "add mode: jq", "nika:fetch jq: requires mode: jq")
		}
	}
}

// checkToolPattern judges an entry of an agent whitelist or permits.tools:
// a tool id, possibly with globs, possibly negated.
func (w *workflow) checkToolPattern(n *yaml.Node, id string) {
	p := strings.TrimPrefix(id, "!")
	if hasTemplate(p) {
		return
	}
	ns, _, ok := strings.Cut(p, ":")
	if !ok || (ns != "nika" && ns != "mcp") {
		w.c.add("NIKA-PARSE-019", n, "use nika:<builtin> or mcp:<server>/<tool>", "tool pattern %q is not in the nika: or mcp: namespace", id)
		return
	}
	if ns == "nika" && !strings.ContainsAny(p, "*?[") {
		if _, ok := builtins[p]; !ok {
			w.c.add("NIKA-BUILTIN-001", n, "use a builtin"+didYouMean(strings.TrimPrefix(p, "nika:"), builtinNames()), "builtin %q does not exist", p)
		}
	}
}

// toolGlob matches a tool id against a whitelist pattern: "*" stays within
// a path segment and never crosses the namespace colon, "**" crosses "/".
func toolGlob(pattern, id string) bool {
	return globMatch(pattern, id, "/:")
}

// globMatch matches with "*" (not crossing any byte of seps), "**" (any
// run), and "?" (one byte, not a separator).
func globMatch(pattern, s, seps string) bool {
	var match func(pi, si int, budget *int) bool
	match = func(pi, si int, budget *int) bool {
		*budget--
		if *budget < 0 {
			return false
		}
		for pi < len(pattern) {
			ch := pattern[pi]
			switch {
			case ch == '*' && pi+1 < len(pattern) && pattern[pi+1] == '*':
				rest := pi + 2
				// "**/" may also match zero directories.
				if rest < len(pattern) && pattern[rest] == '/' && match(rest+1, si, budget) {
					return true
				}
				for k := si; k <= len(s); k++ {
					if match(rest, k, budget) {
						return true
					}
				}
				return false
			case ch == '*':
				for k := si; k <= len(s); k++ {
					if match(pi+1, k, budget) {
						return true
					}
					if k < len(s) && strings.IndexByte(seps, s[k]) >= 0 {
						return false
					}
				}
				return false
			case ch == '?':
				if si >= len(s) || strings.IndexByte(seps, s[si]) >= 0 {
					return false
				}
			default:
				if si >= len(s) || s[si] != ch {
					return false
				}
			}
			pi++
			si++
		}
		return si == len(s)
	}
	budget := 100000
	return match(0, 0, &budget)
}

// jqReadsEnv reports whether a jq program reaches for the environment
// ($ENV or the env builtin), outside string literals.
func jqReadsEnv(prog string) bool {
	var b strings.Builder
	inStr := false
	for i := 0; i < len(prog); i++ {
		c := prog[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			b.WriteByte(' ')
			continue
		}
		if c == '"' {
			inStr = true
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(c)
	}
	code := b.String()
	if strings.Contains(code, "$ENV") {
		return true
	}
	for i := 0; i+3 <= len(code); i++ {
		if code[i:i+3] != "env" {
			continue
		}
		before := i == 0 || !(isIdentPart(code[i-1]) || code[i-1] == '$' || code[i-1] == '.')
		after := i+3 == len(code) || !isIdentPart(code[i+3])
		if before && after {
			return true
		}
	}
	return false
}
