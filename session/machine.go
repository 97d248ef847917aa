package session

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/redact"
)

// Options shape a machine.
type Options struct {
	// Verbs are the CLI's verbs, for the guard (nil: DefaultVerbs).
	Verbs []string
	// Timeout bounds one call to the reasoner (0: two minutes).
	Timeout time.Duration
}

// Machine is one session. It is not safe for concurrent use: a door
// serializes the calls.
type Machine struct {
	eng     Engine
	rsn     Reasoner
	snap    Snapshot
	guard   Guard
	timeout time.Duration

	pending *Proposal
	// decided holds what a consent decided, per proposal id: "applied" or
	// "discarded".
	decided map[string]string
	// closed holds proposals the session discarded without a consent
	// (replaced by a new one, discarded by a question), with the reason.
	closed map[string]string
	// lastConsumed is the proposal the last consent without an id decided,
	// so that a duplicate is AlreadyConsumed; "" once something else has
	// happened to what waits.
	lastConsumed string

	gate      *GateAsk
	gatesDone map[GateID]bool
	lastGate  *GateID

	named    []string
	dialogue []Message
	// allow are the supporting files the human allowed with /allow, for
	// the proposals that follow.
	allow []string
	// nextRun is the run request the human asked for with /run; the next
	// proposal carries it.
	nextRun *RunRequested
	// told is the feedback already sent to the model, by proposal id.
	told map[string]string
}

// New opens a session over a project: it takes the snapshot once. rsn may
// be nil: the session has no intelligence, and facts and pasted replies
// still work.
func New(eng Engine, rsn Reasoner, opt Options) (*Machine, error) {
	snap, err := eng.Snapshot()
	if err != nil {
		return nil, err
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 2 * time.Minute
	}
	return &Machine{eng: eng, rsn: rsn, snap: snap, guard: NewGuard(opt.Verbs), timeout: opt.Timeout,
		decided: map[string]string{}, closed: map[string]string{}, gatesDone: map[GateID]bool{}}, nil
}

// Snapshot is the project as the session found it when it opened.
func (m *Machine) Snapshot() Snapshot { return m.snap }

// SetReasoner changes the intelligence (after /intelligence); nil is none.
func (m *Machine) SetReasoner(r Reasoner) { m.rsn = r }

// Pending is the proposal waiting for consent, if any.
func (m *Machine) Pending() *Proposal {
	if m.pending == nil {
		return nil
	}
	p := *m.pending
	return &p
}

// Turn is a line the human typed that is not an answer: a /command, a
// pasted reply or patch, or a question for the model.
func (m *Machine) Turn(text string) []Outcome {
	t := strings.TrimSpace(text)
	if t == "" {
		return refuse(EmptyAnswer, "an empty line asks nothing · type a question, paste a reply, or /help")
	}
	if strings.HasPrefix(t, "/") && !strings.Contains(t, "\n") {
		return m.command(t)
	}
	if LooksLikeProposal(text) {
		return m.stage(text)
	}
	return m.ask(strings.TrimRight(text, "\r\n"))
}

// Paste is one pasted input: a reply, a patch or a question, whatever lines
// it holds. It is never read as a command, a consent or a gate answer,
// since a paste is text that came from elsewhere, not the human's keys.
func (m *Machine) Paste(text string) []Outcome {
	if strings.TrimSpace(text) == "" {
		return refuse(EmptyAnswer, "the paste held nothing · paste a reply or a patch, or type a question")
	}
	if LooksLikeProposal(text) {
		return m.stage(text)
	}
	return m.ask(strings.TrimRight(text, "\r\n"))
}

// LooksLikeProposal tells a pasted reply or patch from a question: a
// fenced block that names a path, an apply_patch payload, a unified diff,
// or search/replace blocks.
func LooksLikeProposal(text string) bool {
	return proposalRe.MatchString(text)
}

var proposalRe = regexp.MustCompile("(?m)^[ \\t]*(?:(?:```|~~~)[^\\n]*\\bpath=|\\*\\*\\* Begin Patch|diff --git |--- \\S+\\n\\+\\+\\+ |<<<<<<< SEARCH)|^[ \\t]*(?:```|~~~)[^\\n]*\\n[ \\t]*#[ \\t]*path:")

