package gitstage

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// BlobHash is git's object id of a blob holding b.
func BlobHash(b []byte) plumbing.Hash { return plumbing.ComputeHash(plumbing.BlobObject, b) }

// readObject returns an object's bytes: through odb (mapped pack indexes,
// loose files), or through go-git when odb steps aside (alternates, a
// version 1 pack index).
func (r *Repo) readObject(t plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	got, data, ok, err := r.objects().read(h)
	if ok {
		if err != nil {
			if errors.Is(err, errNoObject) {
				err = plumbing.ErrObjectNotFound
			}
			return nil, err
		}
		if got != t {
			return nil, fmt.Errorf("%w: %s is a %s, not a %s", plumbing.ErrObjectNotFound, h, got, t)
		}
		return data, nil
	}
	obj, err := r.store.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	buf := bytes.NewBuffer(make([]byte, 0, obj.Size()))
	if _, err := io.Copy(buf, rd); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReadBlob returns a blob's bytes.
func (r *Repo) ReadBlob(h plumbing.Hash) ([]byte, error) {
	b, err := r.readObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, missingObject("blob", h, err)
	}
	return b, nil
}

// memObject wraps bytes read by odb for go-git's decoders.
func memObject(t plumbing.ObjectType, b []byte) plumbing.EncodedObject {
	o := &plumbing.MemoryObject{}
	o.SetType(t)
	o.Write(b)
	return o
}

// treeDecodes counts tree decodes, for the test that proves staging
// decodes only the trees on changed paths.
var treeDecodes atomic.Int64

// Tree decodes a tree object.
func (r *Repo) Tree(h plumbing.Hash) (*object.Tree, error) {
	treeDecodes.Add(1)
	b, err := r.readObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, missingObject("tree", h, err)
	}
	t := &object.Tree{}
	if err := t.Decode(memObject(plumbing.TreeObject, b)); err != nil {
		return nil, missingObject("tree", h, err)
	}
	t.Hash = h
	return t, nil
}

// commitDecodes counts commit decodes, for the test that proves a range
// walk stops near the range.
var commitDecodes atomic.Int64

// Commit decodes a commit object.
func (r *Repo) Commit(h plumbing.Hash) (*object.Commit, error) {
	commitDecodes.Add(1)
	b, err := r.readObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, missingObject("commit", h, err)
	}
	c := &object.Commit{}
	if err := c.Decode(memObject(plumbing.CommitObject, b)); err != nil {
		return nil, missingObject("commit", h, err)
	}
	c.Hash = h
	return c, nil
}

// HasObject reports whether the object database holds h.
func (r *Repo) HasObject(h plumbing.Hash) bool {
	if found, ok := r.objects().has(h); ok {
		return found
	}
	return r.store.HasEncodedObject(h) == nil
}

// WriteBlob stores b as a loose blob unless it already exists.
func (r *Repo) WriteBlob(b []byte) (plumbing.Hash, error) {
	h := BlobHash(b)
	if r.HasObject(h) {
		return h, nil
	}
	if err := r.writeLoose(plumbing.BlobObject, h, b); err != nil {
		return h, ioRefusal("write a blob", err)
	}
	return h, nil
}

func (r *Repo) writeObject(o interface {
	Encode(plumbing.EncodedObject) error
}) (plumbing.Hash, error) {
	obj := &plumbing.MemoryObject{}
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, refusal.New(refusal.Internal, "", "encode an object: %v", err)
	}
	h := obj.Hash()
	if r.HasObject(h) {
		return h, nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return h, ioRefusal("write an object", err)
	}
	data, err := io.ReadAll(rd)
	if err != nil {
		return h, ioRefusal("write an object", err)
	}
	if err := r.writeLoose(obj.Type(), h, data); err != nil {
		return h, ioRefusal("write an object", err)
	}
	return h, nil
}

// zwriters pools level-1 zlib writers (git's core.looseCompression
// default).
var zwriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
	return w
}}

