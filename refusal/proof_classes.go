package refusal

// The classes of nika verify's failures: what CI acts on when a commit that
// carries a Nika-Proposal trailer is not proven by its own objects. Each has
// one exit code (cmd/nika/exit_proof.go, docs/exit-codes.md).
const (
	// TamperedTrailer: the Nika-Proposal trailer does not match the
	// commit's content (edited, copied from another commit, or a message
	// changed after the proposal); without a local record of the proposal
	// it is the class of every id mismatch.
	TamperedTrailer Class = "TamperedTrailer"
	// AmendedTree: the commit has the proposal's parent and message but
	// other bytes than the proposal's (git commit --amend).
	AmendedTree Class = "AmendedTree"
	// WrongParent: the commit's parent is not the base the proposal was
	// built on (a rebase or cherry-pick), or the commit is a merge.
	WrongParent Class = "WrongParent"
	// Findings: the checker finds errors in a workflow or project file the
	// proposal wrote.
	Findings Class = "Findings"
	// MissingObjects: the objects needed to re-derive the proposal are not
	// in the repository (a shallow clone, a pruned or partial repository).
	MissingObjects Class = "MissingObjects"
	// NotAProposal: verify --require-all met a commit without a
	// Nika-Proposal trailer.
	NotAProposal Class = "NotAProposal"
	// CorruptObject: an object's bytes do not hash to its id.
	CorruptObject Class = "CorruptObject"

	// Unsigned: verify --require-signed met a proposal commit without a
	// signature.
	Unsigned Class = "Unsigned"
	// BadSignature: a proposal commit's signature does not verify (the
	// commit or the signature was changed after signing), or it signs more
	// than the proposal commit.
	BadSignature Class = "BadSignature"
	// KeyNotAllowed: verify --require-signed met a good signature by a key
	// that git's rules do not allow: not in gpg.ssh.allowedSignersFile
	// (ssh), not in the keyring or below gpg.minTrustLevel (openpgp,
	// x509), expired or revoked.
	KeyNotAllowed Class = "KeyNotAllowed"
)
