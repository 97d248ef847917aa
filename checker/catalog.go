package checker

// This file only exposes tables the checker already holds, so that other
// rooms (the session's hallucination guard) judge a model's references
// against exactly what the checker knows, and never against a second copy.

// Builtins lists the nika: builtins the checker knows, with their prefix
// ("nika:read"), sorted.
func Builtins() []string {
	out := make([]string, 0, len(builtins))
	for k := range builtins {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

// Providers lists the model providers the checker knows (the prefix of a
// model id, "openai" in "openai/gpt-4o"), sorted.
func Providers() []string {
	out := append([]string(nil), providers...)
	sortStrings(out)
	return out
}

// EnvelopeKeys lists the nine top-level keys of a workflow, in the
// checker's order.
func EnvelopeKeys() []string { return append([]string(nil), envelopeKeys...) }

// ValidMCPTool reports whether id is a well-formed mcp:<server>/<tool> id.
func ValidMCPTool(id string) bool { return mcpToolRe.MatchString(id) }
