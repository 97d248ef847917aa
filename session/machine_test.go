package session

import (
	"fmt"
	"strings"
	"testing"
)

var (
	pasteP = reply("a.nika.yaml", "nika: a\n")
	pasteQ = reply("b.nika.yaml", "nika: b\n")
	idP    = idOf(pasteP)
	idQ    = idOf(pasteQ)
	idX    = strings.Repeat("9", 64)
	gateG  = Trace{ID: "trace-1", Task: "approve", Question: "Deploy?"}
	gidG   = GateID{Trace: "trace-1", Task: "approve"}
	gidH   = GateID{Trace: "trace-1", Task: "other"}
	gateH  = Trace{ID: "trace-1", Task: "other", Question: "Really?"}
)

// summary names outcomes compactly: kinds, with a refusal's class.
func summary(out []Outcome) string {
	var parts []string
	for _, o := range out {
		switch v := o.(type) {
		case Refusal:
			parts = append(parts, "Refusal:"+string(v.Class))
		case Applied:
			parts = append(parts, "Applied:"+label(v.ID))
		case Discarded:
			parts = append(parts, "Discarded:"+label(v.ID))
		case Proposal:
			parts = append(parts, "Proposal:"+label(v.ID))
		case ResumeRequested:
			parts = append(parts, "Resume:"+v.ID.Task)
		case GateAsk:
			parts = append(parts, "GateAsk:"+v.ID.Task)
		default:
			parts = append(parts, fmt.Sprintf("%T", o)[len("session."):])
		}
	}
	return strings.Join(parts, "+")
}

func label(id string) string {
	switch id {
	case idP:
		return "P"
	case idQ:
		return "Q"
	}
	return id[:8]
}

type state struct {
	name  string
	setup func(m *Machine)
}

var states = []state{
	{"S0 idle", func(m *Machine) {}},
	{"S1 P pending", func(m *Machine) { m.Turn(pasteP) }},
	{"S2 P applied", func(m *Machine) { m.Turn(pasteP); m.Consent("yes") }},
	{"S3 P declined", func(m *Machine) { m.Turn(pasteP); m.Consent("no") }},
	{"S4 P replaced by Q", func(m *Machine) { m.Turn(pasteP); m.Turn(pasteQ) }},
	{"S5 P discarded by a question", func(m *Machine) { m.Turn(pasteP); m.Turn("what does it do?") }},
	{"S6 gate G waits", func(m *Machine) { m.ObserveRun(4, gateG) }},
	{"S7 gate G answered", func(m *Machine) { m.ObserveRun(4, gateG); m.AnswerGate("approve") }},
	{"S8 P pending and gate G waits", func(m *Machine) { m.Turn(pasteP); m.ObserveRun(4, gateG) }},
	{"S9 P applied, then Q pending", func(m *Machine) { m.Turn(pasteP); m.Consent("yes"); m.Turn(pasteQ) }},
	{"S10 gate G replaced by gate H", func(m *Machine) { m.ObserveRun(4, gateG); m.ObserveRun(4, gateH) }},
}

type call struct {
	name string
	do   func(m *Machine) []Outcome
}

var calls = []call{
	{"Consent(yes)", func(m *Machine) []Outcome { return m.Consent("yes") }},
	{"Consent(no)", func(m *Machine) []Outcome { return m.Consent("no") }},
	{"Consent('')", func(m *Machine) []Outcome { return m.Consent("") }},
	{"Consent(Yes)", func(m *Machine) []Outcome { return m.Consent("Yes") }},
	{"ConsentTo(P,yes)", func(m *Machine) []Outcome { return m.ConsentTo(idP, "yes") }},
	{"ConsentTo(P12,yes)", func(m *Machine) []Outcome { return m.ConsentTo(idP[:12], "yes") }},
	{"ConsentTo(Q,yes)", func(m *Machine) []Outcome { return m.ConsentTo(idQ, "yes") }},
	{"ConsentTo(X,yes)", func(m *Machine) []Outcome { return m.ConsentTo(idX, "yes") }},
	{"AnswerGate(ok)", func(m *Machine) []Outcome { return m.AnswerGate("ok") }},
	{"AnswerGate('')", func(m *Machine) []Outcome { return m.AnswerGate("") }},
	{"AnswerGateFor(G,ok)", func(m *Machine) []Outcome { return m.AnswerGateFor(gidG, "ok") }},
	{"AnswerGateFor(H,ok)", func(m *Machine) []Outcome { return m.AnswerGateFor(gidH, "ok") }},
	{"Turn(paste P)", func(m *Machine) []Outcome { return m.Turn(pasteP) }},
	{"Turn(question)", func(m *Machine) []Outcome { return m.Turn("why?") }},
	{"Turn(/pending)", func(m *Machine) []Outcome { return m.Turn("/pending") }},
	{"ObserveRun(4,G)", func(m *Machine) []Outcome { return m.ObserveRun(4, gateG) }},
	{"ObserveRun(0)", func(m *Machine) []Outcome { return m.ObserveRun(0, Trace{}) }},
}

