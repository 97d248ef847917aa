package session

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nika-dev/nika/checker"
)

// Help is the text of /help.
const Help = `In this session:
  ask a question          the model answers (if an intelligence is chosen); a question discards a pending proposal
  paste a reply or patch  it becomes a proposal, the same as one proposed from the command line
  yes                     when a proposal waits: applies it; anything else discards it
  /workflows              the project's workflows and the checker's verdict on each
  /check NAME             the checker's findings on a workflow or nika.yaml on disk
  /explain CODE           what a finding code means
  /pending                the proposals waiting for consent
  /log                    the last applied proposals
  /builtins               the nika: builtins a workflow can use as tools
  /providers              the model providers a workflow can name
  /last-run               what the latest run did, read from its trace in .nika/traces
  /allow PATH|GLOB        allow a supporting file (not a workflow) for the proposals that follow
  /allow                  list what this session allows
  /run WORKFLOW [NAME=VALUE]... [--max-cost-usd N]
                          the next proposal requests a run of WORKFLOW after a clean apply (/run alone clears it)
  /intelligence           choose where questions go (an app, an API, a local engine, or none)
  /help                   this text
  /quit                   end the session (nothing pending is applied)
`

// command runs a /command: facts that need no model.
func (m *Machine) command(line string) []Outcome {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "help":
		return []Outcome{Answer{Text: Help}}
	case "intelligence":
		return []Outcome{AskIntelligence{}}
	case "run":
		return m.runCommand(arg)
	case "builtins":
		return m.Builtins()
	case "providers":
		return m.Providers()
	case "last-run":
		return m.LastRun()
	case "allow":
		return m.allowCommand(arg)
	case "workflows":
		s, err := m.eng.Snapshot()
		if err != nil {
			return []Outcome{Refused(err)}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "workflows: %d\n", s.WorkflowsTotal)
		if s.Project != nil {
			fmt.Fprintf(&b, "  %s\n", fileLine(*s.Project))
		}
		for _, w := range s.Workflows {
			fmt.Fprintf(&b, "  %s\n", fileLine(w))
		}
		if s.Truncated {
			fmt.Fprintf(&b, "  … %d more not listed\n", s.WorkflowsTotal-len(s.Workflows))
		}
		return []Outcome{Answer{Text: b.String()}}
	case "check":
		if arg == "" {
			return refuse(Invalid, "/check takes a workflow: /check flows/daily.nika.yaml")
		}
		text, err := m.eng.Check(arg)
		if err != nil {
			return []Outcome{Refused(err)}
		}
		return []Outcome{Answer{Text: text}}
	case "explain":
		if arg == "" {
			return refuse(Invalid, "/explain takes a code: /explain NIKA-PARSE-005")
		}
		code := strings.ToUpper(arg)
		text, ok := checker.Explain(code)
		if !ok {
			return refuse(NotFound, "%s is not a code the checker emits", code)
		}
		return []Outcome{Answer{Text: code + ": " + text + "\n"}}
	case "pending", "log":
		s, err := m.eng.Snapshot()
		if err != nil {
			return []Outcome{Refused(err)}
		}
		list, what := s.Pending, "pending proposals"
		if name == "log" {
			list, what = s.Applied, "last applied proposals"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d\n", what, len(list))
		for _, p := range list {
			fmt.Fprintf(&b, "  %s  %s\n", short(p.ID), firstLine(p.Goal))
		}
		if m.pending != nil && name == "pending" {
			fmt.Fprintf(&b, "waiting in this session: %s\n", short(m.pending.ID))
		}
		return []Outcome{Answer{Text: b.String()}}
	}
	return refuse(Invalid, "/%s is not a command · /help lists them", name)
}

// Allowed lists the supporting files this session allows, in the order
// the human allowed them.
func (m *Machine) Allowed() []string { return append([]string(nil), m.allow...) }

// withAllowed adds the session's allowances to a preview, so that the
// human reads what the proposal was allowed to touch.
func (m *Machine) withAllowed(preview string) string {
	if len(m.allow) == 0 {
		return preview
	}
	if preview != "" && !strings.HasSuffix(preview, "\n") {
		preview += "\n"
	}
	return preview + "allowed in this session (/allow): " + strings.Join(m.allow, ", ") + "\n"
}

