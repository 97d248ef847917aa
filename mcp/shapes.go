package mcp

// The tools' inputs and outputs: typed structs from which the SDK infers
// each tool's JSON schemas (the jsonschema tags are the descriptions an
// agent reads).

import (
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/flow"
)

// The tools' inputs. No input names what a proposal may touch: that is
// the human's (nika.allow, and nika mcp --allow in the host's
// configuration). Unknown fields are refused by the schema.

type proposeIn struct {
	Text   string `json:"text" jsonschema:"the edit: a reply with fenced blocks that name a path, an apply_patch payload, a unified diff, or search/replace blocks; at most 16 MiB"`
	Format string `json:"format,omitempty" jsonschema:"the text's format: auto (the default: detect it), reply, patch, diff or search-replace"`
	Goal   string `json:"goal,omitempty" jsonschema:"what the change is for, in a line (or a few): it becomes the commit message"`
}

type checkIn struct {
	Text   string `json:"text" jsonschema:"the edit, as for propose"`
	Format string `json:"format,omitempty" jsonschema:"the text's format, as for propose"`
}

type idIn struct {
	ID string `json:"id" jsonschema:"the proposal's id, or a unique prefix of at least 8 hex characters"`
}

type listIn struct {
	All bool `json:"all,omitempty" jsonschema:"also list the applied and discarded proposals"`
}

type noIn struct{}

type explainIn struct {
	Code string `json:"code" jsonschema:"a finding code, such as NIKA-PARSE-002"`
}

// The tools' outputs. The proposal's fields are those of docs/json.md's
// proposal object, decoded from preview.JSON, so that both doors give one
// shape.

// Side is what a path holds on one side of a change.
type Side struct {
	Blob    string `json:"blob" jsonschema:"the git blob id of these bytes"`
	Witness string `json:"witness" jsonschema:"the blake3 of these bytes"`
	Mode    string `json:"mode" jsonschema:"the git file mode"`
}

// Change is one change of a proposal.
type Change struct {
	Kind   string `json:"kind" jsonschema:"create, update, delete or move"`
	Path   string `json:"path"`
	From   string `json:"from,omitempty" jsonschema:"a move's source"`
	Class  string `json:"class" jsonschema:"workflow, project or supporting"`
	Before *Side  `json:"before" jsonschema:"what the path holds now; null for a create"`
	After  *Side  `json:"after" jsonschema:"what it will hold; null for a delete"`
}

// Audit is the checker on one workflow or project file written.
type Audit struct {
	Path     string            `json:"path"`
	Kind     string            `json:"kind" jsonschema:"workflow or project"`
	Clean    bool              `json:"clean" jsonschema:"no finding of error severity"`
	Findings []checker.Finding `json:"findings"`
	Effects  *checker.Effects  `json:"effects" jsonschema:"the effect rows: what the workflow may read, write, run and reach; null for a project file"`
}

// Repair is one of the fix ladder's mechanical repairs.
type Repair struct {
	Path        string `json:"path"`
	Rule        string `json:"rule"`
	Line        int    `json:"line"`
	Description string `json:"description"`
}

// Proposal is the part of docs/json.md's proposal that propose and
// check share.
type Proposal struct {
	Base      *string  `json:"base" jsonschema:"the base commit (HEAD); null on an unborn branch"`
	Branch    *string  `json:"branch" jsonschema:"the full ref the proposal applies to; null for a detached HEAD"`
	Goal      string   `json:"goal"`
	Changes   []Change `json:"changes" jsonschema:"sorted by path"`
	Unchanged []string `json:"unchanged" jsonschema:"named paths that already hold the proposed bytes"`
	Audits    []Audit  `json:"audits" jsonschema:"the checker on the exact bytes of every workflow and project file written, with the proposal's tree beside them"`
	Repairs   []Repair `json:"repairs" jsonschema:"the fix ladder's mechanical repairs, already made in the staged bytes"`
}

// ProposeOut is propose's structured content.
type ProposeOut struct {
	Type   string `json:"type" jsonschema:"proposal, or nothing when no file would change"`
	ID     string `json:"id" jsonschema:"the proposal id (blake3 of its manifest); empty for nothing"`
	Commit string `json:"commit" jsonschema:"the proposal commit, which no branch points at"`
	Tree   string `json:"tree"`
	Proposal
	Format string   `json:"format" jsonschema:"the format that was read"`
	Notes  []string `json:"notes" jsonschema:"the fix ladder's notes: what it would not guess"`
	Again  bool     `json:"again" jsonschema:"the same text was already staged as this pending proposal"`
	// Apply is the line the human runs; "" for nothing.
	Apply       string `json:"apply" jsonschema:"the exact command the human runs in their own terminal to review and apply it"`
	Instruction string `json:"instruction" jsonschema:"what to do next"`
}

