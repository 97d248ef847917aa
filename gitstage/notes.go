package gitstage

import (
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// NotesRef is where nika records the verdict of each applied proposal, so
// that git log --notes=nika shows it.
const NotesRef = "refs/notes/nika"

// notesBy names what adds a note in the notes commit's message and the
// reflog, as git's "Notes added by 'git notes add'" does: the check after
// an apply, whichever door carried out the apply (the CLI, the session, a
// recovery), so it names the step and no door's command.
const notesBy = "nika's post-apply check"

// AddNote records text as the note of commit under ref, as git notes add
// -f does: a new notes commit whose tree maps the annotated commit's id to
// a blob, with the previous notes commit as parent. It keeps git's fan-out
// (ab/cdef...) when the notes tree already uses it for that prefix.
func (r *Repo) AddNote(ref string, commit plumbing.Hash, text string) error {
	old, err := r.ReadRef(ref)
	if err != nil {
		return err
	}
	blob, err := r.WriteBlob([]byte(text))
	if err != nil {
		return err
	}
	var entries []object.TreeEntry
	var parents []plumbing.Hash
	name := commit.String()
	if !old.IsZero() {
		c, err := r.Commit(old)
		if err != nil {
			return err
		}
		t, err := r.Tree(c.TreeHash)
		if err != nil {
			return err
		}
		parents = []plumbing.Hash{old}
		fanout := name[:2]
		for _, e := range t.Entries {
			if e.Name == fanout && e.Mode == filemode.Dir {
				// Insert into the fan-out subtree.
				sub, err := r.Tree(e.Hash)
				if err != nil {
					return err
				}
				h, err := r.putEntry(sub.Entries, name[2:], blob)
				if err != nil {
					return err
				}
				e.Hash = h
			}
			if e.Name == name {
				continue
			}
			entries = append(entries, e)
		}
		if !hasFanout(t.Entries, fanout) {
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: blob})
		}
	} else {
		entries = []object.TreeEntry{{Name: name, Mode: filemode.Regular, Hash: blob}}
	}
	sort.Sort(object.TreeEntrySorter(entries))
	tree, err := r.writeObject(&object.Tree{Entries: entries})
	if err != nil {
		return err
	}
	sig, err := r.Signature("committer")
	if err != nil {
		return err
	}
	nc, err := r.writeObject(&object.Commit{Author: sig, Committer: sig, TreeHash: tree, ParentHashes: parents,
		Message: "Notes added by " + notesBy + "\n"})
	if err != nil {
		return err
	}
	return r.UpdateRef(ref, old, nc, sig, "notes: Notes added by "+notesBy)
}

func hasFanout(es []object.TreeEntry, name string) bool {
	for _, e := range es {
		if e.Name == name && e.Mode == filemode.Dir {
			return true
		}
	}
	return false
}

func (r *Repo) putEntry(es []object.TreeEntry, name string, blob plumbing.Hash) (plumbing.Hash, error) {
	var out []object.TreeEntry
	for _, e := range es {
		if e.Name != name {
			out = append(out, e)
		}
	}
	out = append(out, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: blob})
	sort.Sort(object.TreeEntrySorter(out))
	return r.writeObject(&object.Tree{Entries: out})
}

// Note reads the note of commit under ref, "" when there is none.
func (r *Repo) Note(ref string, commit plumbing.Hash) (string, error) {
	h, err := r.ReadRef(ref)
	if err != nil || h.IsZero() {
		return "", err
	}
	c, err := r.Commit(h)
	if err != nil {
		return "", err
	}
	t, err := r.Tree(c.TreeHash)
	if err != nil {
		return "", err
	}
	name := commit.String()
	for _, e := range t.Entries {
		switch {
		case e.Name == name:
			b, err := r.ReadBlob(e.Hash)
			return string(b), err
		case e.Name == name[:2] && e.Mode == filemode.Dir:
			sub, err := r.Tree(e.Hash)
			if err != nil {
				return "", err
			}
			for _, se := range sub.Entries {
				if se.Name == name[2:] {
					b, err := r.ReadBlob(se.Hash)
					return string(b), err
				}
			}
		}
	}
	return "", nil
}
