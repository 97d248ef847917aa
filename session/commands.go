package session

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nika-dev/nika/checker"
)

// Help is the text of /help.
const Help = `In this session:
  ask a question          the model answers (if an intelligence is chosen); a question discards a pending proposal
  paste a reply or patch  it becomes a proposal, as nika propose would make it
  yes                     when a proposal waits: applies it; anything else discards it
  /workflows              the project's workflows and the checker's verdict on each
  /check NAME             the checker's findings on a workflow or nika.yaml on disk
  /explain CODE           what a finding code means
  /pending                the proposals waiting for consent
  /log                    the last applied proposals
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
	case "workflows":
		s, err := m.eng.Snapshot()
		if err != nil {
			return refuse(ClassOf(err), "%s", err.Error())
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
			return refuse(NotAllowed, "/check takes a workflow: /check flows/daily.nika.yaml")
		}
		text, err := m.eng.Check(arg)
		if err != nil {
			return refuse(ClassOf(err), "%s", err.Error())
		}
		return []Outcome{Answer{Text: text}}
	case "explain":
		if arg == "" {
			return refuse(NotAllowed, "/explain takes a code: /explain NIKA-PARSE-005")
		}
		code := strings.ToUpper(arg)
		text, ok := checker.Explain(code)
		if !ok {
			return refuse(NotAllowed, "%s is not a code the checker emits", code)
		}
		return []Outcome{Answer{Text: code + ": " + text + "\n"}}
	case "pending", "log":
		s, err := m.eng.Snapshot()
		if err != nil {
			return refuse(ClassOf(err), "%s", err.Error())
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
	return refuse(NotAllowed, "/%s is not a command · /help lists them", name)
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
		return refuse(NotAllowed, "/run takes a workflow first: /run flows/daily.nika.yaml NAME=VALUE")
	}
	for i := 1; i < len(f); i++ {
		if f[i] == "--max-cost-usd" && i+1 < len(f) {
			v, err := strconv.ParseFloat(f[i+1], 64)
			if err != nil || v < 0 {
				return refuse(NotAllowed, "--max-cost-usd takes a number of 0 or more, not %q", f[i+1])
			}
			r.MaxCostUSD = v
			i++
			continue
		}
		k, v, ok := strings.Cut(f[i], "=")
		if !ok || k == "" {
			return refuse(NotAllowed, "%q is not NAME=VALUE", f[i])
		}
		r.Vars[k] = v
	}
	m.nextRun = &r
	return []Outcome{Answer{Text: fmt.Sprintf("the next proposal requests a run of %s after a clean apply: %s\n", r.Workflow, SuggestedRun(r))}}
}