// stage turns text into a proposal that replaces the pending one.
func (m *Machine) stage(text string) []Outcome {
	st, err := m.eng.Propose(text, m.nextRun, m.Allowed())
	if err != nil {
		return []Outcome{Refused(err)}
	}
	if st.ID != "" {
		m.nextRun = nil
	}
	if st.ID == "" {
		why := st.Nothing
		if why == "" {
			why = "the text names no file"
		}
		return []Outcome{Answer{Text: "nothing was proposed: " + why}}
	}
	if m.pending != nil && m.pending.ID == st.ID {
		m.pending.Preview, m.pending.Allowed = m.withAllowed(st.Preview), m.Allowed()
		return []Outcome{*m.pending}
	}
	if st.State != "" && st.State != "pending" {
		return refuse(AlreadyConsumed, "proposal %s was already %s · change the reply to get a new proposal", short(st.ID), st.State)
	}
	var out []Outcome
	if m.pending != nil {
		out = append(out, m.close("replaced by proposal "+short(st.ID))...)
	}
	p := Proposal{ID: st.ID, Preview: m.withAllowed(st.Preview), Allowed: m.Allowed()}
	m.pending = &p
	m.lastConsumed = ""
	return append(out, p)
}

// close discards the pending proposal without a consent.
func (m *Machine) close(reason string) []Outcome {
	id := m.pending.ID
	m.pending = nil
	m.closed[id] = reason
	m.lastConsumed = ""
	if err := m.eng.Discard(id); err != nil {
		return []Outcome{Discarded{ID: id, Reason: reason}, Refused(err)}
	}
	return []Outcome{Discarded{ID: id, Reason: reason}}
}

// ask sends a question to the model through the broker and the guard. A
// question discards the pending proposal. The reply is text; if it holds
// a proposal, the proposal is staged for the human to read. Nothing in
// the reply consents.
func (m *Machine) ask(text string) []Outcome {
	var out []Outcome
	if m.pending != nil {
		out = append(out, m.close("a question discards the pending proposal")...)
	}
	if m.rsn == nil {
		return append(out, Refusal{Class: NoIntelligence, Text: "no intelligence is chosen, so there is no one to ask · paste a model's reply or a patch to stage it, use /workflows, /check, /explain, /builtins, /providers, /last-run, /pending, /log for facts, or /intelligence to choose one"})
	}
	b := m.Bundle(text)
	ctx, cancel := context.WithTimeout(context.Background(), m.timeout)
	defer cancel()
	reply, err := m.rsn.Reason(ctx, b)
	m.remember("human", text)
	if err != nil {
		c := ClassOf(err)
		if c == NotAllowed {
			c = IntelligenceRefused
		}
		r := Refused(err)
		r.Class = c
		return append(out, r)
	}
	m.remember("model", reply)
	if m.told == nil {
		m.told = map[string]string{}
	}
	for id, text := range b.told {
		m.told[id] = text
	}
	out = append(out, Answer{Text: reply, Corrections: m.guard.Check(reply), Redacted: b.Redacted})
	if LooksLikeProposal(reply) {
		out = append(out, m.stage(reply)...)
	}
	return out
}

func (m *Machine) remember(role, text string) {
	if len(text) > MaxMessageBytes {
		text = text[:MaxMessageBytes]
	}
	m.dialogue = append(m.dialogue, Message{Role: role, Text: text})
	if len(m.dialogue) > MaxDialogue {
		m.dialogue = m.dialogue[len(m.dialogue)-MaxDialogue:]
	}
}

// Bundle builds what the model would receive for a question: the broker.
// It reads only the files the human named (through the Engine, which
// refuses anything but workflows and the project file inside the root),
// and redacts every part.
func (m *Machine) Bundle(question string) Bundle {
	for _, p := range NamedPaths(question) {
		found := false
		for _, n := range m.named {
			found = found || n == p
		}
		if !found && len(m.named) < MaxNamedFiles {
			m.named = append(m.named, p)
		}
	}
	var reds []redact.Redaction
	redIn := func(where string) func(string) string {
		return func(s string) string {
			s, rs := redact.Text(s)
			for _, r := range rs {
				r.Where = where
				reds = append(reds, r)
			}
			return s
		}
	}
	red := redIn("diagnostics")
	b := Bundle{Identity: Identity, Language: LanguageDigest(), Facts: redIn("facts")(m.snap.Summary())}
	for _, w := range m.snap.Workflows {
		if !w.Clean {
			b.Diagnostics = append(b.Diagnostics, fmt.Sprintf("%s: %s", w.Path, strings.Join(w.Codes, " ")))
		}
	}
	for _, p := range m.named {
		data, err := m.eng.ReadNamed(p)
		if err != nil {
			b.Diagnostics = append(b.Diagnostics, red(fmt.Sprintf("%s was not sent: %s", p, err.Error())))
			continue
		}
		f := NamedFile{Path: p}
		if len(data) > MaxFileBytes {
			data, f.Truncated = data[:MaxFileBytes], true
		}
		f.Text = redIn("file " + p)(string(data))
		b.Files = append(b.Files, f)
		rep := m.eng.Audit(p, data)
		for _, fd := range rep.Findings {
			b.Diagnostics = append(b.Diagnostics, red(fmt.Sprintf("%s:%d:%d %s %s %s", p, fd.Line, fd.Col, fd.Severity, fd.Code, fd.Message)))
		}
	}
	for _, d := range m.dialogue {
		b.Dialogue = append(b.Dialogue, Message{Role: d.Role, Text: redIn("dialogue")(d.Text)})
	}
	if fs, ok := m.eng.(FeedbackSource); ok {
		for _, f := range fs.Feedback() {
			if m.told[f.ID] == f.Text {
				continue
			}
			if b.told == nil {
				b.told = map[string]string{}
			}
			b.told[f.ID] = f.Text
			b.Feedback = append(b.Feedback, redIn("feedback")(f.Text))
		}
	}
	b.Question = redIn("question")(question)
	b.Redacted = reds
	return b
}

