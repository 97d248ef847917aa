package changeset

// Op is what an intent asks for, before the base is known. The resolver turns
// ops into Kinds: a Write of an absent path is a Create, of a present one an
// Update.
type Op string

const (
	// OpWrite sets the whole content of a path, creating it if absent.
	// With Edit set instead of Content, the Edit is applied to the path's
	// bytes, or to no bytes when it is absent (a diff's lone hunk that
	// only adds lines, with no word on whether the file is new).
	OpWrite Op = "write"
	// OpAdd creates a path that must be absent.
	OpAdd Op = "add"
	// OpEdit transforms the bytes of a path that must be present (a patch).
	// With Edit nil and Content set, it replaces them.
	OpEdit Op = "edit"
	// OpDelete removes a path that must be a present file. An Edit, when
	// set, witnesses what is removed: it must accept the bytes.
	OpDelete Op = "delete"
	// OpMove renames Path to To; the content may change through Edit or
	// Content.
	OpMove Op = "move"
	// OpCopy creates To from the bytes that Path holds in the base (Path
	// itself stays as it is), through Edit when set: a diff's copy.
	OpCopy Op = "copy"
)

// Edit transforms base bytes into new bytes (a patch's hunks). It must be a
// pure function of its input.
type Edit interface {
	Apply(base []byte) ([]byte, error)
}

// Intent is one proposed change as a parser read it: the raw path text and
// what to do, with no knowledge of the repository.
//
// Several intents may name one path: they are sections of one change, and
// the resolver folds them in order (see Resolve).
type Intent struct {
	Op      Op
	Path    string // as written in the input (joined under Dir)
	To      string // the destination of a move or a copy
	Content []byte // the whole new content, when the input gives it
	Edit    Edit   // or a transformation of the base bytes
	Line    int    // 1-based line of the input where the intent starts
	// Dir is the directory that a wrapper around the input changed into
	// (`cd DIR && apply_patch <<'EOF'`). Path and To are already joined
	// under it; the resolver checks that it passes the path rule and is a
	// directory of the base, and refuses otherwise.
	Dir string
}

// Draft is what a parser produced from one input.
type Draft struct {
	Format  string // "reply", "patch", "diff", "search-replace"
	Intents []Intent
}
