package changeset

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/zeebo/blake3"
)

// Kind is what a change does to its path.
type Kind string

const (
	Create Kind = "create" // the path is absent in the base and present after
	Update Kind = "update" // the path is present in both, with other bytes
	Delete Kind = "delete" // the path is present in the base and absent after
	Move   Kind = "move"   // From is removed, Path is created (bytes may change)
)

// FileClass says what a path is to Nika, which decides whether a proposal
// may touch it without the human naming it.
type FileClass string

const (
	// Workflow is a Nika workflow: *.nika.yaml, or *.nika.
	Workflow FileClass = "workflow"
	// Project is the Nika project file: exactly nika.yaml, at any depth.
	Project FileClass = "project"
	// Supporting is any other file; it needs the human's --allow.
	Supporting FileClass = "supporting"
)

// Classify returns the class of p.
func Classify(p Path) FileClass {
	base := p.Base()
	switch {
	case base == "nika.yaml":
		return Project
	case strings.HasSuffix(base, ".nika.yaml") && len(base) > len(".nika.yaml"),
		strings.HasSuffix(base, ".nika") && len(base) > len(".nika"):
		return Workflow
	}
	return Supporting
}

// Audited reports whether the checker audits files of this class.
func (c FileClass) Audited() bool { return c == Workflow || c == Project }

// Mode is a git file mode. nika writes regular files only.
type Mode uint32

const (
	ModeFile       Mode = 0o100644
	ModeExecutable Mode = 0o100755
	ModeSymlink    Mode = 0o120000
	ModeDir        Mode = 0o040000
	ModeGitlink    Mode = 0o160000
)

func (m Mode) String() string { return fmt.Sprintf("%06o", uint32(m)) }

// Witness is the blake3-256 of the bytes a preview was built over.
type Witness [32]byte

// WitnessOf hashes b.
func WitnessOf(b []byte) Witness { return Witness(blake3.Sum256(b)) }

// String renders the witness as blake3:<64 hex>.
func (w Witness) String() string { return "blake3:" + hex.EncodeToString(w[:]) }

// Side is one end of a change: the file as it is in the base (Before) or as
// it will be after the apply (After). A nil Side means the path is absent,
// which is itself witnessed: a create's Before is nil, and apply refuses if
// the path exists by then.
type Side struct {
	Blob    string  // git object id of Bytes (hex); filled by gitstage
	Witness Witness // blake3 of Bytes
	Mode    Mode
	Bytes   []byte
	// Disk is the side as it is on disk when git converts the path between
	// the working tree and the commit (line endings, an encoding, ident, a
	// clean/smudge filter); nil when nothing converts it and the disk
	// holds Bytes themselves. Bytes are then the commit's form.
	Disk *Disk
}

// Disk is a side's bytes as git's checkout has them in the working tree.
type Disk struct {
	Witness Witness // blake3 of the bytes on disk
	Bytes   []byte  // the bytes on disk; nil when not held
	Conv    Conversion
	// Warnings are what git would print and go on past (core.safecrlf=warn,
	// a filter that failed without being required), as git words them.
	Warnings []string
}

// Conversion is what git does to a path between the working tree and the
// commit, as data for the preview, the JSON and the consent snapshot: two
// equal conversions convert alike.
type Conversion struct {
	// EOL is "crlf" when checkout writes CRLF line endings, "lf" when git
	// normalizes CRLF to LF on add and writes LF; "" when line endings are
	// left alone. Auto says git decides by looking at the bytes
	// (text=auto, core.autocrlf), leaving what it takes for binary alone.
	EOL  string `json:"eol,omitempty"`
	Auto bool   `json:"auto,omitempty"`
	// EOLFrom is what asks for it: "core.autocrlf=true", "eol=crlf",
	// "text with core.eol=crlf", …
	EOLFrom  string `json:"eol_from,omitempty"`
	Encoding string `json:"encoding,omitempty"` // working-tree-encoding
	Ident    bool   `json:"ident,omitempty"`
	// Filter is the filter driver's name, and the command lines git's
	// configuration resolves it to: filter.<name>.process (which wins
	// when set), .clean and .smudge; Required is .required.
	Filter        string `json:"filter,omitempty"`
	FilterProcess string `json:"filter_process,omitempty"`
	FilterClean   string `json:"filter_clean,omitempty"`
	FilterSmudge  string `json:"filter_smudge,omitempty"`
	Required      bool   `json:"required,omitempty"`
}

// Converts reports that git converts the path at all.
func (c Conversion) Converts() bool { return c != Conversion{} }

// OnDisk is the witness of what the disk holds for the side: its Disk's,
// else its own.
func (s *Side) OnDisk() Witness {
	if s.Disk != nil {
		return s.Disk.Witness
	}
	return s.Witness
}

// NewSide builds a side over b and witnesses it.
func NewSide(b []byte, mode Mode, blob string) *Side {
	return &Side{Blob: blob, Witness: WitnessOf(b), Mode: mode, Bytes: b}
}

// Change is one path's before and after.
type Change struct {
	Kind   Kind
	Path   Path
	From   Path // the source of a move; empty otherwise
	Class  FileClass
	Before *Side // nil for a create
	After  *Side // nil for a delete
	// FromWorkTree says the after-state was made from the working tree's
	// form of the file (Entry.WorkTree), not git's: git add's whole
	// conversion makes its blob.
	FromWorkTree bool
}

// RunRequest asks the door to run a workflow after a clean apply.
type RunRequest struct {
	Workflow   Path
	Vars       map[string]string
	MaxCostUSD float64
}

// Set is one proposal's typed content: every change resolved against one
// base commit, with the bytes before and after.
type Set struct {
	Root    string // absolute worktree root; never printed in machine output
	Goal    string
	Base    string // base commit id, "" for an unborn HEAD
	Branch  string // full ref name HEAD points at, e.g. refs/heads/main
	Changes []Change
	Run     *RunRequest
	// Generation counts the earlier proposals of the same content and base
	// that were discarded or undone: proposing again after an undo gets
	// its own id. 0 for the first.
	Generation int
	// RebasedFrom is the id of the proposal this one brings forward onto
	// a newer base (nika rebase); "" otherwise. The manifest binds it.
	RebasedFrom string
}

// Paths lists every path the set writes or removes, sources of moves included.
func (s *Set) Paths() []Path {
	var ps []Path
	for _, c := range s.Changes {
		if c.Kind == Move {
			ps = append(ps, c.From)
		}
		ps = append(ps, c.Path)
	}
	return ps
}

// Proposal is a Set staged in git: the blobs, tree and commit exist in the
// object database, and the ID is the blake3 of the canonical manifest.
type Proposal struct {
	ID     string // 64 hex
	Commit string
	Tree   string
	Set    Set
}
