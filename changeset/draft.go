package changeset

// Op is what an intent asks for, before the base is known. The resolver turns
// ops into Kinds: a Write of an absent path is a Create, of a present one an
// Update.
type Op string

const (
	// OpWrite sets the whole content of a path, creating it if absent.
	OpWrite Op = "write"
	// OpAdd creates a path that must be absent.
	OpAdd Op = "add"
	// OpEdit transforms the bytes of a path that must be present (a patch).
	// With Edit nil and Content set, it replaces them.
	OpEdit Op = "edit"
	// OpDelete removes a path that must be a present file.
	OpDelete Op = "delete"
	// OpMove renames Path to To; the content may change through Edit or
	// Content.
	OpMove Op = "move"
)

// Edit transforms base bytes into new bytes (a patch's hunks). It must be a
// pure function of its input.
type Edit interface {
	Apply(base []byte) ([]byte, error)
}

// Intent is one proposed change as a parser read it: the raw path text and
// what to do, with no knowledge of the repository.
type Intent struct {
	Op      Op
	Path    string // as written in the input
	To      string // the destination of a move
	Content []byte // the whole new content, when the input gives it
	Edit    Edit   // or a transformation of the base bytes
	Line    int    // 1-based line of the input where the intent starts
}

// Draft is what a parser produced from one input.
type Draft struct {
	Format  string // "reply", "patch", "diff", "search-replace"
	Intents []Intent
}
