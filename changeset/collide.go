package changeset

import (
	"sort"
	"strings"

	"github.com/nika-dev/nika/refusal"
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

// CheckFolds refuses a set whose paths collide under FoldKey (Unicode full
// case folding and NFC, the invisible code points, trailing dots and
// spaces and streams that FoldName drops):
//
//   - with each other: two paths the set writes, or a directory of one and
//     a directory or file of another, that are different bytes but the same
//     name under FoldKey ("a/hooks/x" and "A/hookſ/y");
//   - with the base: a path the set creates (a create, or the destination
//     of a move) that equals a different path or directory the base
//     already has, unless the set removes that path itself (a rename that
//     only changes case). This part needs a base that is a Folder.
func CheckFolds(base Base, changes []Change) error {
	removed := map[string]bool{}
	for _, c := range changes {
		switch c.Kind {
		case Delete:
			removed[string(c.Path)] = true
		case Move:
			removed[string(c.From)] = true
		}
	}
	if err := checkSetFolds(changes); err != nil {
		return err
	}
	f, ok := base.(Folder)
	if !ok {
		return nil
	}
	for _, c := range changes {
		if c.Kind != Create && c.Kind != Move {
			continue
		}
		existing, hit := f.Folds(c.Path)
		if !hit || removed[string(existing)] {
			continue
		}
		return collision(c.Path, existing, "which already exists")
	}
	return nil
}

func collision(p, other Path, why string) error {
	return refusal.New(refusal.NotAllowed, "use the existing name "+quote(string(other))+", or pick a name that differs in more than case, accents or invisible characters",
		"path %s collides with %s, %s: on macOS and Windows they are the same file", quote(string(p)), quote(string(other)), why)
}

// checkSetFolds refuses two names that the set writes, files or the
// directories on their way, that differ in bytes but not under FoldKey.
// (Names the set removes meet the written ones through the base: a rename
// that only changes case is allowed there.)
func checkSetFolds(changes []Change) error {
	var paths []string
	for _, c := range changes {
		if c.After != nil {
			paths = append(paths, string(c.Path))
		}
	}
	sort.Strings(paths)
	seen := map[string]string{} // FoldKey of a name -> the name
	for _, p := range paths {
		comps := strings.Split(p, "/")
		key := ""
		for i, c := range comps {
			name := strings.Join(comps[:i+1], "/")
			if i > 0 {
				key += "/"
			}
			key += FoldName(c)
			if prev, ok := seen[key]; !ok {
				seen[key] = name
			} else if prev != name {
				return collision(Path(p), Path(prev), "which the same proposal also writes")
			}
		}
	}
	return nil
}