// CheckOut is check's structured content.
type CheckOut struct {
	Type  string `json:"type" jsonschema:"check"`
	Clean bool   `json:"clean" jsonschema:"propose would stage it with no error finding"`
	Proposal
	Format      string   `json:"format"`
	Notes       []string `json:"notes"`
	Instruction string   `json:"instruction"`
}

// ShowOut is show's structured content.
type ShowOut struct {
	Type    string `json:"type" jsonschema:"preview"`
	ID      string `json:"id"`
	State   string `json:"state" jsonschema:"pending, applied or discarded"`
	Branch  string `json:"branch"`
	Preview string `json:"preview" jsonschema:"the exact preview text, the same bytes as nika show without colour"`
}

// ListItem is one proposal that list lists.
type ListItem struct {
	ID     string   `json:"id"`
	Commit string   `json:"commit"`
	Base   *string  `json:"base"`
	Branch string   `json:"branch"`
	Goal   string   `json:"goal"`
	State  string   `json:"state" jsonschema:"pending, stale (HEAD moved), pruned (git gc removed it), applied or discarded"`
	Ready  bool     `json:"ready" jsonschema:"the check the apply makes before asking passes: the human can apply it now"`
	Apply  string   `json:"apply,omitempty" jsonschema:"the line the human runs, when ready"`
	Why    *Refusal `json:"why,omitempty" jsonschema:"why a pending proposal is not ready: the refusal the apply would give"`
}

// ListOut is list's structured content.
type ListOut struct {
	Type      string     `json:"type" jsonschema:"list"`
	Proposals []ListItem `json:"proposals" jsonschema:"newest first"`
}

// FileOut is a file on disk with the checker's verdict, as status lists it.
type FileOut struct {
	Path     string   `json:"path"`
	Clean    bool     `json:"clean"`
	Errors   int      `json:"errors"`
	Warnings int      `json:"warnings"`
	Codes    []string `json:"codes"`
	Problem  string   `json:"problem,omitempty" jsonschema:"why the file could not be checked"`
}

// Dirty is a path git status reports.
type Dirty struct {
	Path   string `json:"path"`
	Status string `json:"status" jsonschema:"git status --porcelain's XY: index, then working tree; ?? untracked"`
}

// StatusOut is status's structured content.
type StatusOut struct {
	Type           string    `json:"type" jsonschema:"status"`
	Branch         string    `json:"branch" jsonschema:"the branch's short name, or HEAD (detached)"`
	Head           *string   `json:"head" jsonschema:"the HEAD commit; null on an unborn branch"`
	Project        *FileOut  `json:"project" jsonschema:"nika.yaml on disk with the checker's verdict; null when HEAD has none"`
	Workflows      []FileOut `json:"workflows" jsonschema:"HEAD's workflows on disk with the checker's verdict, in path order"`
	WorkflowsTotal int       `json:"workflows_total"`
	Dirty          []Dirty   `json:"dirty" jsonschema:"paths git status reports: propose refuses to change them until they are committed"`
	DirtyMore      bool      `json:"dirty_truncated"`
	DirtyProblem   string    `json:"dirty_problem,omitempty"`
	InProgress     string    `json:"in_progress,omitempty" jsonschema:"git's merge, rebase... in progress, which refuses every proposal until it ends"`
	Allow          []string  `json:"allow" jsonschema:"what the human allows proposals to touch beyond workflows and nika.yaml"`
	Verdict        *string   `json:"verdict" jsonschema:"the post-apply verdict recorded for HEAD, when HEAD is an applied proposal"`
	Pending        int       `json:"pending" jsonschema:"pending proposals (list shows them)"`
}

// ExplainOut is explain's structured content.
type ExplainOut struct {
	Type string `json:"type" jsonschema:"explain"`
	Code string `json:"code"`
	Text string `json:"text"`
}

// FeedbackOut is feedback's structured content.
type FeedbackOut struct {
	Type     string            `json:"type" jsonschema:"feedback"`
	Feedback flow.FeedbackInfo `json:"feedback" jsonschema:"the human's decision on the proposal and their comments on it, its files and its hunks, redacted of secrets"`
}

// WithdrawOut is withdraw's structured content.
type WithdrawOut struct {
	Type  string `json:"type" jsonschema:"withdrawn"`
	ID    string `json:"id"`
	State string `json:"state" jsonschema:"discarded"`
}
