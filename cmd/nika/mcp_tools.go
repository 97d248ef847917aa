package main

// The tools of nika mcp: typed inputs and outputs (the SDK infers their
// JSON schemas from these structs), each result with structured content and
// a text rendering for hosts that show only text. Every tool opens the
// project afresh and calls flow, as the CLI's verbs do.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// The tools' inputs. No input names what a proposal may touch: that is
// the human's (nika.allow, and nika mcp --allow in the host's
// configuration). Unknown fields are refused by the schema.

type mcpProposeIn struct {
	Text   string `json:"text" jsonschema:"the edit: a reply with fenced blocks that name a path, an apply_patch payload, a unified diff, or search/replace blocks; at most 16 MiB"`
	Format string `json:"format,omitempty" jsonschema:"the text's format: auto (the default: detect it), reply, patch, diff or search-replace"`
	Goal   string `json:"goal,omitempty" jsonschema:"what the change is for, in a line (or a few): it becomes the commit message"`
}

type mcpCheckIn struct {
	Text   string `json:"text" jsonschema:"the edit, as for propose"`
	Format string `json:"format,omitempty" jsonschema:"the text's format, as for propose"`
}

type mcpIDIn struct {
	ID string `json:"id" jsonschema:"the proposal's id, or a unique prefix of at least 8 hex characters"`
}

type mcpListIn struct {
	All bool `json:"all,omitempty" jsonschema:"also list the applied and discarded proposals"`
}

type mcpNoIn struct{}

type mcpExplainIn struct {
	Code string `json:"code" jsonschema:"a finding code, such as NIKA-PARSE-002"`
}

// The tools' outputs. The proposal's fields are those of docs/json.md's
// proposal object, decoded from preview.JSON, so that both doors give one
// shape.

type mcpSide struct {
	Blob    string `json:"blob" jsonschema:"the git blob id of these bytes"`
	Witness string `json:"witness" jsonschema:"the blake3 of these bytes"`
	Mode    string `json:"mode" jsonschema:"the git file mode"`
}

type mcpChange struct {
	Kind   string   `json:"kind" jsonschema:"create, update, delete or move"`
	Path   string   `json:"path"`
	From   string   `json:"from,omitempty" jsonschema:"a move's source"`
	Class  string   `json:"class" jsonschema:"workflow, project or supporting"`
	Before *mcpSide `json:"before" jsonschema:"what the path holds now; null for a create"`
	After  *mcpSide `json:"after" jsonschema:"what it will hold; null for a delete"`
}

type mcpAudit struct {
	Path     string            `json:"path"`
	Kind     string            `json:"kind" jsonschema:"workflow or project"`
	Clean    bool              `json:"clean" jsonschema:"no finding of error severity"`
	Findings []checker.Finding `json:"findings"`
	Effects  *checker.Effects  `json:"effects" jsonschema:"the effect rows: what the workflow may read, write, run and reach; null for a project file"`
}

type mcpRepair struct {
	Path        string `json:"path"`
	Rule        string `json:"rule"`
	Line        int    `json:"line"`
	Description string `json:"description"`
}

// mcpProposal is the part of docs/json.md's proposal that propose and
// check share.
type mcpProposal struct {
	Base      *string     `json:"base" jsonschema:"the base commit (HEAD); null on an unborn branch"`
	Branch    *string     `json:"branch" jsonschema:"the full ref the proposal applies to; null for a detached HEAD"`
	Goal      string      `json:"goal"`
	Changes   []mcpChange `json:"changes" jsonschema:"sorted by path"`
	Unchanged []string    `json:"unchanged" jsonschema:"named paths that already hold the proposed bytes"`
	Audits    []mcpAudit  `json:"audits" jsonschema:"the checker on the exact bytes of every workflow and project file written, with the proposal's tree beside them"`
	Repairs   []mcpRepair `json:"repairs" jsonschema:"the fix ladder's mechanical repairs, already made in the staged bytes"`
}

