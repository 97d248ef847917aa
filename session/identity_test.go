package session

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nika-dev/nika/refusal"
)

// TestGateNeverReArmed: a gate answered once is not asked again by a
// repeated observation, in the same session or in a session that
// reopens over the same registry (a host that reconnected); a repeated
// answer is AlreadyConsumed; the runner resumes once.
func TestGateNeverReArmed(t *testing.T) {
	eng := newFake()
	m := newMachine(t, eng, nil)
	if got := summary(m.ObserveRun(4, gateG)); got != "GateAsk:approve" {
		t.Fatal(got)
	}
	if got := summary(m.ObserveRun(4, gateG)); got != "GateAsk:approve" {
		t.Fatalf("the same gate observed twice while it waits: %s", got)
	}
	if got := summary(m.AnswerGateFor(gidG, "ship it")); got != "Resume:approve" {
		t.Fatal(got)
	}
	for _, c := range []func() []Outcome{
		func() []Outcome { return m.ObserveRun(4, gateG) },
		func() []Outcome { return m.AnswerGateFor(gidG, "again") },
		func() []Outcome { return m.AnswerGate("again") },
	} {
		if got := summary(c()); got != "Refusal:AlreadyConsumed" {
			t.Errorf("in the same session: %s", got)
		}
	}
	m2 := newMachine(t, eng, nil) // the host reconnected
	if got := summary(m2.ObserveRun(4, gateG)); got != "Refusal:AlreadyConsumed" {
		t.Errorf("re-observed after a reconnect: %s", got)
	}
	if got := summary(m2.AnswerGateFor(gidG, "again")); got != "Refusal:AlreadyConsumed" {
		t.Errorf("answered again after a reconnect: %s", got)
	}
	if m2.gate != nil {
		t.Fatal("a gate was re-armed")
	}
}

// TestGateAnsweredAfterReconnect: a gate asked before a reconnect still
// waits in the registry, and the new session answers it by its id, once.
func TestGateAnsweredAfterReconnect(t *testing.T) {
	eng := newFake()
	newMachine(t, eng, nil).ObserveRun(4, gateG)
	m2 := newMachine(t, eng, nil)
	if got := summary(m2.AnswerGateFor(gidG, "")); got != "Refusal:EmptyAnswer" {
		t.Fatal(got)
	}
	if got := summary(m2.AnswerGateFor(gidG, "yes please")); got != "Resume:approve" {
		t.Fatal(got)
	}
	m3 := newMachine(t, eng, nil)
	if got := summary(m3.AnswerGateFor(gidG, "yes please")); got != "Refusal:AlreadyConsumed" {
		t.Fatal(got)
	}
	if got := summary(m3.AnswerGateFor(GateID{Trace: "tr-x", Task: "t"}, "go")); got != "Refusal:WrongState" {
		t.Fatal(got)
	}
}

// TestConsentAfterReconnect: a proposal pending in the registry is
// consented by its id in a new session: adopted (loaded and checked),
// then applied once; a repeat is AlreadyConsumed.
func TestConsentAfterReconnect(t *testing.T) {
	eng := newFake()
	newMachine(t, eng, nil).Turn(pasteP)
	m2 := newMachine(t, eng, nil)
	if got := summary(m2.Consent("yes")); got != "Refusal:WrongState" {
		t.Fatalf("a consent without an id adopts nothing: %s", got)
	}
	if got := summary(m2.ConsentTo(idP[:12], "")); got != "Refusal:EmptyAnswer" {
		t.Fatal(got)
	}
	if got := summary(m2.ConsentTo(idP[:12], "yes")); got != "Applied:P" {
		t.Fatal(got)
	}
	if got := summary(newMachine(t, eng, nil).ConsentTo(idP, "yes")); got != "Refusal:AlreadyConsumed" {
		t.Fatal(got)
	}
	if len(eng.applies) != 1 {
		t.Fatalf("%d applies", len(eng.applies))
	}
	// declined after a reconnect: discarded, once
	newMachine(t, eng, nil).Turn(pasteQ)
	if got := summary(newMachine(t, eng, nil).ConsentTo(idQ, "no")); got != "Discarded:Q" {
		t.Fatal(got)
	}
	if eng.state[idQ] != "discarded" {
		t.Fatal(eng.state[idQ])
	}
}

