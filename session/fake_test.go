package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/nika-dev/nika/checker"
)

// fakeEngine is a project in memory: ids are hashes of the text.
type fakeEngine struct {
	state    map[string]string
	applies  []string
	discard  []string
	files    map[string]string
	run      *RunRequested
	clean    bool
	applyErr error
	lastRun  *RunRequested
	allowed  []string
	gates    map[GateID]*fakeGate
	trace    *RunFacts
}

type fakeGate struct {
	ask   GateAsk
	state string
}

func newFake() *fakeEngine {
	return &fakeEngine{state: map[string]string{}, files: map[string]string{}, clean: true, gates: map[GateID]*fakeGate{}}
}

func idOf(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}

func (f *fakeEngine) Propose(text string, run *RunRequested, allow []string) (Staged, error) {
	f.lastRun, f.allowed = run, allow
	if run != nil {
		text += "\x00run " + run.Workflow
	}
	id := idOf(text)
	if s, ok := f.state[id]; ok {
		return Staged{ID: id, Preview: "preview " + id[:12], State: s}, nil
	}
	f.state[id] = "pending"
	return Staged{ID: id, Preview: "preview " + id[:12], State: "pending"}, nil
}

func (f *fakeEngine) Apply(id string) (ApplyResult, error) {
	if f.applyErr != nil {
		return ApplyResult{}, f.applyErr
	}
	if f.state[id] != "pending" {
		return ApplyResult{}, Errorf(AlreadyConsumed, "proposal %s was already %s", id[:12], f.state[id])
	}
	f.state[id] = "applied"
	f.applies = append(f.applies, id)
	return ApplyResult{Applied: Applied{ID: id, Commit: strings.Repeat("c", 40), Clean: f.clean}, Run: f.run}, nil
}

func (f *fakeEngine) Discard(id string) error {
	if f.state[id] != "pending" {
		return Errorf(AlreadyConsumed, "proposal %s was already %s", id[:12], f.state[id])
	}
	f.state[id] = "discarded"
	f.discard = append(f.discard, id)
	return nil
}

func (f *fakeEngine) Snapshot() (Snapshot, error) {
	s := Snapshot{Root: "proj", Branch: "main", Head: strings.Repeat("a", 40)}
	for id, st := range f.state {
		if st == "pending" {
			s.Pending = append(s.Pending, Fact{ID: id, Goal: "goal", State: st})
		}
	}
	return s, nil
}

func (f *fakeEngine) Check(name string) (string, error) {
	if _, ok := f.files[name]; !ok {
		return "", Errorf(NotAllowed, "no workflow %s", name)
	}
	return name + ": clean\n", nil
}

func (f *fakeEngine) Lookup(id string) (string, string) {
	for full, st := range f.state {
		if strings.HasPrefix(full, id) {
			return full, st
		}
	}
	return "", ""
}

func (f *fakeEngine) Audit(p string, data []byte) checker.Report {
	return checker.CheckFS(fstest.MapFS{}, p, data)
}

func (f *fakeEngine) ReadNamed(p string) ([]byte, error) {
	s, ok := f.files[p]
	if !ok {
		return nil, Errorf(NotAllowed, "%s is not a workflow of the project", p)
	}
	return []byte(s), nil
}

// fakeReasoner records every bundle it receives.
type fakeReasoner struct {
	reply string
	err   error
	got   []Bundle
}

func (r *fakeReasoner) Where() string { return "a fake in the test" }
func (r *fakeReasoner) Reason(_ context.Context, b Bundle) (string, error) {
	r.got = append(r.got, b)
	return r.reply, r.err
}

func reply(path, body string) string {
	return fmt.Sprintf("```yaml path=%s\n%s```\n", path, body)
}

func (f *fakeEngine) Adopt(id string) (Proposal, error) {
	if f.state[id] != "pending" {
		return Proposal{}, Errorf(AlreadyConsumed, "proposal %s was already %s", id[:12], f.state[id])
	}
	return Proposal{ID: id, Preview: "preview " + id[:12]}, nil
}

func (f *fakeEngine) AskGate(g GateAsk) (string, error) {
	if old, ok := f.gates[g.ID]; ok {
		return old.state, nil
	}
	f.gates[g.ID] = &fakeGate{ask: g, state: GateWaiting}
	return GateWaiting, nil
}

func (f *fakeEngine) AnswerGate(id GateID) error {
	g, ok := f.gates[id]
	switch {
	case !ok:
		return Errorf(NotFound, "no gate %s", id)
	case g.state == GateAnswered:
		return Errorf(AlreadyConsumed, "the gate %s was already answered", id)
	}
	g.state = GateAnswered
	return nil
}

func (f *fakeEngine) Gate(id GateID) (GateAsk, string) {
	if g, ok := f.gates[id]; ok {
		return g.ask, g.state
	}
	return GateAsk{}, ""
}

func (f *fakeEngine) Gates() ([]GateAsk, error) {
	var out []GateAsk
	for _, g := range f.gates {
		if g.state == GateWaiting {
			out = append(out, g.ask)
		}
	}
	return out, nil
}

func (f *fakeEngine) LastRun() (*RunFacts, error) { return f.trace, nil }