// Consent is the human's answer to whatever proposal waits: exactly "yes"
// applies it, any other non-empty answer discards it. A door calls it
// only with a line the human typed.
func (m *Machine) Consent(answer string) []Outcome {
	if m.pending == nil {
		if m.lastConsumed != "" {
			return refuse(AlreadyConsumed, "proposal %s was already %s · nothing else waits for consent", short(m.lastConsumed), m.decided[m.lastConsumed])
		}
		return refuse(WrongState, "no proposal waits for consent")
	}
	return m.decide(answer)
}

// ConsentTo is the human's answer to the proposal with this id (or a
// unique prefix of at least 8 characters).
func (m *Machine) ConsentTo(id, answer string) []Outcome {
	id = strings.ToLower(strings.TrimSpace(id))
	if len(id) < 8 {
		return refuse(WrongState, "%q names no proposal: give at least 8 characters of its id", id)
	}
	if m.pending != nil && strings.HasPrefix(m.pending.ID, id) {
		return m.decide(answer)
	}
	if full, how := m.lookupDecided(id); full != "" {
		return refuse(AlreadyConsumed, "proposal %s was already %s · nothing was done", short(full), how)
	}
	closed := ""
	for full := range m.closed {
		if strings.HasPrefix(full, id) {
			closed = full
		}
	}
	if closed == "" {
		full, st := m.eng.Lookup(id)
		switch {
		case st == "applied" || st == "discarded" || st == "stale":
			return refuse(AlreadyConsumed, "proposal %s was already %s · nothing was done", short(full), st)
		case st == "pending" && m.pending == nil:
			// A proposal staged before this session opened (a host that
			// reconnected): loaded from the registry, checked as the
			// apply will check it, then decided as if it waited here.
			p, err := m.eng.Adopt(full)
			if err != nil {
				return []Outcome{Refused(err)}
			}
			m.pending = &p
			return m.decide(answer)
		}
	}
	if m.pending != nil {
		return refuse(StaleRevision, "%s is not the proposal that waits; proposal %s does · nothing was applied", short(id), short(m.pending.ID))
	}
	if closed != "" {
		return refuse(WrongState, "proposal %s was discarded (%s) · no proposal waits for consent", short(closed), m.closed[closed])
	}
	return refuse(WrongState, "no proposal waits for consent")
}

func (m *Machine) lookupDecided(prefix string) (string, string) {
	for full, how := range m.decided {
		if strings.HasPrefix(full, prefix) {
			return full, how
		}
	}
	return "", ""
}

