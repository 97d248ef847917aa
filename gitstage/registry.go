package gitstage

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// State is where a proposal is in its life.
type State string

const (
	Pending   State = "pending"
	Applied   State = "applied"
	Discarded State = "discarded"
)

// Record is one proposal in the registry under .git/nika/proposals/. The
// commit holds the content; the record holds what git cannot: the branch it
// was built for, and its state.
type Record struct {
	ID      string `json:"id"`
	Commit  string `json:"commit"`
	Base    string `json:"base"`
	Branch  string `json:"branch"`
	Goal    string `json:"goal"`
	State   State  `json:"state"`
	Created int64  `json:"created"`
	Decided int64  `json:"decided,omitempty"`
	// Applied is the commit the branch moved to, when it is not the
	// proposal commit: its signed twin (see Landed).
	Applied string `json:"applied,omitempty"`
	// Notes is what the door showed beside the preview that git cannot
	// re-derive (the fix ladder's repairs), opaque to gitstage.
	Notes json.RawMessage `json:"notes,omitempty"`
	// Feedback is what the human said about the proposal and how part of
	// it was taken, kept for the model; nil when there is none.
	Feedback *Feedback `json:"feedback,omitempty"`
	// Checkout is the disk form of each side that git converts between
	// the working tree and the commit (line endings, an encoding, a
	// filter), as the preview showed it (checkout_record.go).
	Checkout []CheckoutSide `json:"checkout,omitempty"`
}

// Feedback is the human's word on a proposal, kept small: the comments
// (already redacted of secrets by the caller) and, for a proposal taken in
// part, which derived proposal holds the part and what it left out. The
// decision itself is the record's state and these links.
type Feedback struct {
	Comments []Comment `json:"comments,omitempty"`
	// From is, on a derived proposal, the proposal it was derived from.
	From string `json:"from,omitempty"`
	// Dropped is, on a derived proposal, what it leaves out of From: a
	// path for a whole file, PATH:N for one hunk.
	Dropped []string `json:"dropped,omitempty"`
	// Part is, on a proposal taken in part, the derived proposal that was
	// applied.
	Part string `json:"part,omitempty"`
	// At is when the feedback last changed (Unix nanoseconds), for the
	// order in which the model is told.
	At int64 `json:"at,omitempty"`
}

// Comment is one comment of the human's: on the proposal (On empty), on a
// file (On is its path), or on a hunk (On is PATH:N).
type Comment struct {
	On   string `json:"on,omitempty"`
	Text string `json:"text"`
}

// Landed is the commit an applied proposal landed as: its signed twin when
// git's configuration signed it, else the proposal commit.
func (rec *Record) Landed() string {
	if rec.State == Applied && rec.Applied != "" {
		return rec.Applied
	}
	return rec.Commit
}

func (r *Repo) registryDir() string { return filepath.Join(r.NikaDir(), "proposals") }

// Register records a new pending proposal.
func (r *Repo) Register(p *changeset.Proposal, notes json.RawMessage) (*Record, error) {
	rec := &Record{ID: p.ID, Commit: p.Commit, Base: p.Set.Base, Branch: p.Set.Branch, Goal: p.Set.Goal, State: Pending, Created: time.Now().Unix(), Notes: notes, Checkout: CheckoutOf(p)}
	if old, err := r.readRecord(p.ID); err == nil {
		// The same proposal again: the id binds the same bytes and base.
		// Keep its state; a consumed proposal stays consumed.
		return old, nil
	}
	return rec, r.SaveRecord(rec)
}

// SaveRecord writes a record through a temp file and a rename.
func (r *Repo) SaveRecord(rec *Record) error {
	dir := r.registryDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ioRefusal("create the registry", err)
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	return writeFileAtomic(filepath.Join(dir, rec.ID+".json"), append(b, '\n'))
}

// Record reads the record of a full id; it is nil, with no error, when the
// registry holds none.
func (r *Repo) Record(id string) (*Record, error) {
	rec, err := r.readRecord(id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return rec, err
}

func (r *Repo) readRecord(id string) (*Record, error) {
	b, err := os.ReadFile(filepath.Join(r.registryDir(), id+".json"))
	if err != nil {
		return nil, err
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, refusal.New(refusal.Internal, "remove the file to forget the proposal", "the registry record %s is corrupt: %v", id, err)
	}
	return &rec, nil
}

// Records lists every proposal, newest first.
func (r *Repo) Records() ([]*Record, error) {
	ents, err := os.ReadDir(r.registryDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ioRefusal("read the registry", err)
	}
	var out []*Record
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || len(id) != 64 {
			continue
		}
		rec, err := r.readRecord(id)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Created != out[j].Created {
			return out[i].Created > out[j].Created
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// MinPrefix is the shortest id prefix nika accepts.
const MinPrefix = 8

// Find resolves an id or a unique prefix of at least MinPrefix characters.
func (r *Repo) Find(prefix string) (*Record, error) {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	if len(prefix) < MinPrefix || strings.Trim(prefix, "0123456789abcdef") != "" {
		return nil, refusal.New(refusal.Invalid, "give at least 8 hex characters of the id",
			"%q is not a proposal id or a prefix of at least %d hex characters", prefix, MinPrefix).WithFix(refusal.ListProposals, "")
	}
	if len(prefix) == 64 {
		if rec, err := r.readRecord(prefix); err == nil {
			return rec, nil
		}
	}
	// Names only: a record is read once its name matches.
	ents, err := os.ReadDir(r.registryDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, ioRefusal("read the registry", err)
	}
	var hits []*Record
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || len(id) != 64 || !strings.HasPrefix(id, prefix) {
			continue
		}
		rec, err := r.readRecord(id)
		if err != nil {
			return nil, err
		}
		hits = append(hits, rec)
	}
	switch len(hits) {
	case 0:
		return nil, refusal.New(refusal.NotFound, "", "no proposal has the id %s", prefix).WithFix(refusal.ListProposals, "")
	case 1:
		return hits[0], nil
	}
	return nil, refusal.New(refusal.Ambiguous, "give more characters of the id", "%d proposals start with %s", len(hits), prefix)
}

// writeFileAtomic writes through a temp file in the same directory and a
// rename, so readers see the old or the new bytes.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return ioRefusal("write "+filepath.Base(path), err)
	}
	name := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(name)
		return ioRefusal("write "+filepath.Base(path), err)
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return ioRefusal("write "+filepath.Base(path), err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return ioRefusal("write "+filepath.Base(path), err)
	}
	return nil
}
