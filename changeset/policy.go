package changeset

import (
	"path"
	"strings"

	"github.com/nika-dev/nika/refusal"
)

// Policy decides which paths a proposal may touch. Workflows and the project
// file are always allowed; a supporting file must match one of Allow, which
// holds the human's --allow values and the project's nika.allow config: exact
// paths or globs ('*' within a name, '**' across directories). Some paths stay
// refused whatever Allow says: the hooks that will judge the apply.
type Policy struct {
	Allow []string
}

// reserved are directories no proposal may write into, however it is
// allowed, named by their components.
var reserved = [][]string{{".nika", "hooks"}}

// Reserved reports whether p is, or lies inside, a directory that no
// proposal may touch (the hooks that judge an apply), and names it. It
// compares under FoldName, as the filesystem will: ".NIKA/Hooks",
// ".nika/hookſ" (U+017F folds to s), ".nika/hooks." and "NIKA~2/hooks" are
// all the hooks directory somewhere.
func Reserved(p Path) (string, bool) {
	comps := p.Components()
	for _, r := range reserved {
		if len(comps) < len(r) {
			continue
		}
		hit := true
		for i, want := range r {
			if FoldName(comps[i]) != FoldName(want) && !ShortNameOf(comps[i], want) {
				hit = false
				break
			}
		}
		if hit {
			return strings.Join(r, "/"), true
		}
	}
	return "", false
}

// Check refuses p when policy forbids it.
func (pol Policy) Check(p Path, class FileClass) error {
	if r, ok := Reserved(p); ok {
		return refusal.New(refusal.NotAllowed, "change hooks by hand, outside any proposal", "path %s is inside %s, the hooks that judge an apply", quote(string(p)), r)
	}
	if class.Audited() {
		return nil
	}
	for _, a := range pol.Allow {
		if MatchGlob(strings.TrimPrefix(a, "./"), string(p)) {
			return nil
		}
	}
	return refusal.New(refusal.NotAllowed, "",
		"path %s is a supporting file that you did not allow", quote(string(p))).WithFix(refusal.AllowFile, string(p))
}

// MatchGlob matches a slash path against a pattern where '*', '?' and
// '[...]' work within one component (as in path.Match) and a '**' component
// matches any number of components, none included.
func MatchGlob(pattern, name string) bool {
	return matchParts(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchParts(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchParts(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
