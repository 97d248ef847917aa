package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/intelligence"
	"github.com/nika-dev/nika/session/project"
)

// Options are what the door hands the protocol: the project, its session
// engine, and the streams.
type Options struct {
	Repo   *flow.Repo      // the project, for the run requests carried out
	Engine *project.Engine // the session's engine over Repo
	Verbs  []string        // nika's verbs, for the guard
	Home   string          // where the kept intelligence is (~/.nika)
	In     io.Reader       // the host's requests
	Out    io.Writer       // nika's lines
	Err    io.Writer       // a runner's errors
}

// Serve writes the hello, then answers each request line of o.In with one
// result line, until the end of the input. Only a session that cannot
// start is an error; every refusal after the hello is a line.
func Serve(o Options) error {
	choice, kept, lerr := intelligence.Load(o.Home)
	if !kept {
		choice = intelligence.Choice{Kind: intelligence.None}
	}
	rsn, serr := intelligence.Serve(choice, intelligence.LookPath, intelligence.LookupEnv)
	m, err := session.New(o.Engine, rsn, session.Options{Verbs: o.Verbs})
	if err != nil {
		return err
	}
	s := &server{o: o, m: m}
	gates, _ := o.Engine.Gates()
	hello := Hello{
		Type:         "hello",
		Protocol:     Version,
		Limits:       Limits{LineBytes: MaxRequest},
		Snapshot:     m.Snapshot(),
		Gates:        gatesOrEmpty(gates),
		Intelligence: Intelligence{Kind: choice.Kind, Kept: kept, Where: Where(choice, rsn)},
		Census:       intelligence.Take(intelligence.LookPath, intelligence.LookupEnv),
	}
	if e := firstErr(lerr, serr); e != nil {
		hello.Refusal = &Outcome{session.Refused(e)}
	}
	s.line(hello)
	in := bufio.NewReaderSize(o.In, 64<<10)
	for {
		raw, tooLong, err := readLine(in, MaxRequest)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			s.result(nil, "", []session.Outcome{session.Refusal{Class: refusal.Io, Text: "the input could not be read: " + err.Error()}})
			return nil
		}
		if tooLong {
			s.result(nil, "", []session.Outcome{session.Refusal{Class: refusal.TooLarge,
				Text: fmt.Sprintf("the line is longer than %d bytes, the limit of one request · it was skipped; split the text, or send the file's path in a turn instead of its bytes", MaxRequest)}})
			continue
		}
		req, b := parseRequest(raw)
		if b != nil {
			s.result(b.seq, b.call, []session.Outcome{session.Refusal{Class: b.class, Text: b.text}})
			continue
		}
		s.result(req.Seq, req.Call, s.call(req))
	}
}

// server is one session over the protocol.
type server struct {
	o Options
	m *session.Machine
}

func gatesOrEmpty(g []session.GateAsk) []session.GateAsk {
	if g == nil {
		return []session.GateAsk{}
	}
	return g
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// call runs one request on the machine, and carries out what the machine
// hands back as data (run and resume requests).
func (s *server) call(req Request) []session.Outcome {
	eng, m, home := s.o.Engine, s.m, s.o.Home
	var outs []session.Outcome
	switch req.Call {
	case "turn":
		outs = m.Turn(req.Text)
	case "consent":
		if req.ID != "" {
			outs = m.ConsentTo(req.ID, *req.Answer)
		} else {
			outs = m.Consent(*req.Answer)
		}
	case "answer_gate":
		if req.Gate != nil {
			outs = m.AnswerGateFor(*req.Gate, *req.Line)
		} else {
			outs = m.AnswerGate(*req.Line)
		}
	case "observe_run":
		outs = m.ObserveRun(*req.Exit, req.Trace)
	case "snapshot":
		snap, err := eng.Snapshot()
		if err != nil {
			return []session.Outcome{session.Refused(err)}
		}
		return []session.Outcome{Snapshot{snap}}
	case "builtins":
		return m.Builtins()
	case "providers":
		return m.Providers()
	case "last_run":
		return m.LastRun()
	case "gates":
		g, err := eng.Gates()
		if err != nil {
			return []session.Outcome{session.Refused(err)}
		}
		return []session.Outcome{Gates{gatesOrEmpty(g)}}
	case "intelligence":
		r, err := intelligence.Serve(*req.Choice, intelligence.LookPath, intelligence.LookupEnv)
		if err != nil {
			return []session.Outcome{session.Refused(err)}
		}
		if err := intelligence.Save(home, *req.Choice); err != nil {
			return []session.Outcome{session.Refused(err)}
		}
		m.SetReasoner(r)
		return []session.Outcome{session.Answer{Text: Where(*req.Choice, r)}}
	}
	var all []session.Outcome
	for _, o := range outs {
		all = append(all, o)
		switch o.(type) {
		case session.RunRequested, session.ResumeRequested:
			all = append(all, Carry(s.o.Repo, eng, m, o, nil, s.o.Err)...)
		}
	}
	return all
}

// result writes the result line of one request.
func (s *server) result(seq json.RawMessage, call string, outs []session.Outcome) {
	res := Result{Type: "result", Seq: seq, Call: call, Outcomes: make([]Outcome, 0, len(outs))}
	for _, o := range outs {
		res.Outcomes = append(res.Outcomes, Outcome{o})
	}
	s.line(res)
}

// line writes one JSON object on one line, with no absolute host path.
func (s *server) line(v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	t := s.o.Repo.Scrubber().Known(b.String())
	if !strings.HasSuffix(t, "\n") {
		t += "\n"
	}
	io.WriteString(s.o.Out, t)
}
