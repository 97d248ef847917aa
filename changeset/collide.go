package changeset

import (
	"strings"

	"github.com/nika-dev/nika/refusal"
	"golang.org/x/text/unicode/norm"
)

// Folder is an optional Base that knows which paths already exist under a
// name that a case-insensitive or normalizing filesystem (macOS, Windows)
// would take for the same one. gitstage implements it over the index.
type Folder interface {
	// Folds returns an existing path, or an existing directory, that is
	// not p's own bytes but equals p, or one of p's directories, under
	// FoldKey. ok is false when there is none.
	Folds(p Path) (existing Path, ok bool)
}

// FoldKey is the key under which two names collide: Unicode NFC (so é as
// U+00E9 and as e+U+0301 meet) and lower case. The resolver uses the same
// key for the paths of one set.
func FoldKey(s string) string { return strings.ToLower(norm.NFC.String(s)) }

// CheckFolds refuses a set that creates a path (a create, or the
// destination of a move) which collides under FoldKey with a different path
// or directory that the base already has, unless the set removes that path
// itself (a rename that only changes case). It does nothing when base is
// not a Folder.
func CheckFolds(base Base, changes []Change) error {
	f, ok := base.(Folder)
	if !ok {
		return nil
	}
	removed := map[string]bool{}
	for _, c := range changes {
		switch c.Kind {
		case Delete:
			removed[string(c.Path)] = true
		case Move:
			removed[string(c.From)] = true
		}
	}
	for _, c := range changes {
		if c.Kind != Create && c.Kind != Move {
			continue
		}
		existing, hit := f.Folds(c.Path)
		if !hit || removed[string(existing)] {
			continue
		}
		return refusal.New(refusal.NotAllowed, "use the existing name "+quote(string(existing))+", or pick a name that differs in more than case or accents",
			"path %s collides with %s, which already exists: on macOS and Windows they are the same file", quote(string(c.Path)), quote(string(existing)))
	}
	return nil
}
