package changeset

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nika-dev/nika/refusal"
	"golang.org/x/text/unicode/norm"
)

// EntryKind is what the base holds at a path.
type EntryKind int

const (
	Absent EntryKind = iota
	File
	Dir
	Symlink
	Submodule
)

// Entry is the base's view of one path: its tree entry in HEAD, already
// checked against the index and the working tree by the Base implementation.
type Entry struct {
	Kind  EntryKind
	Mode  Mode
	Blob  string
	Bytes []byte // the file's bytes, for Kind == File
}

// Base is the commit a proposal is built over. gitstage implements it over
// HEAD; tests implement it over a map.
type Base interface {
	// Entry returns what the base holds at p. For a File it must also
	// check that the working tree and the index agree with HEAD, and refuse
	// (refusal.Dirty, refusal.Unsupported) otherwise; for a missing path it must refuse
	// if the working tree holds something there (an untracked file).
	Entry(p Path) (Entry, error)
}

// Lister is an optional Base that lists the files under a directory of the
// base tree. With it, a proposal may replace a directory by a file when it
// also deletes every file in that directory.
type Lister interface {
	Files(dir Path) ([]Path, error)
}

// Resolve turns a draft into changes against base, under policy. It refuses
// before anything is staged: every path is validated, every policy rule and
// base condition is checked, and every edit is applied in memory. Writes that
// would not change a file are dropped and listed in unchanged.
func Resolve(d *Draft, base Base, pol Policy) (changes []Change, unchanged []Path, err error) {
	r := resolver{base: base, pol: pol, seen: map[string]int{}, entries: map[Path]Entry{}, needGone: map[Path]error{}, needEmpty: map[Path]error{}}
	for i := range d.Intents {
		c, same, err := r.intent(d, &d.Intents[i])
		if err != nil {
			return nil, nil, err
		}
		if same {
			unchanged = append(unchanged, c.Path)
			continue
		}
		changes = append(changes, c)
	}
	if err := r.typeChanges(changes); err != nil {
		return nil, nil, err
	}
	if err := checkTypeConflicts(changes); err != nil {
		return nil, nil, err
	}
	if err := CheckFolds(base, changes); err != nil {
		return nil, nil, err
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, unchanged, nil
}

type resolver struct {
	base    Base
	pol     Policy
	seen    map[string]int // folded path -> line of the intent that named it
	entries map[Path]Entry
	// A file in the way of a directory the set writes into, and a
	// directory in the way of a file the set writes: allowed only when the
	// set itself removes them; the error is the refusal otherwise.
	needGone  map[Path]error
	needEmpty map[Path]error
}

// typeChanges checks that every file in the way of a new directory, and
// every file under a directory in the way of a new file, is removed by the
// set itself.
func (r *resolver) typeChanges(cs []Change) error {
	removed := map[Path]bool{}
	for _, c := range cs {
		switch c.Kind {
		case Delete:
			removed[c.Path] = true
		case Move:
			removed[c.From] = true
		}
	}
	for p, refusal := range r.needGone {
		if !removed[p] {
			return refusal
		}
	}
	for dir, refusal := range r.needEmpty {
		l, ok := r.base.(Lister)
		if !ok {
			return refusal
		}
		files, err := l.Files(dir)
		if err != nil {
			return err
		}
		for _, f := range files {
			if !removed[f] {
				return refusal
			}
		}
	}
	return nil
}

func (r *resolver) where(d *Draft, in *Intent) string {
	if in.Line > 0 {
		return fmt.Sprintf("%s line %d: ", formatName(d.Format), in.Line)
	}
	return ""
}

func formatName(f string) string {
	if f == "" {
		return "input"
	}
	return f
}

// path validates a path named by an intent, applies policy, and registers it
// so that no other intent may name it (or a case/normalization twin).
func (r *resolver) path(d *Draft, in *Intent, raw string) (Path, FileClass, error) {
	p, err := ParsePath(raw)
	if err != nil {
		var e *refusal.Error
		if errors.As(err, &e) {
			e.Text = r.where(d, in) + e.Text
		}
		return "", "", err
	}
	key := strings.ToLower(norm.NFC.String(string(p)))
	if prev, dup := r.seen[key]; dup {
		return "", "", refusal.New(refusal.Invalid, "propose each file once", "%stwo changes name the path %s (the first at line %d)", r.where(d, in), quote(raw), prev)
	}
	r.seen[key] = in.Line
	class := Classify(p)
	if err := r.pol.Check(p, class); err != nil {
		var e *refusal.Error
		if errors.As(err, &e) {
			e.Text = r.where(d, in) + e.Text
		}
		return "", "", err
	}
	// Every parent must be a directory (or absent) in the base and on disk.
	comps := p.Components()
	for i := 1; i < len(comps); i++ {
		parent := Path(strings.Join(comps[:i], "/"))
		e, err := r.entry(parent)
		if err != nil {
			return "", "", err
		}
		switch e.Kind {
		case Symlink:
			return "", "", refusal.New(refusal.NotAllowed, "nika never writes through a symlink", "%spath %s passes through the symlink %s", r.where(d, in), quote(raw), quote(string(parent)))
		case Submodule:
			return "", "", refusal.New(refusal.NotAllowed, "change the submodule in its own repository", "%spath %s is inside the submodule %s", r.where(d, in), quote(raw), quote(string(parent)))
		case File:
			r.needGone[parent] = refusal.New(refusal.NotAllowed, "delete that file in the same proposal, or pick another path", "%spath %s needs %s to be a directory, but it is a file", r.where(d, in), quote(raw), quote(string(parent)))
		}
	}
	return p, class, nil
}

func (r *resolver) entry(p Path) (Entry, error) {
	if e, ok := r.entries[p]; ok {
		return e, nil
	}
	e, err := r.base.Entry(p)
	if err != nil {
		return e, err
	}
	r.entries[p] = e
	return e, nil
}

// notAFile refuses an entry that a change cannot replace or remove: a
// directory, a symlink or a submodule.
func (r *resolver) notAFile(d *Draft, in *Intent, p Path, e Entry) error {
	switch e.Kind {
	case Dir:
		return refusal.New(refusal.NotAllowed, "name a file, not a directory", "%spath %s is a directory", r.where(d, in), quote(string(p)))
	case Symlink:
		return refusal.New(refusal.Unsupported, "edit the file the link points to instead", "%spath %s is a symlink", r.where(d, in), quote(string(p)))
	case Submodule:
		return refusal.New(refusal.Unsupported, "change the submodule in its own repository", "%spath %s is a submodule", r.where(d, in), quote(string(p)))
	}
	return nil
}

func (r *resolver) intent(d *Draft, in *Intent) (Change, bool, error) {
	p, class, err := r.path(d, in, in.Path)
	if err != nil {
		return Change{}, false, err
	}
	e, err := r.entry(p)
	if err != nil {
		return Change{}, false, err
	}
	if e.Kind == Dir && (in.Op == OpWrite || in.Op == OpAdd) {
		// A new file where the base has a directory: allowed only when the
		// set deletes every file in it (checked by typeChanges).
		r.needEmpty[p] = refusal.New(refusal.NotAllowed, "delete every file in that directory in the same proposal, or pick another path",
			"%spath %s is a directory in the project", r.where(d, in), quote(string(p)))
		e = Entry{Kind: Absent}
	} else if err := r.notAFile(d, in, p, e); err != nil {
		return Change{}, false, err
	}
	c := Change{Path: p, Class: class}
	var before *Side
	if e.Kind == File {
		before = NewSide(e.Bytes, e.Mode, e.Blob)
	}
	switch in.Op {
	case OpWrite, OpAdd, OpEdit:
		if in.Op == OpAdd && before != nil {
			return c, false, refusal.New(refusal.NotAllowed, "propose an update of the file instead", "%spath %s already exists", r.where(d, in), quote(in.Path))
		}
		if in.Op == OpEdit && before == nil {
			return c, false, refusal.New(refusal.NotAllowed, "propose it as a new file instead", "%spath %s does not exist, so it cannot be edited", r.where(d, in), quote(in.Path))
		}
		after, err := r.after(d, in, before)
		if err != nil {
			return c, false, err
		}
		c.Before = before
		if before == nil {
			c.Kind = Create
			c.After = NewSide(after, ModeFile, "")
		} else {
			c.Kind = Update
			c.After = NewSide(after, before.Mode, "")
			if bytes.Equal(after, before.Bytes) {
				return c, true, nil
			}
		}
		return c, false, nil
	case OpDelete:
		if before == nil {
			return c, false, refusal.New(refusal.NotAllowed, "drop the deletion from the proposal", "%spath %s does not exist, so it cannot be deleted", r.where(d, in), quote(in.Path))
		}
		if in.Edit != nil {
			// A diff's deletion checks that the file holds what it removes.
			if _, err := r.after(d, in, before); err != nil {
				return c, false, err
			}
		}
		c.Kind, c.Before = Delete, before
		return c, false, nil
	case OpMove:
		if before == nil {
			return c, false, refusal.New(refusal.NotAllowed, "name a file that exists", "%spath %s does not exist, so it cannot be moved", r.where(d, in), quote(in.Path))
		}
		if strings.EqualFold(norm.NFC.String(in.Path), norm.NFC.String(in.To)) {
			// A rename that changes only case (or normalization) of the
			// same name: the destination's folded key is the source's.
			delete(r.seen, strings.ToLower(norm.NFC.String(string(p))))
		}
		to, toClass, err := r.path(d, in, in.To)
		if err != nil {
			return c, false, err
		}
		te, err := r.entry(to)
		if err != nil {
			return c, false, err
		}
		if te.Kind != Absent {
			return c, false, refusal.New(refusal.NotAllowed, "delete the destination in its own proposal first, or pick another name", "%scannot move %s onto %s, which already exists", r.where(d, in), quote(in.Path), quote(in.To))
		}
		after, err := r.after(d, in, before)
		if err != nil {
			return c, false, err
		}
		return Change{Kind: Move, Path: to, From: p, Class: toClass, Before: before, After: NewSide(after, before.Mode, "")}, false, nil
	}
	return c, false, refusal.New(refusal.Internal, "", "unknown intent %q", in.Op)
}

// after computes the new bytes of an intent from the base bytes.
func (r *resolver) after(d *Draft, in *Intent, before *Side) ([]byte, error) {
	switch {
	case in.Edit != nil:
		var base []byte
		if before != nil {
			base = before.Bytes
		}
		out, err := in.Edit.Apply(base)
		if err != nil {
			var e *refusal.Error
			if errors.As(err, &e) {
				return nil, err
			}
			return nil, &refusal.Error{Class: refusal.Invalid, Text: fmt.Sprintf("%s%s: %v", r.where(d, in), quote(in.Path), err), Hint: "rebuild the patch against the current file", Err: err}
		}
		return out, nil
	case in.Content != nil:
		return in.Content, nil
	case before != nil:
		return before.Bytes, nil
	}
	return []byte{}, nil
}

// checkTypeConflicts refuses a set that makes one path both a file and a
// directory (a/b created while a is created as a file).
func checkTypeConflicts(cs []Change) error {
	files := map[Path]bool{}
	for _, c := range cs {
		if c.After != nil {
			files[c.Path] = true
		}
	}
	for _, c := range cs {
		if c.After == nil {
			continue
		}
		comps := c.Path.Components()
		for i := 1; i < len(comps); i++ {
			if parent := Path(strings.Join(comps[:i], "/")); files[parent] {
				return refusal.New(refusal.NotAllowed, "propose one of the two", "the proposal makes %s a file and also writes %s under it", quote(string(parent)), quote(string(c.Path)))
			}
		}
	}
	return nil
}