// TestAllow: /allow keeps supporting files for the proposals that follow;
// the preview and the proposal say so; /allow alone lists them; bad
// paths are refused.
func TestAllow(t *testing.T) {
	eng := newFake()
	m := newMachine(t, eng, nil)
	if a := m.Turn("/allow")[0].(Answer); !strings.Contains(a.Text, "allows no supporting file") {
		t.Fatal(a.Text)
	}
	if got := summary(m.Turn("/allow docs/notes.md 'x' ./scripts/*.sh")); got != "Answer" {
		t.Fatal(got)
	}
	if got := m.Allowed(); strings.Join(got, " ") != "docs/notes.md x scripts/*.sh" {
		t.Fatal(got)
	}
	for _, bad := range []string{"/allow /etc/passwd", "/allow ../up.txt", "/allow a/../../b"} {
		if got := summary(m.Turn(bad)); !strings.HasPrefix(got, "Refusal:") {
			t.Errorf("%s: %s", bad, got)
		}
	}
	out := m.Turn(pasteP)
	p := out[len(out)-1].(Proposal)
	if strings.Join(p.Allowed, " ") != "docs/notes.md x scripts/*.sh" || !strings.Contains(p.Preview, "allowed in this session (/allow): docs/notes.md") {
		t.Fatalf("%+v", p)
	}
	if strings.Join(eng.allowed, " ") != "docs/notes.md x scripts/*.sh" {
		t.Fatalf("the engine was given %v", eng.allowed)
	}
	if a := m.Turn("/allow")[0].(Answer); !strings.Contains(a.Text, "docs/notes.md, x, scripts/*.sh") {
		t.Fatal(a.Text)
	}
}

// TestRefusedCarriesTheFix: a refusal of the rooms reaches the door with
// its class, its text and door-neutral hint, and its Fix and Subject
// unchanged. The session words no fix itself: each door does
// (package doorwords), so no CLI flag can reach a human here.
func TestRefusedCarriesTheFix(t *testing.T) {
	err := refusal.New(NotAllowed, "", "path %q is a supporting file that you did not allow", "docs/x.md").WithFix(refusal.AllowFile, "docs/x.md")
	r := Refused(fmt.Errorf("the turn: %w", err))
	if want := (Refusal{Class: NotAllowed, Text: `path "docs/x.md" is a supporting file that you did not allow`, Fix: refusal.AllowFile, Subject: "docs/x.md"}); r != want {
		t.Fatalf("Refused = %+v, want %+v", r, want)
	}
	r = Refused(refusal.New(StaleRevision, "look at what moved it", "the project changed").WithFix(refusal.Repropose, "abc"))
	if want := (Refusal{Class: StaleRevision, Text: "the project changed · look at what moved it", Fix: refusal.Repropose, Subject: "abc"}); r != want {
		t.Fatalf("Refused = %+v, want %+v", r, want)
	}
	r = Refused(errors.New("boom"))
	if want := (Refusal{Class: Internal, Text: "boom"}); r != want {
		t.Fatalf("Refused = %+v, want %+v", r, want)
	}
}

// TestFactsWithoutAModel: builtins, providers and the last run answer
// with no intelligence.
func TestFactsWithoutAModel(t *testing.T) {
	eng := newFake()
	m := newMachine(t, eng, nil)
	b := m.Turn("/builtins")[0].(Builtins)
	if len(b.Builtins) < 10 || !strings.Contains(b.Text(), "nika:read") {
		t.Fatal(b)
	}
	p := m.Turn("/providers")[0].(Providers)
	if !strings.Contains(strings.Join(p.Providers, " "), "openai") {
		t.Fatal(p)
	}
	if l := m.Turn("/last-run")[0].(LastRun); l.Run != nil || !strings.Contains(l.Text(), "no run has left a trace") {
		t.Fatal(l)
	}
	eng.trace = &RunFacts{Trace: ".nika/traces/x.ndjson", Workflow: "daily", Status: "completed", Chain: "intact", Tasks: []TaskOutput{{Task: "t", Status: "completed", Output: "hello"}}}
	l := m.Turn("/last-run")[0].(LastRun)
	if l.Run == nil || !strings.Contains(l.Text(), "task t: completed\n    hello") {
		t.Fatal(l.Text())
	}
}