// MaxAllow bounds the allowances of a session.
const MaxAllow = 64

// allowCommand allows a supporting file, or lists what is allowed.
func (m *Machine) allowCommand(arg string) []Outcome {
	if arg == "" {
		if len(m.allow) == 0 {
			return []Outcome{Answer{Text: "this session allows no supporting file · /allow PATH or /allow GLOB allows one for the proposals that follow\n"}}
		}
		return []Outcome{Answer{Text: "allowed in this session: " + strings.Join(m.allow, ", ") + "\n"}}
	}
	var added []string
	for _, a := range strings.Fields(arg) {
		// a shell habit: /allow 'docs/*.md' means docs/*.md
		if len(a) >= 2 && (a[0] == '\'' || a[0] == '"') && a[len(a)-1] == a[0] {
			a = a[1 : len(a)-1]
		}
		p := strings.TrimPrefix(a, "./")
		switch {
		case strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || strings.ContainsAny(p, "\x00\r\n") || p == "":
			return refuse(Invalid, "%q is not a path of the project · give a relative path or glob: /allow docs/notes.md, /allow 'docs/*.md'", a)
		case p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/.."):
			return refuse(NotAllowed, "%q leaves the project · give a path inside it", a)
		}
		dup := false
		for _, x := range m.allow {
			dup = dup || x == p
		}
		if !dup {
			if len(m.allow) >= MaxAllow {
				return refuse(TooLarge, "this session allows %d paths already, the most it keeps", MaxAllow)
			}
			m.allow = append(m.allow, p)
			added = append(added, p)
		}
	}
	if len(added) == 0 {
		return []Outcome{Answer{Text: "already allowed: " + strings.Join(m.allow, ", ") + "\n"}}
	}
	return []Outcome{Answer{Text: "allowed for the proposals that follow: " + strings.Join(added, ", ") + " (workflows and nika.yaml need no allowance; .git, hooks and paths outside the project stay refused)\n"}}
}

// runCommand keeps the human's run request for the next proposal.
func (m *Machine) runCommand(arg string) []Outcome {
	f := strings.Fields(arg)
	if len(f) == 0 {
		m.nextRun = nil
		return []Outcome{Answer{Text: "no run is requested for the next proposal\n"}}
	}
	r := RunRequested{Workflow: strings.TrimPrefix(f[0], "./"), Vars: map[string]string{}}
	if !strings.HasSuffix(r.Workflow, ".nika.yaml") {
		return refuse(Invalid, "/run takes a workflow first: /run flows/daily.nika.yaml NAME=VALUE")
	}
	for i := 1; i < len(f); i++ {
		if f[i] == "--max-cost-usd" && i+1 < len(f) {
			v, err := strconv.ParseFloat(f[i+1], 64)
			if err != nil || v < 0 {
				return refuse(Invalid, "/run's --max-cost-usd takes a number of 0 or more, not %q", f[i+1])
			}
			r.MaxCostUSD = v
			i++
			continue
		}
		k, v, ok := strings.Cut(f[i], "=")
		if !ok || k == "" {
			return refuse(Invalid, "%q is not NAME=VALUE", f[i])
		}
		r.Vars[k] = v
	}
	m.nextRun = &r
	return []Outcome{Answer{Text: fmt.Sprintf("the next proposal requests a run of %s after a clean apply%s\n", r.Workflow, runTerms(r))}}
}

// runTerms are a run request's variables and cost ceiling, in words.
func runTerms(r RunRequested) string {
	var terms []string
	keys := make([]string, 0, len(r.Vars))
	for k := range r.Vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		terms = append(terms, k+"="+r.Vars[k])
	}
	if r.MaxCostUSD > 0 {
		terms = append(terms, "a cost ceiling of "+strconv.FormatFloat(r.MaxCostUSD, 'f', -1, 64)+" USD")
	}
	if len(terms) == 0 {
		return ""
	}
	return ", with " + strings.Join(terms, ", ")
}