// writeLoose writes one loose object the way git does: deflated at level
// 1 into a temp file in its fan-out directory, then linked to its name
// (renamed where the filesystem has no hard links); an object that appears
// meanwhile is left as it is, since its bytes are the same. With fsync
// asked (core.fsync, core.fsyncMethod, core.fsyncObjectFiles), the file is
// synced before the link and the directory after it.
func (r *Repo) writeLoose(t plumbing.ObjectType, h plumbing.Hash, data []byte) error {
	hex := h.String()
	dir := filepath.Join(r.CommonDir, "objects", hex[:2])
	final := filepath.Join(dir, hex[2:])
	var buf bytes.Buffer
	buf.Grow(len(data)/2 + 64)
	zw := zwriters.Get().(*zlib.Writer)
	zw.Reset(&buf)
	hdr := t.String() + " " + strconv.Itoa(len(data)) + "\x00"
	zw.Write([]byte(hdr))
	zw.Write(data)
	err := zw.Close()
	zwriters.Put(zw)
	if err != nil {
		return err
	}
	f, tmp, err := looseTemp(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		f, tmp, err = looseTemp(dir)
	}
	if err != nil {
		return err
	}
	sync := r.syncObjects()
	_, err = f.Write(buf.Bytes())
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Link(tmp, final); err != nil {
		if errors.Is(err, fs.ErrExist) {
			os.Remove(tmp)
			return nil
		}
		if rerr := os.Rename(tmp, final); rerr != nil {
			os.Remove(tmp)
			return rerr
		}
	} else {
		os.Remove(tmp)
	}
	if sync {
		return syncDir(dir)
	}
	return nil
}

func looseTemp(dir string) (*os.File, string, error) {
	for i := 0; ; i++ {
		tmp := filepath.Join(dir, "tmp_obj_"+strconv.FormatUint(tempSeq(), 36))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if err == nil {
			return f, tmp, nil
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return nil, "", err
		}
	}
}

var (
	tempMu  sync.Mutex
	tempCtr uint64
)

func tempSeq() uint64 {
	tempMu.Lock()
	defer tempMu.Unlock()
	tempCtr++
	return uint64(os.Getpid())<<32 ^ tempCtr*0x9e3779b97f4a7c15
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// syncObjects reports whether git's configuration asks to fsync loose
// objects: core.fsyncObjectFiles, core.fsync naming loose objects (or a
// group that holds them), or any core.fsyncMethod (as nika apply reads it).
func (r *Repo) syncObjects() bool {
	if r.Config.Bool("core.fsyncObjectFiles", false) {
		return true
	}
	if _, ok := r.Config.Get("core.fsyncMethod"); ok {
		return true
	}
	v, ok := r.Config.Get("core.fsync")
	if !ok {
		return false
	}
	on := false
	for _, c := range strings.Split(v, ",") {
		switch strings.TrimSpace(strings.ToLower(c)) {
		case "loose-object", "objects", "committed", "added", "all":
			on = true
		case "-loose-object", "-objects", "-committed", "-added", "-all", "none":
			on = false
		}
	}
	return on
}

func missingObject(kind string, h plumbing.Hash, err error) error {
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return &refusal.Error{Class: refusal.NotFound, Err: err,
			Text: fmt.Sprintf("the %s %s is missing from the object database (pruned by git gc, or a shallow clone)", kind, h),
			Hint: "in a shallow clone, fetch more history", Fix: refusal.Repropose}
	}
	return &refusal.Error{Class: refusal.Io, Err: err, Text: fmt.Sprintf("could not read the %s %s: %v", kind, h, err), Hint: "run git fsck to check the repository"}
}

// modeOf converts a git tree mode.
func modeOf(m filemode.FileMode) changeset.Mode { return changeset.Mode(m) }

// SyncWanted reports whether git's configuration asks for durability at all
// (core.fsync, core.fsyncMethod or core.fsyncObjectFiles): the apply then
// fsyncs each file and directory before the branch moves. By default, as
// in git, nothing is fsynced.
func (r *Repo) SyncWanted() bool {
	_, a := r.Config.Get("core.fsync")
	_, b := r.Config.Get("core.fsyncMethod")
	return a || b || r.Config.Bool("core.fsyncObjectFiles", false)
}
