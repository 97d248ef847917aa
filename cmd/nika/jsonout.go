package main

import (
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/proof"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
)

// The JSON objects the verbs print under --json, one typed struct each,
// with its type name in the Type field. docs/json.md documents every field;
// TestJSONDocumented derives the fields from these types and keeps the
// document in step. Shapes are stable: fields may be added, never renamed
// or removed.

// jsonShapes maps each documented type name to a value of its struct.
func jsonShapes() map[string]any {
	return map[string]any{
		"proposal":   shownJSON{},
		"nothing":    nothingJSON{},
		"applied":    appliedJSON{},
		"declined":   declinedJSON{},
		"discarded":  discardedJSON{},
		"list":       listJSON{},
		"check":      checkJSON{},
		"explain":    explainJSON{},
		"recover":    recoverJSON{},
		"log":        logJSON{},
		"verify":     verifyJSON{},
		"pushed":     pushedJSON{},
		"fetched":    fetchedJSON{},
		"rebased":    rebasedJSON{},
		"reviewed":   reviewedJSON{},
		"summary":    summaryJSON{},
		"refusal":    refusalJSON{},
		"version":    versionJSON{},
		"help":       helpJSON{},
		"completion": completionJSON{},
	}
}

// rebasedJSON is what nika rebase did: the new proposal (new, commit)
// that brings id forward, or none when id is already on HEAD (current) or
// HEAD already holds every change.
type rebasedJSON struct {
	Type    string   `json:"type"`
	ID      string   `json:"id"`
	New     string   `json:"new,omitempty"`
	Commit  string   `json:"commit,omitempty"`
	Current bool     `json:"current"`
	Carried []string `json:"carried"`
	Merged  []string `json:"merged"`
	Already []string `json:"already"`
}

// reviewedJSON is a review that ended without an apply: discarded, or
// left undecided. A review that builds a part ends as nika apply does
// (applied, or declined).
type reviewedJSON struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	Decision string `json:"decision"`
	Comments int    `json:"comments"`
}

// shownJSON is nika show's proposal: the preview's object and the human's
// feedback on it.
type shownJSON struct {
	preview.ProposalJSON
	// State is what the check before asking finds (flow.StatusOf).
	State    string             `json:"state"`
	Feedback *flow.FeedbackInfo `json:"feedback"`
}

type refusalJSON struct {
	Type  string        `json:"type"`
	Class refusal.Class `json:"class"`
	Text  string        `json:"text"`
	Hint  string        `json:"hint"`
	Fix   refusal.Fix   `json:"fix,omitempty"`
	Exit  int           `json:"exit"`
}

type nothingJSON struct {
	Type      string   `json:"type"`
	Format    string   `json:"format"`
	Unchanged []string `json:"unchanged"`
}

type appliedJSON struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Commit string `json:"commit"`
	// ProposalCommit is the unsigned proposal commit, when the branch
	// moved to its signed twin.
	ProposalCommit string       `json:"proposal_commit,omitempty"`
	Branch         string       `json:"branch"`
	Paths          []string     `json:"paths"`
	Clean          bool         `json:"clean"`
	Verdict        flow.Verdict `json:"verdict"`
	Run            *runJSON     `json:"run,omitempty"`
	NoteError      string       `json:"note_error,omitempty"`
}

type runJSON struct {
	Workflow string `json:"workflow"`
	Status   string `json:"status"`
	Exit     *int   `json:"exit,omitempty"`
	Command  string `json:"command,omitempty"`
	Error    string `json:"error,omitempty"`
}

type declinedJSON struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Discarded bool   `json:"discarded"`
}

type discardedJSON struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type listJSON struct {
	Type      string     `json:"type"`
	Proposals []listItem `json:"proposals"`
}

type listItem struct {
	ID     string  `json:"id"`
	Commit string  `json:"commit"`
	Base   *string `json:"base"`
	Branch string  `json:"branch"`
	Goal   string  `json:"goal"`
	State  string  `json:"state"`
}

type checkJSON struct {
	Type        string           `json:"type"`
	Clean       bool             `json:"clean"`
	Reports     []checker.Report `json:"reports"`
	FixProposal string           `json:"fix_proposal,omitempty"`
}

type explainJSON struct {
	Type string `json:"type"`
	Code string `json:"code"`
	Text string `json:"text"`
}

type recoverJSON struct {
	Type      string          `json:"type"`
	Recovered []flow.Recovery `json:"recovered"`
	// Refusal is why a recovery could not finish (the journal is kept).
	Refusal *refusalJSON `json:"refusal,omitempty"`
}

type logJSON struct {
	Type    string         `json:"type"`
	Entries []*proof.Entry `json:"entries"`
}

type verifyJSON struct {
	Type         string          `json:"type"`
	Commits      []*proof.Result `json:"commits"`
	Proven       int             `json:"proven"`
	Failed       int             `json:"failed"`
	NotProposals int             `json:"not_proposals"`
	Exit         int             `json:"exit"`
	Class        refusal.Class   `json:"class,omitempty"`
}

type pushedJSON struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Commit  string `json:"commit"`
	Remote  string `json:"remote"`
	Ref     string `json:"ref"`
	Updated bool   `json:"updated"`
}

type fetchedJSON struct {
	Type      string        `json:"type"`
	Remote    string        `json:"remote"`
	Proposals []fetchedItem `json:"proposals"`
}

type fetchedItem struct {
	ID     string `json:"id"`
	Commit string `json:"commit"`
	Ref    string `json:"ref"`
}

type summaryJSON struct {
	Type     string           `json:"type"`
	Snapshot session.Snapshot `json:"snapshot"`
}

type versionJSON struct {
	Type     string `json:"type"`
	Version  string `json:"version"`
	Revision string `json:"revision"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
}

type helpJSON struct {
	Type  string     `json:"type"`
	Verbs []helpVerb `json:"verbs"`
}

type helpVerb struct {
	Name  string     `json:"name"`
	Usage string     `json:"usage"`
	Args  string     `json:"args"`
	Flags []helpFlag `json:"flags"`
}

type helpFlag struct {
	Name  string `json:"name"`
	Alias string `json:"alias,omitempty"`
	Value bool   `json:"value"`
	Usage string `json:"usage"`
}

type completionJSON struct {
	Type   string `json:"type"`
	Shell  string `json:"shell"`
	Script string `json:"script"`
}
