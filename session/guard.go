package session

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/nika-dev/nika/checker"
)

// The hallucination guard reads every model reply before the human sees
// it, and adds a correction under it for each reference to something that
// does not exist: a nika: builtin, a model provider (in a workflow or in a
// sentence), a finding code, a malformed mcp: id, a verb of the engine or
// of nika, a workflow top-level key, a workflow written in a language that
// is not Nika (JSON with steps, triggers, action), and a claim that the
// model does not know Nika. It judges against the checker's own tables
// and two lists of verbs, so the guard and the checker never disagree. It
// never edits the reply: the human sees what the model said, and what is
// wrong with it.
//
// It is precise in both directions: a reference is judged only where it
// is one (a command in code or after "run"; a model id after "model"), so
// "nika lets you", "I don't know which model you prefer" and `nika run`
// (the engine's own verb, which /run prints) are left alone.

// Correction is one reference the guard found wrong.
type Correction struct {
	Kind string `json:"kind"` // builtin, provider, code, mcp, verb, field, language, claim
	Ref  string `json:"ref"`
	Text string `json:"text"`
}

// Guard knows what exists.
type Guard struct {
	builtins, providers, verbs, engine, envelope map[string]bool
	verbList                                     []string
}

// DefaultVerbs are nika's CLI verbs, for a guard built without a door.
var DefaultVerbs = []string{"propose", "show", "apply", "review", "rebase", "discard", "list", "log", "verify", "check", "explain", "recover", "push", "fetch", "revert", "serve", "mcp", "help", "completion"}

// EngineVerbs are the Nika engine's verbs, as the spec names them: run
// (and run --resume), check, test, trace (show, replay, verify), new,
// try, inspect, init, lock, key and catalog. The spec says there is no
// `nika vault` and no `nika ls` (it answers "unrecognized subcommand").
var EngineVerbs = []string{"run", "check", "test", "trace", "new", "try", "inspect", "init", "lock", "key", "catalog"}

// NewGuard builds a guard; verbs are nika's CLI verbs (nil: DefaultVerbs).
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
		engine: set(EngineVerbs), envelope: set(checker.EnvelopeKeys()), verbList: append([]string(nil), verbs...)}
}

