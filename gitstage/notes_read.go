package gitstage

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// NotesReader reads the notes under one notes ref for many commits,
// decoding the notes tree once and each fan-out subtree at most once.
type NotesReader struct {
	r    *Repo
	root *object.Tree
	subs map[string]*object.Tree
}

// OpenNotes opens the notes ref (NotesRef for nika's verdicts). A missing
// ref reads as no notes at all.
func (r *Repo) OpenNotes(ref string) (*NotesReader, error) {
	nr := &NotesReader{r: r, subs: map[string]*object.Tree{}}
	h, err := r.ReadRef(ref)
	if err != nil || h.IsZero() {
		return nr, err
	}
	c, err := r.Commit(h)
	if err != nil {
		return nil, err
	}
	if nr.root, err = r.Tree(c.TreeHash); err != nil {
		return nil, err
	}
	return nr, nil
}

// Get returns the note of a commit (hex id); ok is false when it has none.
// A note is found at <hex> or fanned out as <2 hex>/<38 hex>, as git
// notes writes them.
func (nr *NotesReader) Get(hex string) (text string, ok bool, err error) {
	if nr.root == nil || !plumbing.IsHash(hex) {
		return "", false, nil
	}
	t := nr.root
	name := hex
	for depth := 0; depth < 20 && t != nil; depth++ {
		var next *object.Tree
		for _, e := range t.Entries {
			if e.Name == name && e.Mode != filemode.Dir {
				b, err := nr.r.ReadBlob(e.Hash)
				if err != nil {
					return "", false, err
				}
				return string(b), true, nil
			}
			if e.Mode == filemode.Dir && len(e.Name) == 2 && len(name) > 2 && name[:2] == e.Name {
				key := hex[:len(hex)-len(name)+2]
				sub, cached := nr.subs[key]
				if !cached {
					if sub, err = nr.r.Tree(e.Hash); err != nil {
						return "", false, err
					}
					nr.subs[key] = sub
				}
				next = sub
			}
		}
		if next == nil {
			break
		}
		t, name = next, name[2:]
	}
	return "", false, nil
}
