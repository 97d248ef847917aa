package consent

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage"
)

// A journal records one apply in .git/nika/journal/<id>.json, before its
// first write, with everything a later process needs to finish or undo it:
// the proposal's commit, base and branch, the lock files it holds (by
// inode, so that a lock another process took later is never removed), and
// each file's before and after side. The running apply holds an exclusive
// flock on the journal, so recovery can tell a live apply from a dead one.
type journal struct {
	Version int         `json:"version"`
	ID      string      `json:"id"`
	Commit  string      `json:"commit"`
	Base    string      `json:"base"`
	Branch  string      `json:"branch"`
	Goal    string      `json:"goal"`
	Locks   []lockStamp `json:"locks"`
	Ops     []jop       `json:"ops"`
	// Dirs are the directories the apply may create (version 2): an undo
	// removes those it finds empty.
	Dirs []string `json:"dirs,omitempty"`
}

type lockStamp struct {
	Path string `json:"path"` // relative to the common git dir or worktree git dir
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
}

type jside struct {
	Blob    string `json:"blob"`
	Witness string `json:"witness"` // of the bytes on disk (Side.OnDisk)
	Mode    string `json:"mode"`
	// Converted says git converts the path: the bytes on disk are git
	// checkout's conversion of the blob, not the blob's own.
	Converted bool `json:"converted,omitempty"`
}

type jop struct {
	Path   string `json:"path"`
	Before *jside `json:"before"`
	After  *jside `json:"after"`
	Temp   string `json:"temp"` // the op's temp file or removal backup
}

// recordTwin writes, beside the journal and before the branch moves to
// it, the commit an apply moves the branch to when it is not the
// proposal's own (a signed twin), so that recovery takes a branch at
// either commit for "applied".
func recordTwin(r *gitstage.Repo, id, commit string) error {
	path := filepath.Join(journalDir(r), id+".to")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(commit+"\n"), 0o644); err != nil {
		os.Remove(tmp)
		return ioErr("write the journal", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return ioErr("write the journal", err)
	}
	return nil
}

// twin reads what recordTwin wrote, "" when nothing.
func twin(r *gitstage.Repo, id string) string {
	b, err := os.ReadFile(filepath.Join(journalDir(r), id+".to"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func journalDir(r *gitstage.Repo) string { return filepath.Join(r.NikaDir(), "journal") }

func sideOf(s *changeset.Side) *jside {
	if s == nil {
		return nil
	}
	return &jside{Blob: s.Blob, Witness: s.OnDisk().String(), Mode: s.Mode.String(), Converted: s.Disk != nil}
}

// openJournal writes the journal and keeps it open under an exclusive
// flock for the life of the apply. The header is j (its Ops are not
// read); the ops are encoded one at a time from ops into a buffered
// writer, so that the journal of a large set costs its bytes on disk and
// no more than one op's encoding in memory. The file is the same JSON
// object that recovery decodes.
func openJournal(r *gitstage.Repo, j *journal, ops []op) (*os.File, error) {
	dir := journalDir(r)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, ioErr("create the journal directory", err)
	}
	path := filepath.Join(dir, j.ID+".json")
	tmp := path + ".tmp"
	if err := writeJournal(tmp, j, ops); err != nil {
		os.Remove(tmp)
		return nil, ioErr("write the journal", err)
	}
	f, err := os.Open(tmp)
	if err != nil {
		return nil, ioErr("open the journal", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, ioErr("lock the journal", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, ioErr("write the journal", err)
	}
	return f, nil
}

// journalHead is the journal's fields before its ops, in their order.
type journalHead struct {
	Version int         `json:"version"`
	ID      string      `json:"id"`
	Commit  string      `json:"commit"`
	Base    string      `json:"base"`
	Branch  string      `json:"branch"`
	Goal    string      `json:"goal"`
	Locks   []lockStamp `json:"locks"`
}

// writeJournal streams the journal of j's header and ops into a new file
// at path.
func writeJournal(path string, j *journal, ops []op) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	head, err := json.Marshal(journalHead{Version: j.Version, ID: j.ID, Commit: j.Commit, Base: j.Base, Branch: j.Branch, Goal: j.Goal, Locks: j.Locks})
	if err != nil {
		f.Close()
		return err
	}
	w.Write(head[:len(head)-1]) // the object stays open for the ops
	w.WriteString(`,"ops":[`)
	enc := json.NewEncoder(w) // each op, then a newline
	for i := range ops {
		if i > 0 {
			w.WriteByte(',')
		}
		if err := enc.Encode(jopOf(&ops[i])); err != nil {
			f.Close()
			return err
		}
	}
	w.WriteByte(']')
	if len(j.Dirs) > 0 {
		w.WriteString(`,"dirs":`)
		if err := enc.Encode(j.Dirs); err != nil {
			f.Close()
			return err
		}
	}
	w.WriteString("}\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// jopOf is op o as the journal records it.
func jopOf(o *op) jop {
	return jop{Path: string(o.path), Before: sideOf(o.before), After: sideOf(o.after), Temp: o.tmp}
}

// journalOps is the journal's ops of a transaction, for a rollback that
// settles the index from them.
func journalOps(ops []op) []jop {
	out := make([]jop, len(ops))
	for i := range ops {
		out[i] = jopOf(&ops[i])
	}
	return out
}

// closeJournal removes the journal of a finished (or rolled back) apply.
func closeJournal(r *gitstage.Repo, id string, f *os.File) {
	os.Remove(filepath.Join(journalDir(r), id+".to"))
	os.Remove(filepath.Join(journalDir(r), id+".json"))
	f.Close()
}

// stampLocks records the inode of each lock file the apply created.
func stampLocks(r *gitstage.Repo, paths []string) []lockStamp {
	var out []lockStamp
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			continue
		}
		rel := p
		if x, err := filepath.Rel(r.CommonDir, p); err == nil && !strings.HasPrefix(x, "..") {
			rel = "common:" + filepath.ToSlash(x)
		} else if x, err := filepath.Rel(r.GitDir, p); err == nil && !strings.HasPrefix(x, "..") {
			rel = "gitdir:" + filepath.ToSlash(x)
		}
		out = append(out, lockStamp{Path: rel, Dev: uint64(st.Dev), Ino: uint64(st.Ino)})
	}
	return out
}

func (l lockStamp) abs(r *gitstage.Repo) string {
	switch {
	case strings.HasPrefix(l.Path, "common:"):
		return filepath.Join(r.CommonDir, filepath.FromSlash(strings.TrimPrefix(l.Path, "common:")))
	case strings.HasPrefix(l.Path, "gitdir:"):
		return filepath.Join(r.GitDir, filepath.FromSlash(strings.TrimPrefix(l.Path, "gitdir:")))
	}
	return l.Path
}

// ours reports whether the lock file at l is still the one the journaled
// apply created.
func (l lockStamp) ours(r *gitstage.Repo) bool {
	fi, err := os.Lstat(l.abs(r))
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && uint64(st.Dev) == l.Dev && uint64(st.Ino) == l.Ino
}

// Interrupted lists the journals of applies that are not running: each is
// an apply a crash interrupted, which nika recover finishes or undoes.
func Interrupted(r *gitstage.Repo) ([]string, error) {
	ents, err := os.ReadDir(journalDir(r))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ioErr("read the journal directory", err)
	}
	var out []string
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		f, err := os.Open(filepath.Join(journalDir(r), e.Name()))
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			out = append(out, id)
		}
		f.Close()
	}
	return out, nil
}