type mcpProposeOut struct {
	Type   string `json:"type" jsonschema:"proposal, or nothing when no file would change"`
	ID     string `json:"id" jsonschema:"the proposal id (blake3 of its manifest); empty for nothing"`
	Commit string `json:"commit" jsonschema:"the proposal commit, which no branch points at"`
	Tree   string `json:"tree"`
	mcpProposal
	Format string   `json:"format" jsonschema:"the format that was read"`
	Notes  []string `json:"notes" jsonschema:"the fix ladder's notes: what it would not guess"`
	Again  bool     `json:"again" jsonschema:"the same text was already staged as this pending proposal"`
	// Apply is the line the human runs; "" for nothing.
	Apply       string `json:"apply" jsonschema:"the exact command the human runs in their own terminal to review and apply it"`
	Instruction string `json:"instruction" jsonschema:"what to do next"`
}

type mcpCheckOut struct {
	Type  string `json:"type" jsonschema:"check"`
	Clean bool   `json:"clean" jsonschema:"propose would stage it with no error finding"`
	mcpProposal
	Format      string   `json:"format"`
	Notes       []string `json:"notes"`
	Instruction string   `json:"instruction"`
}

type mcpShowOut struct {
	Type    string `json:"type" jsonschema:"preview"`
	ID      string `json:"id"`
	State   string `json:"state" jsonschema:"pending, applied or discarded"`
	Branch  string `json:"branch"`
	Preview string `json:"preview" jsonschema:"the exact preview text, the same bytes as nika show without colour"`
}

type mcpListItem struct {
	ID     string      `json:"id"`
	Commit string      `json:"commit"`
	Base   *string     `json:"base"`
	Branch string      `json:"branch"`
	Goal   string      `json:"goal"`
	State  string      `json:"state" jsonschema:"pending, stale (HEAD moved), pruned (git gc removed it), applied or discarded"`
	Ready  bool        `json:"ready" jsonschema:"the check the apply makes before asking passes: the human can apply it now"`
	Apply  string      `json:"apply,omitempty" jsonschema:"the line the human runs, when ready"`
	Why    *mcpRefusal `json:"why,omitempty" jsonschema:"why a pending proposal is not ready: the refusal the apply would give"`
}

type mcpListOut struct {
	Type      string        `json:"type" jsonschema:"list"`
	Proposals []mcpListItem `json:"proposals" jsonschema:"newest first"`
}

type mcpFileOut struct {
	Path     string   `json:"path"`
	Clean    bool     `json:"clean"`
	Errors   int      `json:"errors"`
	Warnings int      `json:"warnings"`
	Codes    []string `json:"codes"`
	Problem  string   `json:"problem,omitempty" jsonschema:"why the file could not be checked"`
}

type mcpDirty struct {
	Path   string `json:"path"`
	Status string `json:"status" jsonschema:"git status --porcelain's XY: index, then working tree; ?? untracked"`
}

type mcpStatusOut struct {
	Type           string       `json:"type" jsonschema:"status"`
	Branch         string       `json:"branch" jsonschema:"the branch's short name, or HEAD (detached)"`
	Head           *string      `json:"head" jsonschema:"the HEAD commit; null on an unborn branch"`
	Project        *mcpFileOut  `json:"project" jsonschema:"nika.yaml on disk with the checker's verdict; null when HEAD has none"`
	Workflows      []mcpFileOut `json:"workflows" jsonschema:"HEAD's workflows on disk with the checker's verdict, in path order"`
	WorkflowsTotal int          `json:"workflows_total"`
	Dirty          []mcpDirty   `json:"dirty" jsonschema:"paths git status reports: propose refuses to change them until they are committed"`
	DirtyMore      bool         `json:"dirty_truncated"`
	DirtyProblem   string       `json:"dirty_problem,omitempty"`
	InProgress     string       `json:"in_progress,omitempty" jsonschema:"git's merge, rebase... in progress, which refuses every proposal until it ends"`
	Allow          []string     `json:"allow" jsonschema:"what the human allows proposals to touch beyond workflows and nika.yaml"`
	Verdict        *string      `json:"verdict" jsonschema:"the post-apply verdict recorded for HEAD, when HEAD is an applied proposal"`
	Pending        int          `json:"pending" jsonschema:"pending proposals (list shows them)"`
}