// decide answers the pending proposal.
func (m *Machine) decide(answer string) []Outcome {
	answer = strings.TrimSuffix(strings.TrimSuffix(answer, "\n"), "\r")
	if strings.TrimSpace(answer) == "" {
		return refuse(EmptyAnswer, "an empty answer decides nothing · type yes to apply proposal %s, or anything else to discard it", short(m.pending.ID))
	}
	id := m.pending.ID
	if consent.Decide(answer) != consent.Yes { // the one rule for consent: exactly "yes"
		m.pending = nil
		m.decided[id] = "discarded"
		m.lastConsumed = id
		if err := m.eng.Discard(id); err != nil {
			return []Outcome{Discarded{ID: id, Reason: "the answer was not yes"}, Refused(err)}
		}
		return []Outcome{Discarded{ID: id, Reason: "the answer was not yes"}}
	}
	res, err := m.eng.Apply(id)
	if err != nil {
		c := ClassOf(err)
		switch c {
		case StaleRevision:
			// The project moved: this preview can no longer be applied.
			m.pending = nil
			m.closed[id] = "the project changed since its preview"
		case AlreadyConsumed:
			m.pending = nil
			m.decided[id] = "decided elsewhere"
			m.lastConsumed = id
		}
		return []Outcome{Refused(err)}
	}
	m.pending = nil
	m.decided[id] = "applied"
	m.lastConsumed = id
	out := []Outcome{res.Applied}
	if res.Run != nil {
		if res.Applied.Clean {
			r := *res.Run
			r.ProposalID = id
			out = append(out, r)
		} else {
			out = append(out, Answer{Text: fmt.Sprintf("run of %s withheld: the check after the apply is not clean", res.Run.Workflow)})
		}
	}
	return out
}

// ObserveRun tells the machine how a run the door carried out ended. Exit
// code 4 is a run paused on a human gate: it becomes a GateAsk, once. A
// gate answered before (in this session or, through the registry, in
// any other) is never asked again: a repeated observation is
// AlreadyConsumed and arms nothing.
func (m *Machine) ObserveRun(exit int, trace Trace) []Outcome {
	switch exit {
	case 0:
		return []Outcome{Answer{Text: "the run finished (exit 0)"}}
	case 4:
		if trace.ID == "" || trace.Task == "" {
			return refuse(Invalid, "the run paused for a human (exit 4) but named no trace and task · run it again in a terminal")
		}
		g := GateAsk{ID: GateID{Trace: trace.ID, Task: trace.Task}, Question: trace.Question}
		if g.Question == "" {
			g.Question = "the run waits for your answer"
		}
		if m.gatesDone[g.ID] {
			return refuse(AlreadyConsumed, "the gate %s was already answered · a repeated observation does not ask again", g.ID)
		}
		if m.gate != nil && m.gate.ID == g.ID {
			return []Outcome{*m.gate}
		}
		state, err := m.eng.AskGate(g)
		if err != nil {
			return []Outcome{Refused(err)}
		}
		if state == GateAnswered {
			m.gatesDone[g.ID] = true
			return refuse(AlreadyConsumed, "the gate %s was already answered · a repeated observation does not ask again", g.ID)
		}
		m.gate = &g
		return []Outcome{g}
	}
	return []Outcome{Answer{Text: fmt.Sprintf("the run failed (exit %d)", exit)}}
}

// AnswerGate is the human's line for whatever gate waits.
func (m *Machine) AnswerGate(line string) []Outcome {
	if m.gate == nil {
		if m.lastGate != nil {
			return refuse(AlreadyConsumed, "the gate %s was already answered · nothing else waits", m.lastGate)
		}
		return refuse(WrongState, "no run waits for an answer")
	}
	return m.answerGate(line)
}

// AnswerGateFor is the human's line for the gate with this identity. A
// gate that waits in the registry (asked before a reconnect) is answered
// as if it waited here.
func (m *Machine) AnswerGateFor(id GateID, line string) []Outcome {
	if m.gate != nil && m.gate.ID == id {
		return m.answerGate(line)
	}
	if m.gatesDone[id] {
		return refuse(AlreadyConsumed, "the gate %s was already answered · nothing was done", id)
	}
	if m.gate != nil {
		return refuse(StaleRevision, "%s is not the gate that waits; %s does · nothing was done", id, m.gate.ID)
	}
	switch g, state := m.eng.Gate(id); state {
	case GateAnswered:
		m.gatesDone[id] = true
		return refuse(AlreadyConsumed, "the gate %s was already answered · nothing was done", id)
	case GateWaiting:
		m.gate = &g
		return m.answerGate(line)
	}
	return refuse(WrongState, "no run waits for an answer at %s", id)
}

func (m *Machine) answerGate(line string) []Outcome {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if strings.TrimSpace(line) == "" {
		return refuse(EmptyAnswer, "an empty line answers nothing · type your answer to %q", m.gate.Question)
	}
	id := m.gate.ID
	err := m.eng.AnswerGate(id)
	if err != nil && ClassOf(err) != AlreadyConsumed {
		return []Outcome{Refused(err)}
	}
	m.gate = nil
	m.gatesDone[id] = true
	m.lastGate = &id
	if err != nil {
		return refuse(AlreadyConsumed, "the gate %s was already answered elsewhere · nothing was done", id)
	}
	return []Outcome{ResumeRequested{ID: id, Answer: line}}
}
