package mcp

// The tools of nika mcp: typed inputs and outputs (shapes.go; the SDK
// infers their JSON schemas from those structs), each result with
// structured content and a text rendering (render.go) for hosts that show
// only text. Every tool opens the project afresh and calls flow, as the
// CLI's verbs do.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// register adds every tool to the server.
func (s *server) register(srv *sdk.Server) {
	no, yes := false, true
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	add := func(name string) { s.tools[name] = true }

	add("check")
	sdk.AddTool(srv, &sdk.Tool{Name: "check", Title: "Check an edit without staging it",
		Description: "Parse and resolve an edit against HEAD, and run the checker on the exact bytes it would write, with the proposal's would-be tree beside them. Stages nothing. Returns the refusals and findings that propose would give.",
		InputSchema: formatSchema[checkIn](), Annotations: ro}, s.check)

	add("propose")
	sdk.AddTool(srv, &sdk.Tool{Name: "propose", Title: "Propose an edit for the human to apply",
		Description: "Stage an edit as a proposal: a commit that no branch points at. Returns its id, changes, the checker's findings and effect rows, and the exact line the human runs to apply it (nika apply <id>). Then stop and give the human that line: only they can apply it. Changes no file of the project.",
		InputSchema: formatSchema[proposeIn](),
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no}}, s.propose)

	add("show")
	sdk.AddTool(srv, &sdk.Tool{Name: "show", Title: "Show a proposal's preview",
		Description: "The exact preview of a proposal, the same text the human sees with nika show.", Annotations: ro}, s.show)

	add("list")
	sdk.AddTool(srv, &sdk.Tool{Name: "list", Title: "List proposals",
		Description: "The pending proposals (with all: every proposal) and their state; a pending one says whether the human can apply it now, or why not.", Annotations: ro}, s.list)

	add("status")
	sdk.AddTool(srv, &sdk.Tool{Name: "status", Title: "The project's status",
		Description: "The branch and HEAD, nika.yaml and the workflows with the checker's verdict on disk, the paths git reports dirty, a merge or rebase in progress, and what the human allows proposals to touch.", Annotations: ro}, s.status)

	add("explain")
	sdk.AddTool(srv, &sdk.Tool{Name: "explain", Title: "Explain a finding code",
		Description: "What a checker finding code means and how to fix it.", Annotations: ro}, s.explain)

	add("feedback")
	sdk.AddTool(srv, &sdk.Tool{Name: "feedback", Title: "Read the human's feedback on a proposal",
		Description: "What the human decided about a proposal (pending, applied whole, applied in part with hunks or files dropped, or discarded) and the comments they left on it, its files and its hunks, for your next edit.", Annotations: ro}, s.feedback)

	add("withdraw")
	sdk.AddTool(srv, &sdk.Tool{Name: "withdraw", Title: "Withdraw a pending proposal",
		Description: "Discard a pending proposal that you no longer want. It touches no file of the project; the human can no longer apply it.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}}, s.withdraw)
}

// formatSchema is the inferred schema of an input with a format field,
// whose values are listed.
func formatSchema[T any]() *jsonschema.Schema {
	sch, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	if f := sch.Properties["format"]; f != nil {
		for _, v := range flow.Formats {
			f.Enum = append(f.Enum, v)
		}
	}
	return sch
}

// proposeInput validates text and format as the CLI's propose does before
// it calls flow: the size limit (the CLI's readInput) and a known format.
func proposeInput(text, format string) (flow.ProposeInput, error) {
	if len(text) > MaxText {
		return flow.ProposeInput{}, refusal.New(refusal.TooLarge, "", "the text is %d bytes, over the limit of %d", len(text), MaxText).
			WithFix(refusal.RaiseInputLimit, fmt.Sprint(MaxText))
	}
	if strings.TrimSpace(text) == "" {
		return flow.ProposeInput{}, refusal.New(refusal.Invalid, "give the edit in text: fenced blocks that name a path, a patch, a diff or search/replace blocks", "the text is empty")
	}
	known := false
	for _, f := range flow.Formats {
		known = known || f == format
	}
	if format != "" && !known {
		return flow.ProposeInput{}, refusal.New(refusal.Invalid, "", "unknown format %s", changeset.Quote(format)).
			WithFix(refusal.ChooseFormat, strings.Join(flow.Formats, ", "))
	}
	return flow.ProposeInput{Input: []byte(text), Format: format, MaxInput: MaxText}, nil
}

func (s *server) propose(_ context.Context, _ *sdk.CallToolRequest, in proposeIn) (*sdk.CallToolResult, ProposeOut, error) {
	var out ProposeOut
	r, err := s.open()
	if err != nil {
		return nil, out, err
	}
	pin, err := proposeInput(in.Text, in.Format)
	if err != nil {
		return nil, out, err
	}
	pin.Goal, pin.Allow = in.Goal, s.allow
	p, err := flow.Propose(r, pin)
	if err != nil {
		return nil, out, err
	}
	if p.Empty() {
		out = ProposeOut{Type: "nothing", Format: p.Format, Notes: nonNil(p.Notes)}
		out.Changes, out.Audits, out.Repairs, out.Unchanged = []Change{}, []Audit{}, []Repair{}, pathStrings(p.Unchanged)
		out.Instruction = "Nothing was proposed: the text names no file, or every named file already holds these bytes. There is nothing for the human to apply."
		return textResult(out.Instruction), out, nil
	}
	var b bytes.Buffer
	if err := preview.JSON(&b, flow.PreviewInput(p)); err != nil {
		return nil, out, err
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		return nil, out, err
	}
	out.Unchanged = pathStrings(p.Unchanged)
	out.Format, out.Notes, out.Again = p.Format, nonNil(p.Notes), p.Again
	out.Apply = "nika apply " + doorwords.Short(p.ID())
	out.Instruction = "Stop here. Give the human this line to run in their own terminal: " + out.Apply +
		". It shows them the preview and applies the proposal only if they type yes. You cannot apply it, and must not try."
	return textResult(renderProposed(&out)), out, nil
}

func (s *server) check(_ context.Context, _ *sdk.CallToolRequest, in checkIn) (*sdk.CallToolResult, CheckOut, error) {
	var out CheckOut
	r, err := s.open()
	if err != nil {
		return nil, out, err
	}
	pin, err := proposeInput(in.Text, in.Format)
	if err != nil {
		return nil, out, err
	}
	pin.Allow = s.allow
	c, err := flow.Check(r, pin)
	if err != nil {
		return nil, out, err
	}
	out = CheckOut{Type: "check", Clean: c.Clean(), Format: c.Format, Notes: nonNil(c.Notes)}
	if c.Empty() {
		out.Changes, out.Audits, out.Repairs, out.Unchanged = []Change{}, []Audit{}, []Repair{}, pathStrings(c.Unchanged)
		out.Instruction = "Nothing would be proposed: the text names no file, or every named file already holds these bytes."
		return textResult(out.Instruction), out, nil
	}
	// The shapes are the preview's: render the unstaged proposal as
	// preview.JSON does, and keep what check can say (no id, commit or
	// tree: nothing was staged).
	pr := &changeset.Proposal{Set: changeset.Set{Base: c.Base, Branch: c.Branch, Goal: c.Goal, Changes: c.Changes}}
	pr.ID = preview.ID(pr)
	var b bytes.Buffer
	if err := preview.JSON(&b, preview.Input{Proposal: pr, Audits: c.Audits, Repairs: c.Repairs, Unchanged: c.Unchanged}); err != nil {
		return nil, out, err
	}
	if err := json.Unmarshal(b.Bytes(), &out.Proposal); err != nil {
		return nil, out, err
	}
	if out.Clean {
		out.Instruction = "propose would stage this with no error finding: call propose with the same text and a goal."
	} else {
		out.Instruction = "Fix the error findings (explain gives each code's meaning), then call check again."
	}
	return textResult(renderChecked(&out)), out, nil
}

func (s *server) show(_ context.Context, _ *sdk.CallToolRequest, in idIn) (*sdk.CallToolResult, ShowOut, error) {
	var out ShowOut
	r, err := s.open()
	if err != nil {
		return nil, out, err
	}
	p, err := flow.Load(r, in.ID)
	if err != nil {
		return nil, out, err
	}
	var b bytes.Buffer
	if err := preview.Human(&b, flow.PreviewInput(p), preview.Options{Color: false}); err != nil {
		return nil, out, err
	}
	out = ShowOut{Type: "preview", ID: p.ID(), State: string(p.State()), Branch: p.Branch(), Preview: b.String()}
	return textResult(out.Preview), out, nil
}

func (s *server) list(_ context.Context, _ *sdk.CallToolRequest, in listIn) (*sdk.CallToolResult, ListOut, error) {
	out := ListOut{Type: "list", Proposals: []ListItem{}}
	r, err := s.open()
	if err != nil {
		return nil, out, err
	}
	ls, err := flow.List(r, in.All)
	if err != nil {
		return nil, out, err
	}
	var text strings.Builder
	for _, l := range ls {
		it := ListItem{ID: l.ID, Commit: l.Commit, Branch: flow.BranchName(l.Branch), Goal: l.Goal, State: string(l.State)}
		if l.Base != "" {
			base := l.Base
			it.Base = &base
		}
		if l.State == flow.Pending || l.State == flow.Stale || l.State == flow.Pruned {
			// The check the apply makes before it asks.
			p, err := flow.Load(r, l.ID)
			if err == nil {
				err = flow.Ready(r, p)
			}
			if err == nil {
				it.Ready, it.Apply = true, "nika apply "+doorwords.Short(l.ID)
			} else {
				e := asRefusal(err)
				it.Why = &Refusal{Type: "refusal", Class: e.Class, Text: e.Text, Hint: doorwords.MCPHint(e), Fix: e.Fix, Exit: refusal.Code(e.Class)}
			}
		}
		out.Proposals = append(out.Proposals, it)
		fmt.Fprintf(&text, "%s  %-9s %-12s %s", doorwords.Short(l.ID), l.State, escape(it.Branch), escape(doorwords.FirstLine(l.Goal)))
		switch {
		case it.Ready:
			fmt.Fprintf(&text, "  (the human applies it with: %s)", it.Apply)
		case it.Why != nil:
			fmt.Fprintf(&text, "  (not ready: %s)", escape(it.Why.Text))
		}
		text.WriteString("\n")
	}
	switch {
	case len(ls) > 0:
	case in.All:
		text.WriteString("no proposals\n")
	default:
		text.WriteString("no pending proposals\n")
	}
	return textResult(text.String()), out, nil
}

func (s *server) status(_ context.Context, _ *sdk.CallToolRequest, _ noIn) (*sdk.CallToolResult, StatusOut, error) {
	var out StatusOut
	r, err := s.open()
	if err != nil {
		return nil, out, err
	}
	st, err := flow.Status(r)
	if err != nil {
		return nil, out, err
	}
	ls, err := flow.List(r, false)
	if err != nil {
		return nil, out, err
	}
	out = StatusOut{Type: "status", Branch: flow.BranchName(st.Branch), Workflows: []FileOut{}, WorkflowsTotal: st.Total,
		Dirty: []Dirty{}, DirtyMore: st.DirtyMore, DirtyProblem: st.DirtyProblem, InProgress: st.InProgress, Pending: len(ls),
		Allow: append(append([]string{}, s.allow...), st.Allow...)}
	if st.Head != "" {
		h := st.Head
		out.Head = &h
	}
	if st.Project != nil {
		f := fileOut(*st.Project)
		out.Project = &f
	}
	for _, w := range st.Workflows {
		out.Workflows = append(out.Workflows, fileOut(w))
	}
	for _, dp := range st.Dirty {
		out.Dirty = append(out.Dirty, Dirty{Path: dp.Path, Status: dp.Status})
	}
	if st.Verdict != "" {
		v := st.Verdict
		out.Verdict = &v
	}
	return textResult(renderStatus(&out)), out, nil
}

func fileOut(v flow.FileVerdict) FileOut {
	return FileOut{Path: v.Path, Clean: v.Clean, Errors: v.Errors, Warnings: v.Warnings, Codes: nonNil(v.Codes), Problem: v.Problem}
}

func (s *server) explain(_ context.Context, _ *sdk.CallToolRequest, in explainIn) (*sdk.CallToolResult, ExplainOut, error) {
	code := strings.ToUpper(strings.TrimSpace(in.Code))
	text, ok := checker.Explain(code)
	if !ok {
		return nil, ExplainOut{}, refusal.New(refusal.NotFound, "codes look like NIKA-PARSE-002; check and propose report them", "no finding has the code %s", changeset.Quote(code))
	}
	out := ExplainOut{Type: "explain", Code: code, Text: text}
	return textResult(code + "\n\n" + strings.TrimRight(text, "\n") + "\n"), out, nil
}

func (s *server) feedback(_ context.Context, _ *sdk.CallToolRequest, in idIn) (*sdk.CallToolResult, FeedbackOut, error) {
	var out FeedbackOut
	r, err := s.open()
	if err != nil {
		return nil, out, err
	}
	p, err := flow.Load(r, in.ID)
	if err != nil {
		return nil, out, err
	}
	f := flow.FeedbackOf(p)
	out = FeedbackOut{Type: "feedback", Feedback: *f}
	return textResult(flow.FeedbackText(f)), out, nil
}

func (s *server) withdraw(_ context.Context, _ *sdk.CallToolRequest, in idIn) (*sdk.CallToolResult, WithdrawOut, error) {
	var out WithdrawOut
	r, err := s.open()
	if err != nil {
		return nil, out, err
	}
	p, err := flow.Load(r, in.ID)
	if err != nil {
		return nil, out, err
	}
	if err := flow.Discard(r, p); err != nil {
		return nil, out, err
	}
	out = WithdrawOut{Type: "withdrawn", ID: p.ID(), State: string(flow.Discarded)}
	return textResult(fmt.Sprintf("withdrew proposal %s: it is discarded, and the human can no longer apply it\n", doorwords.Short(p.ID()))), out, nil
}

// textResult is a result whose text rendering is text; the SDK adds the
// structured content from the tool's output.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func pathStrings(ps []changeset.Path) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, string(p))
	}
	return out
}

// asRefusal is err as the refusal a tool error carries.
func asRefusal(err error) *refusal.Error {
	var e *refusal.Error
	if errors.As(err, &e) {
		return e
	}
	return &refusal.Error{Class: refusal.Invalid, Text: err.Error(), Hint: "run nika help"}
}
