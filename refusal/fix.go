package refusal

// Fix is a remedy that a human carries out through a door. A library
// names it; each door (the CLI, the terminal session, the stdio protocol,
// the MCP server) has its own words for it, so that no CLI flag reaches
// the session or an agent. cmd/nika holds the words, and a test there
// proves that every door words every Fix.
type Fix string

const (
	// Repropose: build the preview again from the same input, over the
	// current HEAD and bytes. Subject: the proposal id, if any.
	Repropose Fix = "repropose"
	// ListProposals: see the proposals and their ids.
	ListProposals Fix = "list-proposals"
	// Recover: finish or undo an interrupted apply.
	Recover Fix = "recover"
	// AllowFile: allow a supporting file. Subject: the path.
	AllowFile Fix = "allow-file"
	// RaiseInputLimit: split the input, or raise the input limit.
	// Subject: the limit in bytes.
	RaiseInputLimit Fix = "raise-input-limit"
	// ApplyAgain: ask for the apply again when it is wanted. Subject: the
	// proposal id.
	ApplyAgain Fix = "apply-again"
	// Rebase: bring a stale proposal forward onto HEAD. Subject: the
	// proposal id.
	Rebase Fix = "rebase"
	// ChooseFormat: name the input's format. Subject: the known formats.
	ChooseFormat Fix = "choose-format"
	// Discard: withdraw a pending proposal (proposed again, the same
	// input then stages a new one). Subject: the proposal id.
	Discard Fix = "discard"
	// Verify: prove a commit from its objects, to see what does not
	// match. Subject: the commit.
	Verify Fix = "verify"
	// ProposeChange: make the change as a proposal that a human applies,
	// rather than by hand. Subject: none.
	ProposeChange Fix = "propose-change"
	// CheckFile: see the checker's findings on a file, and what each code
	// means. Subject: the path.
	CheckFile Fix = "check-file"
	// Push: publish a proposal to a remote again. Subject: the proposal
	// id.
	Push Fix = "push"
)

// Fixes lists every Fix, for the doors' completeness tests.
func Fixes() []Fix {
	return []Fix{Repropose, ListProposals, Recover, AllowFile, RaiseInputLimit, ApplyAgain, Rebase, ChooseFormat,
		Discard, Verify, ProposeChange, CheckFile, Push}
}