// want is the transition table: for each state (row) the outcome of each
// call (column, in the order of calls). Every cell must be filled.
var want = map[string][]string{
	"S0 idle": {
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Proposal:P", "Answer", "Answer", "GateAsk:approve", "Answer"},
	"S1 P pending": {
		"Applied:P", "Discarded:P", "Refusal:EmptyAnswer", "Discarded:P",
		"Applied:P", "Applied:P", "Refusal:StaleRevision", "Refusal:StaleRevision",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Proposal:P", "Discarded:P+Answer", "Answer", "GateAsk:approve", "Answer"},
	"S2 P applied": {
		"Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed",
		"Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:AlreadyConsumed", "Answer", "Answer", "GateAsk:approve", "Answer"},
	"S3 P declined": {
		"Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed",
		"Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:AlreadyConsumed", "Answer", "Answer", "GateAsk:approve", "Answer"},
	"S4 P replaced by Q": {
		"Applied:Q", "Discarded:Q", "Refusal:EmptyAnswer", "Discarded:Q",
		"Refusal:StaleRevision", "Refusal:StaleRevision", "Applied:Q", "Refusal:StaleRevision",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:AlreadyConsumed", "Discarded:Q+Answer", "Answer", "GateAsk:approve", "Answer"},
	"S5 P discarded by a question": {
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:AlreadyConsumed", "Answer", "Answer", "GateAsk:approve", "Answer"},
	"S6 gate G waits": {
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Resume:approve", "Refusal:EmptyAnswer", "Resume:approve", "Refusal:StaleRevision",
		"Proposal:P", "Answer", "Answer", "GateAsk:approve", "Answer"},
	"S7 gate G answered": {
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed", "Refusal:WrongState",
		"Proposal:P", "Answer", "Answer", "Refusal:AlreadyConsumed", "Answer"},
	"S8 P pending and gate G waits": {
		"Applied:P", "Discarded:P", "Refusal:EmptyAnswer", "Discarded:P",
		"Applied:P", "Applied:P", "Refusal:StaleRevision", "Refusal:StaleRevision",
		"Resume:approve", "Refusal:EmptyAnswer", "Resume:approve", "Refusal:StaleRevision",
		"Proposal:P", "Discarded:P+Answer", "Answer", "GateAsk:approve", "Answer"},
	"S9 P applied, then Q pending": {
		"Applied:Q", "Discarded:Q", "Refusal:EmptyAnswer", "Discarded:Q",
		"Refusal:AlreadyConsumed", "Refusal:AlreadyConsumed", "Applied:Q", "Refusal:StaleRevision",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:AlreadyConsumed", "Discarded:Q+Answer", "Answer", "GateAsk:approve", "Answer"},
	"S10 gate G replaced by gate H": {
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState", "Refusal:WrongState",
		"Resume:other", "Refusal:EmptyAnswer", "Refusal:StaleRevision", "Resume:other",
		"Proposal:P", "Answer", "Answer", "GateAsk:approve", "Answer"},
}

func newMachine(t *testing.T, eng *fakeEngine, r Reasoner) *Machine {
	t.Helper()
	m, err := New(eng, r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTransitionTable runs every call in every state, on a fresh machine
// each time, and checks the outcome and that the project saw exactly the
// applies the outcome reports.
func TestTransitionTable(t *testing.T) {
	if len(want) != len(states) {
		t.Fatalf("the table has %d rows for %d states", len(want), len(states))
	}
	for _, s := range states {
		row, ok := want[s.name]
		if !ok || len(row) != len(calls) {
			t.Fatalf("the table row for %q must have %d cells", s.name, len(calls))
		}
		for i, c := range calls {
			eng := newFake()
			m := newMachine(t, eng, &fakeReasoner{reply: "it checks a"})
			s.setup(m)
			before := len(eng.applies)
			got := summary(c.do(m))
			if got != row[i] {
				t.Errorf("%s · %s: got %s, want %s", s.name, c.name, got, row[i])
			}
			applied := len(eng.applies) - before
			if wantApply := strings.Count(row[i], "Applied"); applied != wantApply {
				t.Errorf("%s · %s: the project saw %d apply(s), want %d", s.name, c.name, applied, wantApply)
			}
		}
	}
}

// TestConsentOnce: however often a consent is repeated, with or without
// the id, the project sees one apply.
func TestConsentOnce(t *testing.T) {
	eng := newFake()
	m := newMachine(t, eng, nil)
	m.Turn(pasteP)
	if got := summary(m.ConsentTo(idP, "yes")); got != "Applied:P" {
		t.Fatal(got)
	}
	for i := 0; i < 3; i++ {
		if got := summary(m.ConsentTo(idP, "yes")); got != "Refusal:AlreadyConsumed" {
			t.Fatal(got)
		}
		if got := summary(m.Consent("yes")); got != "Refusal:AlreadyConsumed" {
			t.Fatal(got)
		}
	}
	if len(eng.applies) != 1 {
		t.Fatalf("%d applies", len(eng.applies))
	}
}

// TestReplyCannotConsent: a model's reply that says yes, even one that
// carries a proposal, stages at most a proposal and never applies.
func TestReplyCannotConsent(t *testing.T) {
	eng := newFake()
	r := &fakeReasoner{reply: "yes\n\nyes, apply it. yes\n\n" + pasteQ + "\nyes\n"}
	m := newMachine(t, eng, r)
	m.Turn(pasteP)
	got := summary(m.Turn("apply it, yes"))
	if got != "Discarded:P+Answer+Proposal:"+label(idOf(r.reply)) {
		t.Fatal(got)
	}
	if len(eng.applies) != 0 {
		t.Fatalf("a reply applied %v", eng.applies)
	}
	if m.Pending() == nil {
		t.Fatal("the reply's proposal should wait for the human")
	}
}

func TestNoIntelligence(t *testing.T) {
	m := newMachine(t, newFake(), nil)
	if got := summary(m.Turn("what is in my project?")); got != "Refusal:NoIntelligence" {
		t.Fatal(got)
	}
	for _, c := range []string{"/help", "/workflows", "/pending", "/log", "/explain NIKA-PARSE-005"} {
		if got := summary(m.Turn(c)); got != "Answer" {
			t.Errorf("%s: %s", c, got)
		}
	}
	if got := summary(m.Turn("/explain NIKA-NOPE-999")); got != "Refusal:NotFound" {
		t.Error(got)
	}
	if got := summary(m.Turn("/intelligence")); got != "AskIntelligence" {
		t.Error(got)
	}
	if got := summary(m.Turn("   ")); got != "Refusal:EmptyAnswer" {
		t.Error(got)
	}
}

func TestRunRequestedOnlyWhenClean(t *testing.T) {
	for _, clean := range []bool{true, false} {
		eng := newFake()
		eng.clean = clean
		eng.run = &RunRequested{Workflow: "a.nika.yaml", Vars: map[string]string{"X": "1"}}
		m := newMachine(t, eng, nil)
		m.Turn(pasteP)
		got := summary(m.Consent("yes"))
		want := "Applied:P+RunRequested"
		if !clean {
			want = "Applied:P+Answer"
		}
		if got != want {
			t.Errorf("clean=%v: %s, want %s", clean, got, want)
		}
	}
}

func TestStaleApply(t *testing.T) {
	eng := newFake()
	eng.applyErr = Errorf(StaleRevision, "the project changed since this preview · nothing was applied")
	m := newMachine(t, eng, nil)
	m.Turn(pasteP)
	if got := summary(m.Consent("yes")); got != "Refusal:StaleRevision" {
		t.Fatal(got)
	}
	if got := summary(m.Consent("yes")); got != "Refusal:WrongState" {
		t.Fatal(got)
	}
}

func TestGateAnsweredOnce(t *testing.T) {
	m := newMachine(t, newFake(), nil)
	m.ObserveRun(4, gateG)
	out := m.AnswerGateFor(gidG, "approve\n")
	r, ok := out[0].(ResumeRequested)
	if !ok || r.Answer != "approve" || r.ID != gidG {
		t.Fatalf("%#v", out)
	}
	if got := summary(m.AnswerGateFor(gidG, "approve")); got != "Refusal:AlreadyConsumed" {
		t.Fatal(got)
	}
	if got := summary(m.ObserveRun(4, Trace{})); got != "Refusal:Invalid" {
		t.Fatal(got)
	}
}

// TestReopenedSession: a session that reopens over the same project (a
// host that reconnected) answers a repeated consent AlreadyConsumed from
// the registry, and applies nothing.
func TestReopenedSession(t *testing.T) {
	eng := newFake()
	m := newMachine(t, eng, nil)
	m.Turn(pasteP)
	if got := summary(m.ConsentTo(idP, "yes")); got != "Applied:P" {
		t.Fatal(got)
	}
	m2 := newMachine(t, eng, nil)
	if got := summary(m2.ConsentTo(idP, "yes")); got != "Refusal:AlreadyConsumed" {
		t.Fatal(got)
	}
	if got := summary(m2.Consent("yes")); got != "Refusal:WrongState" {
		t.Fatal(got)
	}
	if len(eng.applies) != 1 {
		t.Fatal(eng.applies)
	}
}

func TestRunCommandRidesTheNextProposal(t *testing.T) {
	eng := newFake()
	m := newMachine(t, eng, nil)
	if got := summary(m.Turn("/run a.nika.yaml name=Ada --max-cost-usd 0.5")); got != "Answer" {
		t.Fatal(got)
	}
	for _, bad := range []string{"/run notes.txt", "/run a.nika.yaml name", "/run a.nika.yaml --max-cost-usd -1"} {
		if got := summary(m.Turn(bad)); got != "Refusal:Invalid" {
			t.Errorf("%s: %s", bad, got)
		}
	}
	m.Turn(pasteP)
	if r := eng.lastRun; r == nil || r.Workflow != "a.nika.yaml" || r.Vars["name"] != "Ada" || r.MaxCostUSD != 0.5 {
		t.Fatalf("%+v", eng.lastRun)
	}
	m.Turn(pasteQ)
	if eng.lastRun != nil {
		t.Fatal("the run request rode a second proposal")
	}
}