var (
	builtinRe = regexp.MustCompile(`\bnika:([a-z][a-z0-9_/-]*)`)
	// codeRe: NIKA-PARSE-005, NIKA-E001, nika-parse-005. Codes of numbers
	// only (NIKA-1702) are the engine's runtime codes, not judged here.
	codeRe        = regexp.MustCompile(`(?i)\bNIKA(?:-[A-Z]+)*-[A-Z]*[0-9]+\b`)
	runtimeCodeRe = regexp.MustCompile(`^NIKA-[0-9]+$`)
	mcpRe         = regexp.MustCompile(`\bmcp:[^\s"'` + "`" + `),\]}]*`)
	// modelRe: a model id where a workflow or a JSON names one.
	modelRe = regexp.MustCompile(`(?m)\bmodel["']?\s*:\s*["']?([A-Za-z0-9_.-]+)/[A-Za-z0-9_.:-]+`)
	// proseModelRe: a model id in a sentence, next to the word model.
	proseModelRe = regexp.MustCompile(`(?i)\bmodels?\b(?:[^.\n/` + "`" + `]{0,40}?)[\s"'` + "`" + `(]([a-z][a-z0-9-]{1,24})/([A-Za-z0-9][A-Za-z0-9._:-]*[A-Za-z0-9])\b|(?:^|[\s"'` + "`" + `(])([a-z][a-z0-9-]{1,24})/([A-Za-z0-9][A-Za-z0-9._:-]*[A-Za-z0-9])["'` + "`" + `]?\s+(?:model|llm)\b`)
	// a command: nika VERB at a shell prompt or the start of a command
	cmdRe = regexp.MustCompile(`(?:^|[;&|]\s*|\$\s*|\bsudo\s+)nika\s+([a-z][a-z0-9-]*)`)
	// in a sentence: "run nika VERB", "type nika VERB"
	runProseRe = regexp.MustCompile(`\b(?i:run|type|execute|call|invoke|enter)\s+(?:the\s+command\s+)?nika\s+([a-z][a-z0-9-]*)`)
	// a line that is a command and nothing else
	bareCmdRe  = regexp.MustCompile(`(?m)^\s*nika\s+([a-z][a-z0-9-]*)(?:\s+-|\s+\S+\.nika\.yaml|\s*$)`)
	inlineRe   = regexp.MustCompile("`([^`\n]+)`")
	topKeyRe   = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_-]*):`)
	fenceRe    = regexp.MustCompile("(?ms)^[ \\t]*(```|~~~)([^\\n]*)\\n(.*?)^[ \\t]*(```|~~~)[ \\t]*$")
	unknownRe  = regexp.MustCompile(`(?i)\b(?:i(?:'m| am) not (?:familiar with|aware of)|i (?:do not|don't|can't|cannot) (?:know|recognize|find (?:any )?information (?:about|on))|i(?:'m| am) unfamiliar with|i (?:don't|do not) have (?:any )?(?:information|knowledge|details|data) (?:about|on|of|regarding)|i have no (?:information|knowledge) (?:about|of|on))\s+(?:(?:what|the|a|an|any|this|that|tool|language|called|named|is|framework|project|workflow|format|something)\s+){0,4}["'` + "`" + `*]*nika\b`)
	unknownRe2 = regexp.MustCompile(`(?i)\bnika\b["'` + "`" + `*]*(?:\?|,|\s)\s*(?:is not|isn't)\s+(?:a\s+|an\s+)?(?:\w+\s+){0,2}(?:i know|i'm familiar with|i am familiar with|i recognize|known to me)\b|\bnika\b["'` + "`" + `*]*\?\s+i(?:'m| am) not familiar with (?:it|that)\b`)
	shellInfo  = regexp.MustCompile(`^(?:|sh|bash|zsh|shell|console|terminal|text|txt|fish|powershell|ps|cmd)$`)
	fileExtRe  = regexp.MustCompile(`\.(?:ya?ml|md|json|txt|go|py|js|ts|sh|toml|ini|env|nika|html|css|rs|csv)$`)
)

// prose are words that follow "nika" in a sentence, not a verb.
var prose = map[string]bool{"is": true, "was": true, "has": true, "had": true, "can": true, "cannot": true, "will": true, "would": true,
	"does": true, "did": true, "and": true, "or": true, "the": true, "a": true, "an": true, "to": true, "in": true, "on": true,
	"with": true, "it": true, "also": true, "then": true, "should": true, "must": true, "may": true, "might": true, "never": true,
	"only": true, "lets": true, "let": true, "helps": true, "makes": true, "gives": true, "works": true, "knows": true}

// inventedKeys are the top-level keys of the workflow languages that Nika
// is not (CI systems, generic pipeline DSLs): a reply that presents a
// workflow in them has invented the language.
var inventedKeys = map[string]bool{"steps": true, "triggers": true, "trigger": true, "actions": true, "action": true,
	"pipeline": true, "stages": true, "workflow": true, "nodes": true, "flow": true, "jobs": true}

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
	provider := func(p string) {
		if strings.Contains(p, "${{") || g.providers[strings.ToLower(p)] {
			return
		}
		add("provider", p, fmt.Sprintf("%q is not a model provider Nika knows; the providers are %s", p, strings.Join(checker.Providers(), ", ")))
	}
	for _, m := range modelRe.FindAllStringSubmatch(reply, -1) {
		provider(m[1])
	}
	for _, loc := range proseModelRe.FindAllStringSubmatchIndex(reply, -1) {
		p, n := 2, 4
		if loc[2] < 0 {
			p, n = 6, 8
		}
		prov, name := reply[loc[p]:loc[p+1]], reply[loc[n]:loc[n+1]]
		end := loc[n+1]
		if fileExtRe.MatchString(name) || (end < len(reply) && reply[end] == '/') || (loc[p] > 0 && strings.ContainsRune("/.:@", rune(reply[loc[p]-1]))) {
			continue // a path or a URL, not a model id
		}
		provider(prov)
	}
	for _, code := range codeRe.FindAllString(reply, -1) {
		up := strings.ToUpper(code)
		if runtimeCodeRe.MatchString(up) {
			continue // the engine's runtime codes: not the checker's to judge
		}
		if _, ok := checker.Explain(up); !ok {
			add("code", code, fmt.Sprintf("%s is not a code the checker emits; /explain CODE says what a code means", code))
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
	for _, v := range g.commandVerbs(reply) {
		if !g.verbs[v] && !g.engine[v] {
			add("verb", "nika "+v, fmt.Sprintf("nika has no verb %q: the engine's verbs are %s; nika's own are %s", v, strings.Join(EngineVerbs, ", "), strings.Join(g.verbList, ", ")))
		}
	}
	for _, loc := range fenceRe.FindAllStringSubmatchIndex(reply, -1) {
		info, body := reply[loc[4]:loc[5]], reply[loc[6]:loc[7]]
		before := reply[max(0, loc[0]-300):loc[0]]
		g.checkBlock(info, body, before, add)
	}
	if unknownRe.MatchString(reply) || unknownRe2.MatchString(reply) {
		add("claim", "unknown language", "Nika is the workflow language of this project; its digest was sent with the question (top-level keys, verbs, builtins, providers); ask again, or type /builtins, /providers or /help")
	}
	return out
}

// commandVerbs finds the verbs of the nika commands a reply gives: in
// inline code, in shell blocks, at a $ prompt, after "run", and on a line
// that is a command alone. Prose ("nika lets you") is not a command.
func (g Guard) commandVerbs(reply string) []string {
	var out []string
	addAll := func(re *regexp.Regexp, s string) {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			if !prose[m[1]] {
				out = append(out, m[1])
			}
		}
	}
	// fenced blocks: shell blocks are commands; other blocks are data
	outside := reply
	for _, m := range fenceRe.FindAllStringSubmatch(reply, -1) {
		info := strings.ToLower(strings.TrimSpace(strings.Fields(m[2] + " x")[0]))
		if m[2] == "" || strings.TrimSpace(m[2]) == "" {
			info = ""
		}
		if shellInfo.MatchString(info) && !strings.Contains(m[2], "path=") {
			for _, l := range strings.Split(m[3], "\n") {
				addAll(cmdRe, strings.TrimSpace(l))
			}
		}
		outside = strings.Replace(outside, m[0], "", 1)
	}
	for _, m := range inlineRe.FindAllStringSubmatch(outside, -1) {
		addAll(cmdRe, strings.TrimSpace(m[1]))
	}
	noInline := inlineRe.ReplaceAllString(outside, " ")
	for _, l := range strings.Split(noInline, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "$") {
			addAll(cmdRe, t)
		}
	}
	addAll(runProseRe, noInline)
	addAll(bareCmdRe, noInline)
	return out
}

// checkBlock judges a fenced block: the top-level keys of a Nika
// workflow, and a workflow written in a language that is not Nika.
func (g Guard) checkBlock(info, body, before string, add func(kind, ref, text string)) {
	path := ""
	if i := strings.Index(info, "path="); i >= 0 {
		path = strings.Fields(info[i+5:] + " ")[0]
	}
	if path != "" && !strings.HasSuffix(path, ".nika.yaml") && !strings.HasSuffix(path, ".nika") {
		return // another file, in its own language
	}
	lang := strings.ToLower(strings.TrimSpace(strings.Fields(info + " x")[0]))
	trimmed := strings.TrimSpace(body)
	if lang == "json" || strings.HasPrefix(trimmed, "{") {
		var obj map[string]any
		if json.Unmarshal([]byte(trimmed), &obj) != nil {
			return
		}
		keys := inventedIn(obj)
		workflowish := path != "" || mentionsWorkflow(before)
		if len(keys) > 0 && workflowish {
			add("language", strings.Join(keys, ", "), fmt.Sprintf("this is not Nika: a Nika workflow is a YAML file (*.nika.yaml) whose top level is closed to %s, with tasks: as a map of task ids, each with one verb (infer, exec, invoke, agent); %s are not part of it",
				strings.Join(checker.EnvelopeKeys(), ", "), quoteAll(keys)))
		} else if _, ok := obj["nika"]; ok && path != "" {
			for _, k := range sortedKeys(obj) {
				if !g.envelope[k] {
					add("field", k, fmt.Sprintf("%q is not a workflow top-level key; the envelope is closed to %s", k, strings.Join(checker.EnvelopeKeys(), ", ")))
				}
			}
		}
		return
	}
	if isWorkflowBlock(info, body) {
		for _, k := range topKeyRe.FindAllStringSubmatch(body, -1) {
			if !g.envelope[k[1]] {
				add("field", k[1], fmt.Sprintf("%q is not a workflow top-level key; the envelope is closed to %s", k[1], strings.Join(checker.EnvelopeKeys(), ", ")))
			}
		}
		return
	}
	if lang != "yaml" && lang != "yml" {
		return
	}
	// a YAML block that presents a workflow in another language
	var keys []string
	for _, k := range topKeyRe.FindAllStringSubmatch(body, -1) {
		if inventedKeys[k[1]] && k[1] != "jobs" {
			keys = append(keys, k[1])
		}
	}
	if len(keys) > 0 && !strings.Contains(body, "\njobs:") && !strings.HasPrefix(body, "jobs:") && (path != "" || mentionsWorkflow(before)) {
		add("language", strings.Join(keys, ", "), fmt.Sprintf("this is not Nika: a Nika workflow starts with nika: <id> and its top level is closed to %s; %s are not part of it",
			strings.Join(checker.EnvelopeKeys(), ", "), quoteAll(keys)))
	}
}

var workflowWordRe = regexp.MustCompile(`(?i)\bnika\b|\bworkflow\b`)

func mentionsWorkflow(before string) bool { return workflowWordRe.MatchString(before) }

// inventedIn lists the keys of an invented workflow language in a JSON
// object: at its top level, and in the objects of its top-level arrays
// (steps: [{action: ...}]).
func inventedIn(obj map[string]any) []string {
	found := map[string]bool{}
	for k, v := range obj {
		if inventedKeys[k] && k != "workflow" && k != "flow" && k != "nodes" {
			found[k] = true
		}
		if arr, ok := v.([]any); ok && inventedKeys[k] {
			for _, it := range arr {
				if o, ok := it.(map[string]any); ok {
					for ik := range o {
						if ik == "action" || ik == "uses" || ik == "trigger" {
							found[ik] = true
						}
					}
				}
			}
		}
	}
	var out []string
	for k := range found {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
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
