package session

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/nika-dev/nika/checker"
)

// The context broker decides what a model receives: a typed Bundle and
// nothing else. It is built from the snapshot, the files the human named
// in this session (workflows and the project file only, bounded), the
// checker's diagnostics on them, and the recent dialogue. Obvious secrets
// are redacted from every part, and the kinds redacted are recorded. The
// process environment is never read here, so it cannot be sent.

// Message is one line of the dialogue.
type Message struct {
	Role string `json:"role"` // "human" or "model"
	Text string `json:"text"`
}

// NamedFile is a file the human named, as sent.
type NamedFile struct {
	Path      string `json:"path"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
}

// Bundle is everything a Reasoner receives.
type Bundle struct {
	Identity    string      `json:"identity"`
	Language    string      `json:"language"`
	Facts       string      `json:"facts"`
	Files       []NamedFile `json:"files"`
	Diagnostics []string    `json:"diagnostics"`
	Dialogue    []Message   `json:"dialogue"`
	// Feedback is the human's word on earlier proposals, not yet sent.
	Feedback []string `json:"feedback"`
	Question string   `json:"question"`
	// Redacted lists the kinds of secrets removed, sorted (not sent).
	Redacted []string `json:"-"`
	// told is the feedback this bundle carries, by proposal id.
	told map[string]string
}

// Bounds of the bundle.
const (
	MaxNamedFiles   = 8
	MaxFileBytes    = 32 << 10
	MaxDialogue     = 8
	MaxMessageBytes = 8 << 10
)

const identity = `You are the assistant inside nika, a git-native tool for projects written in the Nika workflow language. ` +
	`You cannot change files, run commands or apply anything: you answer, and you may propose changes. ` +
	`To propose a change, give each whole new file in a fenced block whose info string names its path, ` +
	"like ```yaml path=flows/daily.nika.yaml. nika stages it as a proposal; only the human decides whether it is applied."

// LanguageDigest is the short digest of the Nika language sent with every
// bundle, built from the checker's own tables.
func LanguageDigest() string {
	var b strings.Builder
	b.WriteString("Nika workflows are YAML files named *.nika.yaml; a project file nika.yaml sits at the root.\n")
	fmt.Fprintf(&b, "A workflow's top level is closed to these keys: %s. The first line is nika: <id>.\n", strings.Join(checker.EnvelopeKeys(), ", "))
	b.WriteString("tasks: is a map of task ids; each task has exactly one verb: infer (a model call), exec (a program), invoke (a tool or a child workflow), agent (a tool loop).\n")
	b.WriteString("Order tasks with after:, read earlier outputs with ${{ tasks.<id>.output }}, inputs with ${{ inputs.<name> }}, secrets with ${{ secrets.<name> }}.\n")
	b.WriteString("Authority is declared in permits: (fs, net, exec, tools, env); an absent block grants nothing.\n")
	fmt.Fprintf(&b, "Tools are nika:<builtin> or mcp:<server>/<tool>. Builtins: %s.\n", strings.Join(checker.Builtins(), ", "))
	fmt.Fprintf(&b, "Models are <provider>/<name>; providers: %s.\n", strings.Join(checker.Providers(), ", "))
	b.WriteString("Findings have codes like NIKA-PARSE-005; the human can run /explain CODE.\n")
	return b.String()
}

// System is the bundle's system part: identity and language.
func (b Bundle) System() string {
	return b.Identity + "\n\n" + b.Language
}

// User is the bundle's user part: the facts, files, diagnostics, dialogue
// and the question.
func (b Bundle) User() string {
	var s strings.Builder
	s.WriteString("## The project\n")
	s.WriteString(b.Facts)
	for _, f := range b.Files {
		fmt.Fprintf(&s, "\n## File %s", f.Path)
		if f.Truncated {
			fmt.Fprintf(&s, " (cut at %d bytes)", MaxFileBytes)
		}
		s.WriteString("\n```yaml\n" + f.Text)
		if !strings.HasSuffix(f.Text, "\n") {
			s.WriteString("\n")
		}
		s.WriteString("```\n")
	}
	if len(b.Diagnostics) > 0 {
		s.WriteString("\n## Diagnostics\n")
		for _, d := range b.Diagnostics {
			s.WriteString("- " + d + "\n")
		}
	}
	if len(b.Dialogue) > 0 {
		s.WriteString("\n## Recent dialogue\n")
		for _, m := range b.Dialogue {
			fmt.Fprintf(&s, "%s: %s\n", m.Role, m.Text)
		}
	}
	if len(b.Feedback) > 0 {
		s.WriteString("\n## The human's feedback on earlier proposals\n")
		for _, f := range b.Feedback {
			s.WriteString(f)
			if !strings.HasSuffix(f, "\n") {
				s.WriteString("\n")
			}
		}
	}
	s.WriteString("\n## Question\n" + b.Question + "\n")
	return s.String()
}

// Prompt is the whole bundle as one text, for a program that reads a
// prompt on its standard input.
func (b Bundle) Prompt() string { return b.System() + "\n\n" + b.User() }

type secretRule struct {
	kind string
	re   *regexp.Regexp
	// group is the submatch replaced; 0 replaces the whole match.
	group int
}

var secretRules = []secretRule{
	{"private key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`), 0},
	{"api key", regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`), 0},
	{"api key", regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`), 0},
	{"api key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), 0},
	{"token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`), 0},
	{"token", regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), 0},
	{"token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), 0},
	{"token", regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{12,})`), 1},
	{"password", regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|passphrase)["']?\s*[:=]\s*["']?([^\s"'$][^\s"']{3,})`), 1},
	{"token", regexp.MustCompile(`(?i)\b(?:[a-z0-9]+_)?(?:token|secret|api_?key|access_?key|client_secret)["']?\s*[:=]\s*["']?([^\s"'$\[{][^\s"']{7,})`), 1},
}

// Redact removes obvious secrets (private keys, API keys, tokens,
// passwords) from text and returns the kinds it removed, sorted and
// without duplicates. References such as ${{ secrets.KEY }} are kept.
func Redact(text string) (string, []string) {
	kinds := map[string]bool{}
	for _, r := range secretRules {
		text = r.re.ReplaceAllStringFunc(text, func(m string) string {
			if r.group == 0 {
				kinds[r.kind] = true
				return "[redacted " + r.kind + "]"
			}
			sub := r.re.FindStringSubmatchIndex(m)
			if sub == nil || sub[2*r.group] < 0 {
				return m
			}
			val := m[sub[2*r.group]:sub[2*r.group+1]]
			if strings.HasPrefix(val, "[redacted") {
				return m
			}
			kinds[r.kind] = true
			return m[:sub[2*r.group]] + "[redacted " + r.kind + "]" + m[sub[2*r.group+1]:]
		})
	}
	var out []string
	for k := range kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return text, out
}

var namedRe = regexp.MustCompile(`(?:^|[\s"'` + "`" + `(\[])((?:[A-Za-z0-9_.-]+/)*(?:[A-Za-z0-9_.-]+\.nika\.yaml|nika\.yaml))\b`)

// NamedPaths finds the workflow and project file paths a human named in a
// text, in order, without duplicates.
func NamedPaths(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range namedRe.FindAllStringSubmatch(text, -1) {
		p := strings.TrimPrefix(m[1], "./")
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
