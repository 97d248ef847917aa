package changeset

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nika-dev/nika/refusal"
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
	// WorkTree is the file's bytes in the working tree when git converts
	// the path and they differ from Bytes (CRLF on disk, LF in git's
	// form); nil otherwise. A patch that does not apply to Bytes is
	// tried on them, as git apply without --index reads the working tree
	// (keeping its CRLF when the patch's lines carry CRLF).
	WorkTree []byte
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
//
// Intents that name the same path are sections of one change, folded in
// order: the change witnesses the base bytes, has one after-state, and each
// later section is applied to the bytes the earlier ones left (a refusal
// names the section's number). An add, then an update of the same path,
// is one create. A path that a section deletes or moves away may not be
// named again, and a second whole content for a path is refused: it would
// hide the first from the preview. Paths that differ only in case or
// Unicode normalization are never sections of one change; they are
// refused as two changes of one file.
func Resolve(d *Draft, base Base, pol Policy) (changes []Change, unchanged []Path, err error) {
	r := resolver{d: d, base: base, pol: pol, seen: map[string]seenPath{}, slots: map[Path]*slot{}, gone: map[Path]goneWhy{},
		entries: map[Path]Entry{}, needGone: map[Path]error{}, needEmpty: map[Path]error{}, dirs: map[string]bool{}}
	for i := range d.Intents {
		if err := r.intent(&d.Intents[i]); err != nil {
			return nil, nil, err
		}
	}
	for _, s := range r.order {
		c, keep := s.change()
		if !keep {
			unchanged = append(unchanged, s.path)
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
	d       *Draft
	base    Base
	pol     Policy
	seen    map[string]seenPath // FoldKey -> the path that holds it
	slots   map[Path]*slot      // the change being built at each path
	order   []*slot             // the slots, in the order of their first section
	gone    map[Path]goneWhy    // paths a section deleted or moved away
	entries map[Path]Entry
	dirs    map[string]bool // wrapper directories already checked
	// A file in the way of a directory the set writes into, and a
	// directory in the way of a file the set writes: allowed only when the
	// set itself removes them; the error is the refusal otherwise.
	needGone  map[Path]error
	needEmpty map[Path]error
}

type seenPath struct {
	path Path
	line int
}

type goneWhy struct {
	line int
	why  string // "deletes it", "moves it to \"b\""
}

// slot is one change being built from its sections.
type slot struct {
	path     Path // where the file is after the sections so far
	class    FileClass
	from     Path  // the base path its bytes come from (path, unless moved)
	before   *Side // the base's file at from; nil when the base has none
	present  bool  // whether the file exists after the sections so far
	bytes    []byte
	worktree []byte // the base's working-tree form (Entry.WorkTree)
	fromDisk bool   // the bytes are in the working tree's form
	first    int    // the line of its first section
	last     int    // the line of its latest section
	n        int    // how many sections so far
}

// change is the slot's one change; keep is false when the sections leave
// the base as it was.
func (s *slot) change() (Change, bool) {
	switch {
	case s.before == nil && !s.present:
		return Change{}, false
	case s.before == nil:
		return Change{Kind: Create, Path: s.path, Class: s.class, After: NewSide(s.bytes, ModeFile, "")}, true
	case !s.present:
		return Change{Kind: Delete, Path: s.from, Class: Classify(s.from), Before: s.before}, true
	case s.from != s.path:
		return Change{Kind: Move, Path: s.path, From: s.from, Class: s.class, Before: s.before, After: NewSide(s.bytes, s.before.Mode, ""), FromWorkTree: s.fromDisk}, true
	}
	c := Change{Kind: Update, Path: s.path, Class: s.class, Before: s.before, After: NewSide(s.bytes, s.before.Mode, ""), FromWorkTree: s.fromDisk}
	return c, !bytes.Equal(s.bytes, s.before.Bytes)
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

func (r *resolver) where(in *Intent) string {
	if in.Line > 0 {
		return fmt.Sprintf("%s line %d: ", formatName(r.d.Format), in.Line)
	}
	return ""
}

// formatName names the input in a refusal: a reply that carries patch or
// diff blocks is still a reply, and its lines are the reply's.
func formatName(f string) string {
	switch {
	case f == "":
		return "input"
	case strings.HasPrefix(f, "reply "):
		return "reply"
	}
	return f
}

// located prefixes a refusal's text with the intent's line.
func (r *resolver) located(in *Intent, err error) error {
	var e *refusal.Error
	if errors.As(err, &e) {
		e.Text = r.where(in) + e.Text
	}
	return err
}

// parse validates a path an intent names.
func (r *resolver) parse(in *Intent, raw string) (Path, error) {
	p, err := ParsePath(raw)
	if err != nil {
		return "", r.located(in, err)
	}
	return p, nil
}

// register admits a new path into the set: no other path may fold to the
// same name, policy must allow it, and every parent must be a directory
// (or absent) in the base and on disk. twin is a path that may share the
// folded name (the source of a rename that only changes case).
func (r *resolver) register(in *Intent, p Path, raw string, twin Path) (FileClass, error) {
	key := FoldKey(string(p))
	if prev, dup := r.seen[key]; dup && prev.path != twin {
		if prev.path != p {
			// Two spellings of one name on a folding filesystem: a
			// collision, whatever the sections meant.
			return "", r.located(in, collision(p, prev.path, "which the same proposal also writes"))
		}
		return "", refusal.New(refusal.Invalid, "propose each file once", "%stwo changes name the path %s (the first at line %d)", r.where(in), quote(raw), prev.line)
	}
	r.seen[key] = seenPath{path: p, line: in.Line}
	class := Classify(p)
	if err := r.pol.Check(p, class); err != nil {
		return "", r.located(in, err)
	}
	comps := p.Components()
	for i := 1; i < len(comps); i++ {
		parent := Path(strings.Join(comps[:i], "/"))
		e, err := r.entry(parent)
		if err != nil {
			return "", err
		}
		switch e.Kind {
		case Symlink:
			return "", refusal.New(refusal.NotAllowed, "nika never writes through a symlink", "%spath %s passes through the symlink %s", r.where(in), quote(raw), quote(string(parent)))
		case Submodule:
			return "", refusal.New(refusal.NotAllowed, "change the submodule in its own repository", "%spath %s is inside the submodule %s", r.where(in), quote(raw), quote(string(parent)))
		case File:
			r.needGone[parent] = refusal.New(refusal.NotAllowed, "delete that file in the same proposal, or pick another path", "%spath %s needs %s to be a directory, but it is a file", r.where(in), quote(raw), quote(string(parent)))
		}
	}
	return class, nil
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
func (r *resolver) notAFile(in *Intent, p Path, e Entry) error {
	switch e.Kind {
	case Dir:
		return refusal.New(refusal.NotAllowed, "name a file, not a directory", "%spath %s is a directory", r.where(in), quote(string(p)))
	case Symlink:
		return refusal.New(refusal.Unsupported, "edit the file the link points to instead", "%spath %s is a symlink", r.where(in), quote(string(p)))
	case Submodule:
		return refusal.New(refusal.Unsupported, "change the submodule in its own repository", "%spath %s is a submodule", r.where(in), quote(string(p)))
	}
	return nil
}

// dir checks the directory a wrapper changed into: it passes the path rule
// and is a directory of the base, every parent included.
func (r *resolver) dir(in *Intent) error {
	if r.dirs[in.Dir] {
		return nil
	}
	p, err := ParsePath(in.Dir)
	if err != nil {
		var e *refusal.Error
		if errors.As(err, &e) {
			e.Text = r.where(in) + "the wrapper's cd: " + e.Text
		}
		return err
	}
	comps := p.Components()
	for i := 1; i <= len(comps); i++ {
		d := Path(strings.Join(comps[:i], "/"))
		e, err := r.entry(d)
		if err != nil {
			return err
		}
		switch e.Kind {
		case Dir:
			continue
		case Symlink:
			return refusal.New(refusal.NotAllowed, "name the directory the link points to", "%sthe wrapper changes into %s, through the symlink %s", r.where(in), quote(in.Dir), quote(string(d)))
		case Submodule:
			return refusal.New(refusal.NotAllowed, "change the submodule in its own repository", "%sthe wrapper changes into %s, inside the submodule %s", r.where(in), quote(in.Dir), quote(string(d)))
		case File:
			return refusal.New(refusal.NotAllowed, "name a directory of the project in the cd, or drop the cd and give paths from the root", "%sthe wrapper changes into %s, but %s is a file", r.where(in), quote(in.Dir), quote(string(d)))
		}
		return refusal.New(refusal.NotFound, "name a directory of the project in the cd, or drop the cd and give paths from the root", "%sthe wrapper changes into %s, which is not a directory of the project", r.where(in), quote(in.Dir))
	}
	r.dirs[in.Dir] = true
	return nil
}

// gone refuses a section for a path that an earlier section deleted or
// moved away.
func (r *resolver) goneRefusal(in *Intent, p Path, g goneWhy) error {
	return refusal.New(refusal.Invalid, "drop the later section, or name the file where the earlier one leaves it",
		"%sthis section changes %s, but the section at line %d %s", r.where(in), quote(string(p)), g.line, g.why)
}

// slotFor returns the change that an intent's path belongs to: the one that
// earlier sections started, or a new one over the base's file.
func (r *resolver) slotFor(in *Intent, raw string) (*slot, Path, error) {
	p, err := r.parse(in, raw)
	if err != nil {
		return nil, "", err
	}
	if g, ok := r.gone[p]; ok {
		return nil, p, r.goneRefusal(in, p, g)
	}
	if s := r.slots[p]; s != nil {
		if in.Edit == nil && in.Content != nil && in.Op != OpAdd {
			// A second whole content: the first would never be seen.
			return nil, p, refusal.New(refusal.Invalid, "propose each file once", "%stwo changes name the path %s (the first at line %d)", r.where(in), quote(raw), s.first)
		}
		s.n++
		return s, p, nil
	}
	class, err := r.register(in, p, raw, "")
	if err != nil {
		return nil, p, err
	}
	e, err := r.entry(p)
	if err != nil {
		return nil, p, err
	}
	if e.Kind == Dir && (in.Op == OpWrite || in.Op == OpAdd || in.Op == OpCopy) {
		// A new file where the base has a directory: allowed only when the
		// set deletes every file in it (checked by typeChanges).
		r.needEmpty[p] = refusal.New(refusal.NotAllowed, "delete every file in that directory in the same proposal, or pick another path",
			"%spath %s is a directory in the project", r.where(in), quote(string(p)))
		e = Entry{Kind: Absent}
	} else if err := r.notAFile(in, p, e); err != nil {
		return nil, p, err
	}
	s := &slot{path: p, class: class, from: p, first: in.Line, last: in.Line, n: 1}
	if e.Kind == File {
		s.before = NewSide(e.Bytes, e.Mode, e.Blob)
		s.present, s.bytes, s.worktree = true, e.Bytes, e.WorkTree
	}
	r.slots[p] = s
	r.order = append(r.order, s)
	return s, p, nil
}

func (r *resolver) intent(in *Intent) error {
	if in.Dir != "" {
		if err := r.dir(in); err != nil {
			return err
		}
	}
	switch in.Op {
	case OpMove:
		return r.move(in)
	case OpCopy:
		return r.copy(in)
	case OpWrite, OpAdd, OpEdit, OpDelete:
	default:
		return refusal.New(refusal.Internal, "", "unknown intent %q", in.Op)
	}
	s, p, err := r.slotFor(in, in.Path)
	if err != nil {
		return err
	}
	defer func() { s.last = in.Line }()
	switch in.Op {
	case OpAdd:
		if s.present {
			if s.n > 1 {
				return refusal.New(refusal.NotAllowed, "make the later section an update of the file", "%ssection %d of %s adds the file, but the section at line %d already writes it", r.where(in), s.n, quote(in.Path), s.last)
			}
			return refusal.New(refusal.NotAllowed, "propose an update of the file instead", "%spath %s already exists", r.where(in), quote(in.Path))
		}
	case OpEdit:
		if !s.present {
			return refusal.New(refusal.NotAllowed, "propose it as a new file instead", "%spath %s does not exist, so it cannot be edited", r.where(in), quote(in.Path))
		}
	case OpDelete:
		if !s.present {
			return refusal.New(refusal.NotAllowed, "drop the deletion from the proposal", "%spath %s does not exist, so it cannot be deleted", r.where(in), quote(in.Path))
		}
		if in.Edit != nil {
			// A diff's deletion checks that the file holds what it removes.
			if _, err := r.after(in, s, s.bytes); err != nil {
				return err
			}
		}
		s.present, s.bytes = false, nil
		r.gone[p] = goneWhy{line: in.Line, why: "deletes it"}
		return nil
	}
	var cur []byte
	if s.present {
		cur = s.bytes
	}
	after, err := r.after(in, s, cur)
	if err != nil {
		return err
	}
	s.present, s.bytes = true, after
	return nil
}

// move renames a file, with the sections before it, to a path that is free.
func (r *resolver) move(in *Intent) error {
	s, from, err := r.slotFor(in, in.Path)
	if err != nil {
		return err
	}
	if !s.present {
		return refusal.New(refusal.NotAllowed, "name a file that exists", "%spath %s does not exist, so it cannot be moved", r.where(in), quote(in.Path))
	}
	to, err := r.parse(in, in.To)
	if err != nil {
		return err
	}
	if g, ok := r.gone[to]; ok {
		return r.goneRefusal(in, to, g)
	}
	if t := r.slots[to]; t != nil && to != from {
		return refusal.New(refusal.NotAllowed, "move it onto a path the proposal leaves free", "%scannot move %s onto %s, which the section at line %d writes", r.where(in), quote(in.Path), quote(in.To), t.first)
	}
	twin := Path("")
	if FoldKey(string(from)) == FoldKey(string(to)) {
		// A rename that changes only case (or normalization) of the same
		// name: the destination's folded key is the source's.
		twin = from
	}
	class, err := r.register(in, to, in.To, twin)
	if err != nil {
		return err
	}
	te, err := r.entry(to)
	if err != nil {
		return err
	}
	if te.Kind != Absent {
		return refusal.New(refusal.NotAllowed, "delete the destination in its own proposal first, or pick another name", "%scannot move %s onto %s, which already exists", r.where(in), quote(in.Path), quote(in.To))
	}
	after, err := r.after(in, s, s.bytes)
	if err != nil {
		return err
	}
	delete(r.slots, from)
	r.gone[from] = goneWhy{line: in.Line, why: "moves it to " + quote(string(to))}
	s.path, s.class, s.bytes, s.last = to, class, after, in.Line
	r.slots[to] = s
	return nil
}

// copy creates a file from the base bytes of another, which stays: as git
// apply does, the source is read from the base, whatever other sections
// do to it.
func (r *resolver) copy(in *Intent) error {
	src, err := r.parse(in, in.Path)
	if err != nil {
		return err
	}
	e, err := r.entry(src)
	if err != nil {
		return err
	}
	switch {
	case e.Kind == Absent:
		return refusal.New(refusal.NotAllowed, "name a file that exists", "%spath %s does not exist, so it cannot be copied", r.where(in), quote(in.Path))
	case e.Kind != File:
		return r.notAFile(in, src, e)
	case e.Mode != ModeFile:
		return refusal.New(refusal.Unsupported, "propose the copy as a new file with its whole content", "%sthe copy of %s would have mode %s, and nika creates regular files only", r.where(in), quote(in.Path), e.Mode)
	}
	s, _, err := r.slotFor(in, in.To)
	if err != nil {
		return err
	}
	defer func() { s.last = in.Line }()
	if s.present {
		if s.n > 1 {
			return refusal.New(refusal.NotAllowed, "copy onto a path the proposal leaves free", "%ssection %d of %s copies %s onto it, but the section at line %d already writes it", r.where(in), s.n, quote(in.To), quote(in.Path), s.last)
		}
		return refusal.New(refusal.NotAllowed, "delete the destination in its own proposal first, or pick another name", "%scannot copy %s onto %s, which already exists", r.where(in), quote(in.Path), quote(in.To))
	}
	after, err := r.after(in, s, e.Bytes)
	if err != nil {
		return err
	}
	s.present, s.bytes = true, after
	return nil
}

// after computes the new bytes of an intent from the bytes the sections
// before it left (cur; nil when the file is absent).
func (r *resolver) after(in *Intent, s *slot, cur []byte) ([]byte, error) {
	switch {
	case in.Edit != nil:
		out, err := in.Edit.Apply(cur)
		if err != nil && s.worktree != nil && s.n == 1 && !s.fromDisk {
			// git's form refused the patch; git apply without --index
			// reads the working tree's form, where a patch whose lines
			// carry the disk's CRLF applies.
			if wout, werr := in.Edit.Apply(s.worktree); werr == nil {
				s.fromDisk = true
				return wout, nil
			}
		}
		if err != nil {
			var e *refusal.Error
			if !errors.As(err, &e) {
				e = &refusal.Error{Class: refusal.Invalid, Text: fmt.Sprintf("%s%s: %v", r.where(in), quote(in.Path), err), Hint: "rebuild the patch against the current file", Err: err}
				err = e
			}
			if s.n > 1 {
				e.Text += fmt.Sprintf(" (section %d for %s, applied to what the section at line %d left)", s.n, quote(string(s.path)), s.last)
			}
			return nil, err
		}
		return out, nil
	case in.Content != nil:
		return in.Content, nil
	case cur != nil:
		return cur, nil
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
