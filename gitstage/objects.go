package gitstage

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/nika-dev/nika/changeset"
)

// BlobHash is git's object id of a blob holding b.
func BlobHash(b []byte) plumbing.Hash { return plumbing.ComputeHash(plumbing.BlobObject, b) }

// ReadBlob returns a blob's bytes.
func (r *Repo) ReadBlob(h plumbing.Hash) ([]byte, error) {
	obj, err := r.store.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, missingObject("blob", h, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, missingObject("blob", h, err)
	}
	defer rd.Close()
	b := make([]byte, 0, obj.Size())
	buf := bytes.NewBuffer(b)
	if _, err := io.Copy(buf, rd); err != nil {
		return nil, missingObject("blob", h, err)
	}
	return buf.Bytes(), nil
}

// WriteBlob stores b as a loose blob unless it already exists.
func (r *Repo) WriteBlob(b []byte) (plumbing.Hash, error) {
	h := BlobHash(b)
	if r.store.HasEncodedObject(h) == nil {
		return h, nil
	}
	obj := r.store.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(b)))
	w, err := obj.Writer()
	if err != nil {
		return h, ioRefusal("write a blob", err)
	}
	if _, err := w.Write(b); err != nil {
		return h, ioRefusal("write a blob", err)
	}
	w.Close()
	got, err := r.store.SetEncodedObject(obj)
	if err != nil {
		return h, ioRefusal("write a blob", err)
	}
	if got != h {
		return h, changeset.Refuse(changeset.Internal, "", "blob hash mismatch: %s != %s", got, h)
	}
	return h, nil
}

// Tree decodes a tree object.
func (r *Repo) Tree(h plumbing.Hash) (*object.Tree, error) {
	t, err := object.GetTree(r.store, h)
	if err != nil {
		return nil, missingObject("tree", h, err)
	}
	return t, nil
}

// Commit decodes a commit object.
func (r *Repo) Commit(h plumbing.Hash) (*object.Commit, error) {
	c, err := object.GetCommit(r.store, h)
	if err != nil {
		return nil, missingObject("commit", h, err)
	}
	return c, nil
}

// HasObject reports whether the object database holds h.
func (r *Repo) HasObject(h plumbing.Hash) bool { return r.store.HasEncodedObject(h) == nil }

func (r *Repo) writeObject(o interface {
	Encode(plumbing.EncodedObject) error
}) (plumbing.Hash, error) {
	obj := r.store.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, changeset.Refuse(changeset.Internal, "", "encode an object: %v", err)
	}
	h := obj.Hash()
	if r.store.HasEncodedObject(h) == nil {
		return h, nil
	}
	if _, err := r.store.SetEncodedObject(obj); err != nil {
		return h, ioRefusal("write an object", err)
	}
	return h, nil
}

func missingObject(kind string, h plumbing.Hash, err error) error {
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return &changeset.Error{Class: changeset.NotFound, Err: err,
			Text: fmt.Sprintf("the %s %s is missing from the object database (pruned by git gc, or a shallow clone)", kind, h),
			Hint: "rebuild the preview with nika propose; in a shallow clone, fetch more history"}
	}
	return &changeset.Error{Class: changeset.Io, Err: err, Text: fmt.Sprintf("could not read the %s %s: %v", kind, h, err), Hint: "run git fsck to check the repository"}
}

// modeOf converts a git tree mode.
func modeOf(m filemode.FileMode) changeset.Mode { return changeset.Mode(m) }
