package gitstage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nika-dev/nika/refusal"
)

// The registry remembers the human gates of runs as it remembers
// proposals: a run that paused on a gate (nika:prompt) has an identity,
// its trace and its task, and the human answers it once. The record lives
// under .git/nika/gates/, so a session that reconnects (a host that starts
// nika serve --stdio again) knows which gates wait and which were
// answered: a repeated observation of an answered gate never arms it
// again, and a repeated answer is AlreadyConsumed, whatever process gives
// it.
//
// The answer is claimed by creating <key>.answered with O_CREAT|O_EXCL,
// so that of two processes answering the same gate at once exactly one
// wins; the record is then rewritten (temp file and rename) to say so.
// The answer itself is not kept: it is the human's line, and it goes to
// the resume only.

// Gate states.
const (
	GateWaiting  = "waiting"
	GateAnswered = "answered"
)

// GateRecord is one gate of a run.
type GateRecord struct {
	Trace    string `json:"trace"`
	Task     string `json:"task"`
	Question string `json:"question"`
	State    string `json:"state"`
	Asked    int64  `json:"asked"`
	Answered int64  `json:"answered,omitempty"`
}

// MaxGateName bounds a trace id or a task id.
const MaxGateName = 256

func (r *Repo) gatesDir() string { return filepath.Join(r.NikaDir(), "gates") }

func gateKey(trace, task string) string {
	h := sha256.Sum256([]byte(trace + "\x00" + task))
	return hex.EncodeToString(h[:])
}

func checkGateName(what, s string) error {
	switch {
	case s == "":
		return refusal.New(refusal.Invalid, "", "a gate needs its %s id, and it is empty", what)
	case len(s) > MaxGateName:
		return refusal.New(refusal.TooLarge, "", "the gate's %s id is longer than %d bytes", what, MaxGateName)
	case strings.ContainsAny(s, "\x00\n\r"):
		return refusal.New(refusal.Invalid, "", "the gate's %s id holds a control character", what)
	}
	return nil
}

// AskGate records that a run waits at a gate, and returns the gate's
// record. A gate the registry already knows keeps its record: an answered
// gate stays answered, whatever a later observation says.
func (r *Repo) AskGate(trace, task, question string) (*GateRecord, error) {
	if err := checkGateName("trace", trace); err != nil {
		return nil, err
	}
	if err := checkGateName("task", task); err != nil {
		return nil, err
	}
	if rec, err := r.FindGate(trace, task); err == nil {
		return rec, nil
	} else if refusal.ClassOf(err) != refusal.NotFound {
		return nil, err
	}
	rec := &GateRecord{Trace: trace, Task: task, Question: question, State: GateWaiting, Asked: time.Now().Unix()}
	if err := r.saveGate(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// AnswerGate claims a waiting gate for the human's answer, once. A gate
// already answered is AlreadyConsumed; a gate the registry never saw is
// NotFound.
func (r *Repo) AnswerGate(trace, task string) (*GateRecord, error) {
	rec, err := r.FindGate(trace, task)
	if err != nil {
		return nil, err
	}
	if rec.State == GateAnswered {
		return nil, refusal.New(refusal.AlreadyConsumed, "", "the gate %s/%s was already answered", trace, task)
	}
	marker := filepath.Join(r.gatesDir(), gateKey(trace, task)+".answered")
	f, err := os.OpenFile(marker, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, refusal.New(refusal.AlreadyConsumed, "", "the gate %s/%s was already answered", trace, task)
	}
	if err != nil {
		return nil, ioRefusal("record the answer to a gate", err)
	}
	if err := f.Close(); err != nil {
		return nil, ioRefusal("record the answer to a gate", err)
	}
	rec.State, rec.Answered = GateAnswered, time.Now().Unix()
	if err := r.saveGate(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// FindGate reads a gate's record; NotFound when the registry never saw it.
func (r *Repo) FindGate(trace, task string) (*GateRecord, error) {
	key := gateKey(trace, task)
	b, err := os.ReadFile(filepath.Join(r.gatesDir(), key+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, refusal.New(refusal.NotFound, "", "no run waits at the gate %s/%s", trace, task)
	}
	if err != nil {
		return nil, ioRefusal("read the gates", err)
	}
	var rec GateRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Trace != trace || rec.Task != task {
		return nil, refusal.New(refusal.Internal, "remove the file to forget the gate", "the gate record %s is corrupt", key)
	}
	// The marker is the truth: a process that died between the claim and
	// the rewrite of the record still answered the gate.
	if _, err := os.Lstat(filepath.Join(r.gatesDir(), key+".answered")); err == nil {
		rec.State = GateAnswered
	}
	return &rec, nil
}

// Gates lists every gate the registry knows, oldest first.
func (r *Repo) Gates() ([]*GateRecord, error) {
	ents, err := os.ReadDir(r.gatesDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ioRefusal("read the gates", err)
	}
	var out []*GateRecord
	for _, e := range ents {
		key, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || len(key) != 64 {
			continue
		}
		b, err := os.ReadFile(filepath.Join(r.gatesDir(), e.Name()))
		if err != nil {
			return nil, ioRefusal("read the gates", err)
		}
		var rec GateRecord
		if json.Unmarshal(b, &rec) != nil || gateKey(rec.Trace, rec.Task) != key {
			continue
		}
		full, err := r.FindGate(rec.Trace, rec.Task)
		if err != nil {
			return nil, err
		}
		out = append(out, full)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Asked != out[j].Asked {
			return out[i].Asked < out[j].Asked
		}
		return gateKey(out[i].Trace, out[i].Task) < gateKey(out[j].Trace, out[j].Task)
	})
	return out, nil
}

func (r *Repo) saveGate(rec *GateRecord) error {
	dir := r.gatesDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ioRefusal("create the gates registry", err)
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	return writeFileAtomic(filepath.Join(dir, gateKey(rec.Trace, rec.Task)+".json"), append(b, '\n'))
}
