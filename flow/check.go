package flow

import (
	"bytes"
	"io/fs"
	"path"
	"sort"
	"time"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/gitstage"
)

// Checked is what Check found: the proposal that Propose would stage from
// the same input, judged, and staged nowhere.
type Checked struct {
	Format    string
	Base      string // the base commit, "" when HEAD is unborn
	Branch    string // the full ref, "" when detached
	Goal      string
	Changes   []changeset.Change // sorted by path; After.Blob is the blob id the bytes would get
	Unchanged []changeset.Path
	Repairs   map[changeset.Path][]checker.RepairStep
	Notes     []string         // the fix ladder's notes
	Audits    []checker.Report // the checker on every workflow and project file written, sorted by path
}

// Empty reports that the input would propose nothing.
func (c *Checked) Empty() bool { return len(c.Changes) == 0 }

// Clean reports that no audit has an error-severity finding.
func (c *Checked) Clean() bool {
	for _, a := range c.Audits {
		if !a.Clean() {
			return false
		}
	}
	return true
}

// Check is Propose without the staging: it parses the input, resolves it
// against HEAD with the same policy, runs the fix ladder's prepass, and
// audits the resolved bytes with the checker over the tree the proposal
// would have (HEAD's tree with the changes laid over it), exactly as the
// preview audits a staged proposal. It writes nothing: no object, no
// record. Its refusals are Propose's, from the same code path.
func Check(repo *Repo, in ProposeInput) (*Checked, error) {
	draft, err := Parse(in.Input, in.Format, in.MaxInput)
	if err != nil {
		return nil, err
	}
	pr, err := prepare(repo, draft, in)
	if err != nil {
		return nil, err
	}
	out := &Checked{Format: pr.out.Format, Unchanged: pr.out.Unchanged, Repairs: pr.out.Repairs, Notes: pr.out.Notes}
	if pr.set == nil {
		return out, nil
	}
	set := pr.set
	out.Base, out.Branch, out.Goal = set.Base, set.Branch, set.Goal
	out.Changes = append([]changeset.Change(nil), set.Changes...)
	sort.Slice(out.Changes, func(i, j int) bool { return out.Changes[i].Path < out.Changes[j].Path })
	for i := range out.Changes {
		c := &out.Changes[i]
		if c.After != nil && c.After.Blob == "" {
			after := *c.After
			after.Blob = gitstage.BlobHash(after.Bytes).String()
			c.After = &after
		}
	}
	fsys, err := wouldBeFS(repo.g, pr.base, out.Changes)
	if err != nil {
		return nil, err
	}
	for _, c := range out.Changes {
		if c.After != nil && c.Class.Audited() {
			out.Audits = append(out.Audits, checker.CheckFS(fsys, string(c.Path), c.After.Bytes))
		}
	}
	return out, nil
}

// wouldBeFS is the file system of the tree a set would have once staged:
// HEAD's tree (read from git objects, as ProposalFS reads a proposal's),
// with the set's after-bytes over it and its deleted and moved-away paths
// gone. It is what ProposalFS shows for the staged proposal, without
// writing a blob.
func wouldBeFS(r *gitstage.Repo, base *gitstage.Base, cs []changeset.Change) (fs.FS, error) {
	tree := ""
	if !base.Head.Unborn() {
		c, err := r.Commit(base.Head.Commit)
		if err != nil {
			return nil, err
		}
		tree = c.TreeHash.String()
	}
	o := &overlayFS{base: r.TreeFS(tree), files: map[string][]byte{}, gone: map[string]bool{}}
	for _, c := range cs {
		if c.Kind == changeset.Move {
			o.gone[string(c.From)] = true
		}
		if c.After != nil {
			o.files[string(c.Path)] = c.After.Bytes
			delete(o.gone, string(c.Path))
		} else {
			o.gone[string(c.Path)] = true
		}
	}
	return o, nil
}

// overlayFS lays a set's files over a tree. The checker reads files with
// fs.ReadFile; directories are the base tree's.
type overlayFS struct {
	base  fs.FS
	files map[string][]byte
	gone  map[string]bool
}

var _ fs.ReadFileFS = (*overlayFS)(nil)

func (o *overlayFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	if b, ok := o.files[name]; ok {
		return append([]byte(nil), b...), nil
	}
	if o.gone[name] {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return fs.ReadFile(o.base, name)
}

func (o *overlayFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if b, ok := o.files[name]; ok {
		return &memFile{name: path.Base(name), r: bytes.NewReader(b), size: int64(len(b))}, nil
	}
	if o.gone[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return o.base.Open(name)
}

// memFile is an overlaid file opened for reading.
type memFile struct {
	name string
	r    *bytes.Reader
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.name, f.size}, nil }
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
