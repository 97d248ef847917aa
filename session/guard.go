package session

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/nika-dev/nika/checker"
)

// The hallucination guard reads every model reply before the human sees
// it, and adds a correction under it for each reference to something that
// does not exist: a nika: builtin, a model provider, a NIKA- code, a
// malformed mcp: id, a nika <verb>, a workflow top-level key. It judges
// against the checker's own tables (and the CLI's verbs, which the door
// passes in), so the guard and the checker never disagree. It never edits
// the reply: the human sees what the model said, and what is wrong with it.

// Correction is one reference the guard found wrong.
type Correction struct {
	Kind string `json:"kind"` // builtin, provider, code, mcp, verb, field, claim
	Ref  string `json:"ref"`
	Text string `json:"text"`
}

// Guard knows what exists.
type Guard struct {
	builtins, providers, verbs, envelope map[string]bool
	verbList                             []string
}

// DefaultVerbs are nika's CLI verbs, for a guard built without a door.
var DefaultVerbs = []string{"propose", "show", "apply", "discard", "list", "log", "verify", "check", "explain", "recover", "push", "fetch", "revert", "serve", "help"}

// NewGuard builds a guard; verbs are the CLI's verbs (nil: DefaultVerbs).
func NewGuard(verbs []string) Guard {
	if len(verbs) == 0 {
		verbs = DefaultVerbs
	}
	set := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	return Guard{builtins: set(checker.Builtins()), providers: set(checker.Providers()), verbs: set(verbs),
		envelope: set(checker.EnvelopeKeys()), verbList: append([]string(nil), verbs...)}
}

var (
	builtinRe  = regexp.MustCompile(`\bnika:([a-z][a-z0-9_/-]*)`)
	codeRe     = regexp.MustCompile(`\bNIKA-[A-Z]+(?:-[A-Z]+)*-[0-9]+\b`)
	mcpRe      = regexp.MustCompile(`\bmcp:[^\s"'` + "`" + `),\]}]*`)
	modelRe    = regexp.MustCompile(`(?m)\bmodel["']?\s*:\s*["']?([A-Za-z0-9_.-]+)/[A-Za-z0-9_.:-]+`)
	verbRe     = regexp.MustCompile("(?m)(?:^[ \\t]*(?:\\$[ \\t]*)?|`|\\b(?i:run|use|try|type|call|execute|with)[ \\t]+)nika[ \\t]+([a-z][a-z-]*)")
	topKeyRe   = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_-]*):`)
	fenceRe    = regexp.MustCompile("(?ms)^[ \\t]*(```|~~~)([^\\n]*)\\n(.*?)^[ \\t]*(```|~~~)[ \\t]*$")
	unknownRe  = regexp.MustCompile(`(?i)\b(?:i(?:'m| am) not (?:familiar|aware)|i (?:don't|do not) (?:know|have (?:any )?(?:information|knowledge))|(?:not|un)familiar with|no (?:information|knowledge) (?:about|of)|(?:isn't|is not) a (?:language|tool) i know)\b[^.\n]*\bnika\b`)
	unknownRe2 = regexp.MustCompile(`(?i)\bnika\b[^.\n]*\b(?:i(?:'m| am) not familiar with|i (?:don't|do not) know)\b`)
)

// prose are words that follow "nika" in a sentence, not a verb.
var prose = map[string]bool{"is": true, "was": true, "has": true, "had": true, "can": true, "cannot": true, "will": true, "would": true,
	"does": true, "did": true, "and": true, "or": true, "the": true, "a": true, "an": true, "to": true, "in": true, "on": true,
	"with": true, "it": true, "also": true, "then": true, "should": true, "must": true, "may": true, "might": true, "never": true,
	"only": true, "stages": true, "shows": true, "applies": true, "reads": true, "writes": true, "keeps": true, "checks": true,
	"asks": true, "refuses": true, "records": true, "runs": true, "uses": true, "needs": true, "treats": true, "sees": true}

// Check returns the corrections for a reply, in order of appearance,
// one per distinct reference.
func (g Guard) Check(reply string) []Correction {
	var out []Correction
	seen := map[string]bool{}
	add := func(kind, ref, text string) {
		if seen[kind+"\x00"+ref] {
			return
		}
		seen[kind+"\x00"+ref] = true
		out = append(out, Correction{Kind: kind, Ref: ref, Text: text})
	}
	for _, m := range builtinRe.FindAllStringSubmatch(reply, -1) {
		id := "nika:" + strings.TrimRight(m[1], "/-")
		if !g.builtins[id] {
			add("builtin", id, fmt.Sprintf("%s is not a Nika builtin; the builtins are %s", id, strings.Join(checker.Builtins(), ", ")))
		}
	}
	for _, m := range modelRe.FindAllStringSubmatch(reply, -1) {
		if strings.Contains(m[1], "${{") {
			continue
		}
		if !g.providers[m[1]] {
			add("provider", m[1], fmt.Sprintf("%q is not a model provider Nika knows; the providers are %s", m[1], strings.Join(checker.Providers(), ", ")))
		}
	}
	for _, code := range codeRe.FindAllString(reply, -1) {
		if _, ok := checker.Explain(code); !ok {
			add("code", code, fmt.Sprintf("%s is not a code the checker emits; /explain lists what a code means", code))
		}
	}
	for _, id := range mcpRe.FindAllString(reply, -1) {
		id = strings.TrimRight(id, ".;:")
		if strings.ContainsAny(id, "*?[!") {
			continue // a whitelist pattern, not an id
		}
		if !checker.ValidMCPTool(id) {
			add("mcp", id, fmt.Sprintf("%s is not a well-formed MCP tool id; write mcp:<server>/<tool>", id))
		}
	}
	for _, m := range verbRe.FindAllStringSubmatch(reply, -1) {
		if !g.verbs[m[1]] && !prose[m[1]] {
			add("verb", "nika "+m[1], fmt.Sprintf("nika has no verb %q; its verbs are %s", m[1], strings.Join(g.verbList, ", ")))
		}
	}
	for _, m := range fenceRe.FindAllStringSubmatch(reply, -1) {
		info, body := m[2], m[3]
		if !isWorkflowBlock(info, body) {
			continue
		}
		for _, k := range topKeyRe.FindAllStringSubmatch(body, -1) {
			if !g.envelope[k[1]] {
				add("field", k[1], fmt.Sprintf("%q is not a workflow top-level key; the envelope is closed to %s", k[1], strings.Join(checker.EnvelopeKeys(), ", ")))
			}
		}
	}
	if unknownRe.MatchString(reply) || unknownRe2.MatchString(reply) {
		add("claim", "unknown language", "Nika is the workflow language of this project; its digest was sent with the question (top-level keys, verbs, builtins, providers); ask again, or run /help")
	}
	return out
}

// isWorkflowBlock tells a fenced block that holds a workflow: its info
// string names a *.nika.yaml path, or its first key is nika:.
func isWorkflowBlock(info, body string) bool {
	if strings.Contains(info, ".nika.yaml") {
		return true
	}
	if strings.Contains(info, "nika.yaml") { // the project file has its own grammar
		return false
	}
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		return strings.HasPrefix(l, "nika:")
	}
	return false
}