type mcpExplainOut struct {
	Type string `json:"type" jsonschema:"explain"`
	Code string `json:"code"`
	Text string `json:"text"`
}

type mcpFeedbackOut struct {
	Type     string            `json:"type" jsonschema:"feedback"`
	Feedback flow.FeedbackInfo `json:"feedback" jsonschema:"the human's decision on the proposal and their comments on it, its files and its hunks, redacted of secrets"`
}

type mcpWithdrawOut struct {
	Type  string `json:"type" jsonschema:"withdrawn"`
	ID    string `json:"id"`
	State string `json:"state" jsonschema:"discarded"`
}

// register adds every tool to the server.
func (s *mcpServer) register(srv *mcp.Server) {
	no, yes := false, true
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	add := func(name string) { s.tools[name] = true }

	add("check")
	mcp.AddTool(srv, &mcp.Tool{Name: "check", Title: "Check an edit without staging it",
		Description: "Parse and resolve an edit against HEAD, and run the checker on the exact bytes it would write, with the proposal's would-be tree beside them. Stages nothing. Returns the refusals and findings that propose would give.",
		InputSchema: formatSchema[mcpCheckIn](), Annotations: ro}, s.check)

	add("propose")
	mcp.AddTool(srv, &mcp.Tool{Name: "propose", Title: "Propose an edit for the human to apply",
		Description: "Stage an edit as a proposal: a commit that no branch points at. Returns its id, changes, the checker's findings and effect rows, and the exact line the human runs to apply it (nika apply <id>). Then stop and give the human that line: only they can apply it. Changes no file of the project.",
		InputSchema: formatSchema[mcpProposeIn](),
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no}}, s.propose)

	add("show")
	mcp.AddTool(srv, &mcp.Tool{Name: "show", Title: "Show a proposal's preview",
		Description: "The exact preview of a proposal, the same text the human sees with nika show.", Annotations: ro}, s.show)

	add("list")
	mcp.AddTool(srv, &mcp.Tool{Name: "list", Title: "List proposals",
		Description: "The pending proposals (with all: every proposal) and their state; a pending one says whether the human can apply it now, or why not.", Annotations: ro}, s.list)

	add("status")
	mcp.AddTool(srv, &mcp.Tool{Name: "status", Title: "The project's status",
		Description: "The branch and HEAD, nika.yaml and the workflows with the checker's verdict on disk, the paths git reports dirty, a merge or rebase in progress, and what the human allows proposals to touch.", Annotations: ro}, s.status)

	add("explain")
	mcp.AddTool(srv, &mcp.Tool{Name: "explain", Title: "Explain a finding code",
		Description: "What a checker finding code means and how to fix it.", Annotations: ro}, s.explain)

	add("feedback")
	mcp.AddTool(srv, &mcp.Tool{Name: "feedback", Title: "Read the human's feedback on a proposal",
		Description: "What the human decided about a proposal (pending, applied whole, applied in part with hunks or files dropped, or discarded) and the comments they left on it, its files and its hunks, for your next edit.", Annotations: ro}, s.feedback)

	add("withdraw")
	mcp.AddTool(srv, &mcp.Tool{Name: "withdraw", Title: "Withdraw a pending proposal",
		Description: "Discard a pending proposal that you no longer want. It touches no file of the project; the human can no longer apply it.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}}, s.withdraw)
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
	if len(text) > mcpMaxText {
		return flow.ProposeInput{}, refusal.New(refusal.TooLarge, "", "the text is %d bytes, over the limit of %d", len(text), mcpMaxText).
			WithFix(refusal.RaiseInputLimit, fmt.Sprint(mcpMaxText))
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
	return flow.ProposeInput{Input: []byte(text), Format: format, MaxInput: mcpMaxText}, nil
}

func (s *mcpServer) propose(_ context.Context, _ *mcp.CallToolRequest, in mcpProposeIn) (*mcp.CallToolResult, mcpProposeOut, error) {
	var out mcpProposeOut
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
		out = mcpProposeOut{Type: "nothing", Format: p.Format, Notes: nonNil(p.Notes)}
		out.Changes, out.Audits, out.Repairs, out.Unchanged = []mcpChange{}, []mcpAudit{}, []mcpRepair{}, pathStrings(p.Unchanged)
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
	out.Apply = "nika apply " + short(p.ID())
	out.Instruction = "Stop here. Give the human this line to run in their own terminal: " + out.Apply +
		". It shows them the preview and applies the proposal only if they type yes. You cannot apply it, and must not try."
	return textResult(renderProposed(&out)), out, nil
}

func (s *mcpServer) check(_ context.Context, _ *mcp.CallToolRequest, in mcpCheckIn) (*mcp.CallToolResult, mcpCheckOut, error) {
	var out mcpCheckOut
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
	out = mcpCheckOut{Type: "check", Clean: c.Clean(), Format: c.Format, Notes: nonNil(c.Notes)}
	if c.Empty() {
		out.Changes, out.Audits, out.Repairs, out.Unchanged = []mcpChange{}, []mcpAudit{}, []mcpRepair{}, pathStrings(c.Unchanged)
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
	if err := json.Unmarshal(b.Bytes(), &out.mcpProposal); err != nil {
		return nil, out, err
	}
	if out.Clean {
		out.Instruction = "propose would stage this with no error finding: call propose with the same text and a goal."
	} else {
		out.Instruction = "Fix the error findings (explain gives each code's meaning), then call check again."
	}
	return textResult(renderChecked(&out)), out, nil
}

func (s *mcpServer) show(_ context.Context, _ *mcp.CallToolRequest, in mcpIDIn) (*mcp.CallToolResult, mcpShowOut, error) {
	var out mcpShowOut
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
	out = mcpShowOut{Type: "preview", ID: p.ID(), State: string(p.State()), Branch: p.Branch(), Preview: b.String()}
	return textResult(out.Preview), out, nil
}

func (s *mcpServer) list(_ context.Context, _ *mcp.CallToolRequest, in mcpListIn) (*mcp.CallToolResult, mcpListOut, error) {
	out := mcpListOut{Type: "list", Proposals: []mcpListItem{}}
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
		it := mcpListItem{ID: l.ID, Commit: l.Commit, Branch: flow.BranchName(l.Branch), Goal: l.Goal, State: string(l.State)}
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
				it.Ready, it.Apply = true, "nika apply "+short(l.ID)
			} else {
				e := asRefusal(err)
				it.Why = &mcpRefusal{Type: "refusal", Class: e.Class, Text: e.Text, Hint: doorwords.MCPHint(e), Fix: e.Fix, Exit: refusal.Code(e.Class)}
			}
		}
		out.Proposals = append(out.Proposals, it)
		fmt.Fprintf(&text, "%s  %-9s %-12s %s", short(l.ID), l.State, escape(it.Branch), escape(firstLine(l.Goal)))
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

func (s *mcpServer) status(_ context.Context, _ *mcp.CallToolRequest, _ mcpNoIn) (*mcp.CallToolResult, mcpStatusOut, error) {
	var out mcpStatusOut
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
	out = mcpStatusOut{Type: "status", Branch: flow.BranchName(st.Branch), Workflows: []mcpFileOut{}, WorkflowsTotal: st.Total,
		Dirty: []mcpDirty{}, DirtyMore: st.DirtyMore, DirtyProblem: st.DirtyProblem, InProgress: st.InProgress, Pending: len(ls),
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
		out.Dirty = append(out.Dirty, mcpDirty{Path: dp.Path, Status: dp.Status})
	}
	if st.Verdict != "" {
		v := st.Verdict
		out.Verdict = &v
	}
	return textResult(renderStatus(&out)), out, nil
}

func fileOut(v flow.FileVerdict) mcpFileOut {
	return mcpFileOut{Path: v.Path, Clean: v.Clean, Errors: v.Errors, Warnings: v.Warnings, Codes: nonNil(v.Codes), Problem: v.Problem}
}

func (s *mcpServer) explain(_ context.Context, _ *mcp.CallToolRequest, in mcpExplainIn) (*mcp.CallToolResult, mcpExplainOut, error) {
	code := strings.ToUpper(strings.TrimSpace(in.Code))
	text, ok := checker.Explain(code)
	if !ok {
		return nil, mcpExplainOut{}, refusal.New(refusal.NotFound, "codes look like NIKA-PARSE-002; check and propose report them", "no finding has the code %s", changeset.Quote(code))
	}
	out := mcpExplainOut{Type: "explain", Code: code, Text: text}
	return textResult(code + "\n\n" + strings.TrimRight(text, "\n") + "\n"), out, nil
}

func (s *mcpServer) feedback(_ context.Context, _ *mcp.CallToolRequest, in mcpIDIn) (*mcp.CallToolResult, mcpFeedbackOut, error) {
	var out mcpFeedbackOut
	r, err := s.open()
	if err != nil {
		return nil, out, err
	}
	p, err := flow.Load(r, in.ID)
	if err != nil {
		return nil, out, err
	}
	f := flow.FeedbackOf(p)
	out = mcpFeedbackOut{Type: "feedback", Feedback: *f}
	return textResult(flow.FeedbackText(f)), out, nil
}

func (s *mcpServer) withdraw(_ context.Context, _ *mcp.CallToolRequest, in mcpIDIn) (*mcp.CallToolResult, mcpWithdrawOut, error) {
	var out mcpWithdrawOut
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
	out = mcpWithdrawOut{Type: "withdrawn", ID: p.ID(), State: string(flow.Discarded)}
	return textResult(fmt.Sprintf("withdrew proposal %s: it is discarded, and the human can no longer apply it\n", short(p.ID()))), out, nil
}

// textResult is a result whose text rendering is text; the SDK adds the
// structured content from the tool's output.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// renderProposed is propose's text rendering. Strings from outside nika
// (paths, goals, messages) pass the one escaper, as hosts may draw the text
// on a terminal.
func renderProposed(o *mcpProposeOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "proposal %s staged as commit %s", short(o.ID), short(o.Commit))
	if o.Base != nil {
		fmt.Fprintf(&b, " over %s", short(*o.Base))
	}
	fmt.Fprintf(&b, " (format: %s)\n", escape(o.Format))
	if o.Again {
		b.WriteString("this text was already staged as this pending proposal: nothing new was written\n")
	}
	fmt.Fprintf(&b, "goal: %s\n", escape(firstLine(o.Goal)))
	renderBody(&b, &o.mcpProposal, o.Notes)
	fmt.Fprintf(&b, "\n%s\n\n    %s\n", "Stop here. Give the human this line to run in their own terminal; it shows them the preview and applies only if they type yes:", o.Apply)
	return b.String()
}

func renderChecked(o *mcpCheckOut) string {
	var b strings.Builder
	verdict := "clean: propose would stage it with no error finding"
	if !o.Clean {
		verdict = "not clean: fix the error findings below, then check again"
	}
	fmt.Fprintf(&b, "check (format: %s): %s\nnothing was staged\n", escape(o.Format), verdict)
	renderBody(&b, &o.mcpProposal, o.Notes)
	return b.String()
}

func renderBody(b *strings.Builder, p *mcpProposal, notes []string) {
	fmt.Fprintf(b, "changes (%d):\n", len(p.Changes))
	for _, c := range p.Changes {
		if c.From != "" {
			fmt.Fprintf(b, "  %s %s -> %s (%s)\n", c.Kind, escape(c.From), escape(c.Path), c.Class)
		} else {
			fmt.Fprintf(b, "  %s %s (%s)\n", c.Kind, escape(c.Path), c.Class)
		}
	}
	for _, u := range p.Unchanged {
		fmt.Fprintf(b, "  unchanged %s\n", escape(u))
	}
	for _, a := range p.Audits {
		state := "clean"
		if !a.Clean {
			state = "NOT CLEAN"
		}
		fmt.Fprintf(b, "checker: %s: %s\n", escape(a.Path), state)
		for _, f := range a.Findings {
			fmt.Fprintf(b, "  %d:%d %s %s: %s\n", f.Line, f.Col, f.Severity, f.Code, escape(f.Message))
			if f.Fix != "" {
				fmt.Fprintf(b, "    fix: %s\n", escape(f.Fix))
			}
		}
		if e := a.Effects; e != nil {
			for _, row := range [][2]any{{"reads", e.Reads}, {"writes", e.Writes}, {"network", e.Network}, {"programs", e.Programs},
				{"tools", e.Tools}, {"pauses", e.Pauses}, {"env", e.Env}, {"models", e.Models}, {"secrets", e.Secrets}} {
				if vs := row[1].([]string); len(vs) > 0 {
					fmt.Fprintf(b, "  effect %s: %s\n", row[0], escape(strings.Join(vs, ", ")))
				}
			}
			if e.Spend != "" {
				fmt.Fprintf(b, "  effect spend: %s\n", escape(e.Spend))
			}
		}
	}
	for _, r := range p.Repairs {
		fmt.Fprintf(b, "repair: %s:%d %s\n", escape(r.Path), r.Line, escape(r.Description))
	}
	for _, n := range notes {
		fmt.Fprintf(b, "fix ladder: %s\n", escape(n))
	}
}

func renderStatus(o *mcpStatusOut) string {
	var b strings.Builder
	head := "unborn"
	if o.Head != nil {
		head = short(*o.Head)
	}
	fmt.Fprintf(&b, "branch %s at %s\n", escape(o.Branch), head)
	if o.InProgress != "" {
		fmt.Fprintf(&b, "in progress: %s (every proposal is refused until it ends)\n", escape(o.InProgress))
	}
	file := func(f mcpFileOut) {
		switch {
		case f.Problem != "":
			fmt.Fprintf(&b, "  %s: not checked: %s\n", escape(f.Path), escape(f.Problem))
		case f.Clean:
			fmt.Fprintf(&b, "  %s: clean (%d warning(s))\n", escape(f.Path), f.Warnings)
		default:
			fmt.Fprintf(&b, "  %s: %d error(s): %s\n", escape(f.Path), f.Errors, strings.Join(f.Codes, ", "))
		}
	}
	if o.Project != nil {
		b.WriteString("project file:\n")
		file(*o.Project)
	}
	fmt.Fprintf(&b, "workflows (%d):\n", o.WorkflowsTotal)
	for _, w := range o.Workflows {
		file(w)
	}
	if len(o.Dirty) == 0 && o.DirtyProblem == "" {
		b.WriteString("dirty: none\n")
	} else {
		b.WriteString("dirty (propose refuses to change these until they are committed):\n")
		for _, dp := range o.Dirty {
			fmt.Fprintf(&b, "  %s %s\n", dp.Status, escape(dp.Path))
		}
		if o.DirtyProblem != "" {
			fmt.Fprintf(&b, "  (not listed: %s)\n", escape(o.DirtyProblem))
		}
	}
	if len(o.Allow) > 0 {
		fmt.Fprintf(&b, "allowed beyond workflows and nika.yaml: %s\n", escape(strings.Join(o.Allow, ", ")))
	} else {
		b.WriteString("allowed beyond workflows and nika.yaml: nothing (the human's choice)\n")
	}
	fmt.Fprintf(&b, "pending proposals: %d\n", o.Pending)
	if o.Verdict != nil {
		fmt.Fprintf(&b, "post-apply verdict on HEAD:\n%s", preview.EscapeText(*o.Verdict))
	}
	return b.String()
}
