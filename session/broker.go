package session

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/redact"
)

// The context broker decides what a model receives: a typed Bundle and
// nothing else. It is built from the snapshot, the files the human named
// in this session (workflows and the project file only, bounded), the
// checker's diagnostics on them, and the recent dialogue. Secrets are
// redacted from every part (redact.go: a maintained detector and nika's
// structural rule), and each redaction's kind and line is recorded. The
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
	// Redacted lists each secret removed: where, its line, its kind;
	// never its value (not sent).
	Redacted []redact.Redaction `json:"-"`
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

// Identity is the first part of every bundle: who the model is, and what
// it can and cannot do.
const Identity = `You are the assistant inside nika, a git-native tool for projects written in the Nika workflow language. ` +
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
