package checker

import "strings"

// codeInfo is the catalog entry of one diagnostic code this checker emits.
type codeInfo struct {
	category string
	severity Severity
	explain  string
}

// catalog holds every code the checker can emit, with its category and a
// plain explanation written for the person who has to fix the file.
var catalog = map[string]codeInfo{
	// YAML profile.
	"NIKA-YAML-001": {"parse_error", SeverityError, "an anchor (&name) was found. Nika files must show every value where it is used, so anchors are refused even when nothing refers to them. Write the value out in place."},
	"NIKA-YAML-002": {"parse_error", SeverityError, "an alias (*name) was found. Aliases expand hidden bytes into the document and open the reference-bomb class. Repeat the value explicitly."},
	"NIKA-YAML-003": {"parse_error", SeverityError, "a merge key (<<) was found. Merge keys were a YAML 1.1 extension and parsers disagree on them. Write the merged mapping out by hand."},
	"NIKA-YAML-004": {"parse_error", SeverityError, "a mapping repeats a key. YAML parsers silently keep the last one, so the file would not mean what it shows. Keep one occurrence."},
	"NIKA-YAML-005": {"parse_error", SeverityError, "a scalar is longer than 64 KiB. Move large payloads into a file the workflow reads."},
	"NIKA-YAML-006": {"parse_error", SeverityError, "a custom tag was found. Only the YAML core schema (strings, numbers, booleans, null, maps and sequences) is allowed."},
	"NIKA-YAML-007": {"parse_error", SeverityError, "a mapping key is not a string. Every key in a Nika file is a string; quote it."},
	"NIKA-YAML-008": {"parse_error", SeverityError, "a NaN or infinite number was found. Only finite numbers are allowed."},
	"NIKA-YAML-009": {"parse_error", SeverityError, "the document nests deeper than 64 levels. A file that deep was generated, not written; flatten it."},
	"NIKA-YAML-010": {"parse_error", SeverityError, "the document is larger than 1 MiB. Split it into composed workflows."},
	"NIKA-YAML-011": {"parse_error", SeverityError, "the file starts with a byte-order mark. Save it as UTF-8 without a BOM, so that two encodings of one text never hash differently."},

	// Parse and envelope.
	"NIKA-PARSE-001": {"parse_error", SeverityError, "the bytes are not valid YAML. Fix the syntax error at the given line."},
	"NIKA-PARSE-002": {"validation_error", SeverityError, "an envelope field is missing: every workflow needs a nika: line naming it and a non-empty tasks: map."},
	"NIKA-PARSE-003": {"parse_error", SeverityError, "the nika: value must be the file's kebab-case name (^[a-z][a-z0-9-]*$). It is a name, not a version: nika: v1 is a dead form."},
	"NIKA-PARSE-005": {"validation_error", SeverityError, "an unknown field. Every level of a Nika file is a closed set of keys, because a key that is silently ignored could remove authority. Remove or rename the key."},
	"NIKA-PARSE-006": {"validation_error", SeverityError, "a task id must be snake_case (^[a-z][a-z0-9_]*$): ids are read inside expressions, where a hyphen is a minus sign."},
	"NIKA-PARSE-007": {"validation_error", SeverityError, "two tasks carry the same id. The map key is the identity, and YAML would silently keep only the last one."},
	"NIKA-PARSE-008": {"validation_error", SeverityError, "a task declares no verb. Each task has exactly one of infer:, exec:, invoke: or agent:."},
	"NIKA-PARSE-009": {"validation_error", SeverityError, "a task declares more than one verb. Split it into one task per verb."},
	"NIKA-PARSE-010": {"validation_error", SeverityError, "timeout: must be a quoted Go duration such as \"30s\" or \"1h30m\": positive, at most 24h, units in descending order (h, m, s, ms, us, ns)."},
	"NIKA-PARSE-011": {"validation_error", SeverityError, "the retry: block has the wrong shape: max_attempts (an integer of at least 1) is required, and only backoff_ms, backoff_strategy, backoff_max_ms, jitter and on_codes may join it."},
	"NIKA-PARSE-012": {"validation_error", SeverityError, "the on_error: block has the wrong shape: exactly one action (recover: or skip: true), optionally filtered by on_codes:."},
	"NIKA-PARSE-013": {"validation_error", SeverityError, "a with: or extract: binding uses a reserved name (output, status, error, started_at, ended_at, duration_ms). Pick another name."},
	"NIKA-PARSE-014": {"validation_error", SeverityError, "a secrets: entry must be a reference to a store ({source: env, key: NAME} or {source: file, path: ...}), never an inline value."},
	"NIKA-PARSE-017": {"validation_error", SeverityError, "a mapping key is repeated; there is no silent last-wins."},
	"NIKA-PARSE-018": {"validation_error", SeverityError, "a verb body misses a required field (infer.prompt, agent.prompt, exec.command or exec.shell, invoke.tool or invoke.workflow)."},
	"NIKA-PARSE-019": {"validation_error", SeverityError, "a field has the wrong YAML shape or value for its place in the grammar."},
	"NIKA-PARSE-022": {"validation_error", SeverityError, "tasks: is a sequence. It became a map keyed by task id: drop the \"- id:\" lines and make each id a key."},
	"NIKA-PARSE-023": {"validation_error", SeverityError, "a task carries an id: field. The map key is the identity; remove the field."},
	"NIKA-PARSE-024": {"validation_error", SeverityError, "depends_on: is dead. Data flows through with: bindings (the binding is the edge); control without data is after: {task: success}."},
	"NIKA-PARSE-025": {"validation_error", SeverityError, "decode: cannot be combined with capture: structured, which already yields an object {stdout, stderr, exit_code}. Type that object with returns: instead."},
	"NIKA-PARSE-026": {"validation_error", SeverityError, "run: declares entropy: ambient with clock: virtual, a contradiction. Ambient entropy goes with the system clock; a virtual clock goes with none or seeded entropy."},
	"NIKA-PARSE-027": {"validation_error", SeverityError, "run: declares a reproducible entropy (none or seeded) with clock: system. A reproducible run cannot read the wall clock; declare clock: virtual."},
	"NIKA-PARSE-028": {"validation_error", SeverityError, "run: declares entropy: none while the workflow consumes randomness (a live retry jitter or nika:uuid). Set jitter: false, drop the source, or declare another entropy."},

	// Values.
	"NIKA-VALUES-001":  {"validation_error", SeverityError, "the vars: block and the vars. namespace are dead. A typed parameter is an inputs: entry, a fixed value a const: entry."},
	"NIKA-VALUES-002":  {"validation_error", SeverityError, "the envelope env: block and the env. namespace are dead. A deployment knob is an inputs: entry with required: false and a default:; a subprocess environment is exec.env."},
	"NIKA-VALUES-003":  {"validation_error", SeverityError, "a value namespace outside inputs, const and secrets was read (config., params. and friends). Declare the value under one of the three authorities."},
	"NIKA-DEFAULT-001": {"validation_error", SeverityError, "a default: or a typed const value does not fit its own declared type."},

	// Types.
	"NIKA-TYPE-001": {"validation_error", SeverityError, "a type expression names an unknown type or uses a form outside the grammar. Types are inline: a primitive (string, integer, number, bool, null, bytes, uri, path, duration, timestamp) or one of {array}, {map}, {object}, {union}, {enum}, {integer}, {number}, {string}; optional: is only legal on an object field."},
	"NIKA-TYPE-003": {"validation_error", SeverityError, "returns: and a verb schema: on the same task spell one contract twice. Keep one."},
	"NIKA-TYPE-004": {"validation_error", SeverityError, "the returns: type cannot come out of the exec decode: mode (the default is text). Declare decode: json or jsonl for structured values."},
	"NIKA-TYPE-006": {"validation_error", SeverityError, "a type pattern uses a regex construct outside the locked dialect (backreferences, lookaround, named groups, inline flags, lazy or possessive quantifiers, \\b, \\p)."},

	// Variables.
	"NIKA-VAR-001": {"variable_error", SeverityError, "a ${{ }} reference does not resolve: the namespace or the declared name does not exist, or a loop local is read outside for_each."},
	"NIKA-VAR-003": {"variable_error", SeverityError, "a path into a task's declared output shape names a member the declaration provably does not have."},
	"NIKA-VAR-005": {"validation_error", SeverityError, "an expression is outside the supported CEL subset, or a when: is not boolean-shaped."},
	"NIKA-VAR-008": {"validation_error", SeverityError, "a ${{ opener has no closing }}. Close it, or escape it as \\${{ to mean the literal text."},
	"NIKA-VAR-020": {"validation_error", SeverityError, "a bare tasks.X (or bare tasks) is the record, not a value. Pick .output, .status, .error or .duration_ms."},
	"NIKA-VAR-021": {"validation_error", SeverityError, "tasks.* (or group.*) is read outside the boundary. Bind it in the task's with: and read the binding (with.name) instead."},

	// DAG.
	"NIKA-DAG-001": {"validation_error", SeverityError, "the task graph has a cycle (with: and after: edges together, self-edges included)."},
	"NIKA-DAG-002": {"validation_error", SeverityError, "a with: or after: edge names a task that is not declared."},
	"NIKA-DAG-004": {"validation_error", SeverityError, "on_error.recover reads a task that depends on the failing task; the recovery would wait forever."},
	"NIKA-DAG-005": {"validation_error", SeverityError, "an after: predicate is outside the closed set: success, failure, skipped, terminal, unwind."},
	"NIKA-DAG-006": {"validation_error", SeverityError, "a task can never run: an incoming edge waits for a state its producer can never settle to (a producer with when: false only settles skipped)."},
	"NIKA-DAG-007": {"validation_error", SeverityError, "a task status is compared with a literal outside success, failure, skipped and cancelled: == never matches and != always holds."},
	"NIKA-DAG-008": {"validation_error", SeverityError, "group.<name> names a group that no task declares (a bare group names none)."},
	"NIKA-DAG-009": {"validation_error", SeverityError, "an unwind task cannot join a group: cleanup never enters the precedence graph."},

	// Verbs and tools.
	"NIKA-INVOKE-001":          {"validation_error", SeverityError, "the tool id does not resolve to a known builtin."},
	"NIKA-BUILTIN-001":         {"validation_error", SeverityError, "a builtin call violates its statically checkable argument contract, or names a builtin that does not exist."},
	"NIKA-BUILTIN-DONE-001":    {"validation_error", SeverityError, "nika:done ends an agent loop; it is only meaningful in an agent tools: whitelist, never as a standalone invoke."},
	"NIKA-BUILTIN-COMPOSE-001": {"validation_error", SeverityError, "nika:compose is an agent-loop tool; it is only meaningful in an agent tools: whitelist, never as a standalone invoke."},
	"NIKA-BUILTIN-WAIT-003":    {"validation_error", SeverityError, "nika:wait takes exactly one of duration: (a quoted Go duration) and until: (a timestamp); timeout: caps an until: wait only."},
	"NIKA-BUILTIN-PROMPT-002":  {"validation_error", SeverityError, "a nika:prompt shape that can never be answered: a mode outside confirm, input and choice, a choice prompt without a non-empty choices: list, or a default: that is not one of the choices."},
	"NIKA-BUILTIN-CONVERT-001": {"validation_error", SeverityError, "a nika:convert argument error: from: and to: are required, each one of json, yaml, toml and csv, never the same format; formula_guard: and has_header: are booleans."},
	"NIKA-BUILTIN-EDIT-001":    {"validation_error", SeverityError, "a nika:edit argument error: find: and replace: are required, find: is not empty, and count: is a non-negative integer (a string \"2\" is refused, never read as replace-all)."},
	"NIKA-BUILTIN-INSPECT-001": {"validation_error", SeverityError, "nika:inspect needs view: cost, records, dag_info or threads."},
	"NIKA-BUILTIN-EMIT-001":    {"validation_error", SeverityError, "nika:emit needs an event_type: matching ^[a-z][a-z0-9_.-]*$."},
	"NIKA-BUILTIN-HASH-001":    {"validation_error", SeverityError, "a nika:hash argument error: an unknown op: (hash, sign, verify), a broken or unsupported algo: (md5 and sha1 are refused; blake3, sha256, sha512), an encoding: outside hex and base64, a missing per-op argument, an argument of another op, or a sign key: that is not a ${{ secrets.X }} reference."},
	"NIKA-BUILTIN-DATE-001":    {"validation_error", SeverityError, "nika:date op: must be one of now, add, subtract, format, parse and diff."},
	"NIKA-BUILTIN-GLOB-001":    {"validation_error", SeverityError, "a nika:glob pattern is not a valid glob (an unclosed bracket, say)."},
	"NIKA-BUILTIN-GREP-001":    {"validation_error", SeverityError, "a nika:grep pattern does not compile as an RE2 regular expression (no backreferences, no lookaround)."},
	"NIKA-PROVIDER-001":        {"validation_error", SeverityError, "a model id must be <provider>/<name> with a canonical provider prefix (ollama, lmstudio, llamacpp, localai, vllm, mistral, anthropic, openai, gemini, deepseek, xai, groq, openrouter, huggingface, nvidia, moonshot, mock)."},
	"NIKA-AGENT-003":           {"validation_error", SeverityError, "a skills: path does not resolve: the file is missing, or the path is templated or a glob."},
	"NIKA-AGENT-004":           {"validation_error", SeverityError, "a skills: file is not a valid Agent Skill: it needs a YAML frontmatter with a non-empty name and description."},

	// Composition.
	"NIKA-COMP-001": {"validation_error", SeverityError, "an invoke: workflow: target must be a static path to a file that exists beside the parent."},
	"NIKA-COMP-002": {"security_error", SeverityError, "the child workflow's effects exceed what both the parent and the child declare; grants never flow down to a child."},
	"NIKA-COMP-003": {"validation_error", SeverityError, "the static call graph of composed workflows has a cycle."},

	// Authority.
	"NIKA-AUTH-006":  {"security_error", SeverityError, "the workflow has no permits: block, which declares zero authority, yet a task needs an effect. Paste the inferred block from the fix."},
	"NIKA-AUTH-007":  {"security_error", SeverityError, "a permits: bound contains an interpolation. Bounds must be literals, or the boundary would be self-serve."},
	"NIKA-AUTH-008":  {"security_error", SeverityError, "an untrusted value (an input, a tool result) reaches a verb argument and its resolved, canonical form escapes the permit. Widen the bound deliberately, or lift the taint law with a reason."},
	"NIKA-AUTH-009":  {"security_error", SeverityError, "permits.env names a dangerous variable (linker injection, shell startup, interpreter hooks, IFS). The engine always strips it, so the grant is dead; remove it."},
	"NIKA-AUTH-010":  {"security_error", SeverityError, "a permits.net.http entry uses a wildcard. Hosts are exact names; only the bare \"*\" is the explicit escape."},
	"NIKA-AUTH-011":  {"validation_error", SeverityError, "a lift: entry lifts a law that would not have fired on this task. A door that opens nothing is refused; remove the entry."},
	"NIKA-SEC-004":   {"security_error", SeverityError, "an effect lies outside the declared permits: boundary."},
	"NIKA-SEC-005":   {"security_error", SeverityError, "a network target is on the SSRF floor (private, link-local, metadata or non-public address). No grant can admit it; only an exact loopback literal may be declassified."},
	"NIKA-SEC-006":   {"security_error", SeverityError, "a secret reaches a sink (an exec, a tool call, a model prompt) that its egress: list does not sanction."},
	"NIKA-SEC-007":   {"security_error", SeverityError, "a value tainted by a secret reaches the workflow outputs:. Sanction it with egress: [{to: outputs}] on the secret, or do not export it."},
	"NIKA-SEC-008":   {"security_error", SeverityError, "a nika:fetch URL names a code-bearing file (serialized executable, script, binary). Model the acquisition as the exec it feeds, or lift the data-as-code law with a reason."},
	"NIKA-SEC-009":   {"security_error", SeverityError, "the lethal trifecta: the boundary grants a private read, untrusted content enters (a fetch, an MCP tool, a program's output), and it reaches a task that can send it out, with no blocking human gate (a nika:prompt without default:) standing on every path to that task."},
	"NIKA-SEC-012":   {"security_error", SeverityError, "two tasks with no order between them write the same literal path, or a fan-out writes one constant path. Order them with after:, or write distinct paths."},
	"NIKA-DRIFT-001": {"validation_error", SeverityWarning, "a declared input, constant or secret is never read. This is advice, never a failure: remove the declaration or use it."},
	"NIKA-SEC-014":   {"security_error", SeverityError, "a confirm-mode nika:prompt reaches an effectful task over a route that does not consume the answer. A refused confirm still settles success (with value false): bind the answer in with: and gate with when: ${{ with.go == true }}."},
	"NIKA-SEC-015":   {"security_error", SeverityError, "an exec: task runs downstream of a network task (nika:fetch, nika:notify). Content the workflow did not author must not reach a shell."},
}

// Explain returns the human explanation of a code, and false when the code
// is unknown to this checker.
func Explain(code string) (string, bool) {
	info, ok := catalog[strings.TrimSpace(code)]
	if !ok {
		return "", false
	}
	return info.explain, true
}

// Codes lists every code the checker can emit.
func Codes() []string {
	out := make([]string, 0, len(catalog))
	for c := range catalog {
		out = append(out, c)
	}
	sortStrings(out)
	return out
}

// Category returns the category of a code the checker emits
// (validation_error, security_error, parse_error, variable_error), or ""
// for a code it does not know.
func Category(code string) string { return catalog[code].category }
