package main

// `nika serve --stdio`: the session machine over a JSON-lines protocol
// (docs/protocol.md), so that an editor or another host can drive the
// same machine as the terminal session. A host that speaks the protocol
// for a human is a door: the consent and gate answers it sends must be
// lines its human typed, never a model's output.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/intelligence"
	"github.com/nika-dev/nika/session/project"
)

// ProtocolVersion is the version of the stdio protocol in the hello line.
const ProtocolVersion = 1

func (d *door) serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "drive the session over a JSON-lines protocol on stdin and stdout (see docs/protocol.md)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stdio", Usage: "speak the protocol on standard input and output"},
			jsonFlag,
		},
		Action: d.serve,
	}
}

// request is one line from the host.
type request struct {
	Seq    json.RawMessage      `json:"seq,omitempty"`
	Call   string               `json:"call"`
	Text   string               `json:"text"`
	ID     string               `json:"id"`
	Answer *string              `json:"answer"`
	Gate   *session.GateID      `json:"gate"`
	Line   *string              `json:"line"`
	Exit   int                  `json:"exit"`
	Trace  session.Trace        `json:"trace"`
	Choice *intelligence.Choice `json:"choice"`
}

// MaxRequest bounds one request line.
const MaxRequest = 16 << 20

func (d *door) serve(c *cli.Context) error {
	if !c.Bool("stdio") {
		return refusal.New(refusal.Invalid, "run nika serve --stdio", "nika serve speaks only on standard input and output for now")
	}
	d.json = true
	eng, err := d.openEngine()
	if err != nil {
		return err
	}
	eng.Color = false // a preview in JSON is plain text
	home, _ := os.UserHomeDir()
	choice, kept, lerr := intelligence.Load(home)
	if !kept {
		choice = intelligence.Choice{Kind: intelligence.None}
	}
	rsn, serr := intelligence.Serve(choice, intelligence.LookPath, intelligence.LookupEnv)
	m, err := session.New(eng, rsn, session.Options{Verbs: d.verbs()})
	if err != nil {
		return err
	}
	hello := map[string]any{
		"type":     "hello",
		"protocol": ProtocolVersion,
		"snapshot": m.Snapshot(),
		"intelligence": map[string]any{
			"kind": choice.Kind, "kept": kept, "where": whereNow(choice, rsn),
		},
		"census": intelligence.Take(intelligence.LookPath, intelligence.LookupEnv),
	}
	if e := firstErr(lerr, serr); e != nil {
		hello["refusal"] = outcomeJSON(session.Refusal{Class: session.ClassOf(e), Text: e.Error()})
	}
	d.line(hello)
	sc := bufio.NewScanner(d.stdin)
	sc.Buffer(make([]byte, 64<<10), MaxRequest)
	for sc.Scan() {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var req request
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			d.result(req.Seq, "", []session.Outcome{session.Refusal{Class: session.NotAllowed, Text: "the line is not a request: " + err.Error()}})
			continue
		}
		d.result(req.Seq, req.Call, d.call(eng, m, home, req))
	}
	if err := sc.Err(); err != nil {
		d.result(nil, "", []session.Outcome{session.Refusal{Class: session.Io, Text: "the input could not be read: " + err.Error()}})
	}
	return nil
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
func (d *door) call(eng *project.Engine, m *session.Machine, home string, req request) []session.Outcome {
	var outs []session.Outcome
	switch req.Call {
	case "turn":
		outs = m.Turn(req.Text)
	case "consent":
		if req.Answer == nil {
			return []session.Outcome{session.Refusal{Class: session.EmptyAnswer, Text: "a consent carries the human's answer: {\"call\":\"consent\",\"id\":ID,\"answer\":\"yes\"}"}}
		}
		if req.ID != "" {
			outs = m.ConsentTo(req.ID, *req.Answer)
		} else {
			outs = m.Consent(*req.Answer)
		}
	case "answer_gate":
		if req.Line == nil {
			return []session.Outcome{session.Refusal{Class: session.EmptyAnswer, Text: "a gate answer carries the human's line: {\"call\":\"answer_gate\",\"gate\":{...},\"line\":\"...\"}"}}
		}
		if req.Gate != nil {
			outs = m.AnswerGateFor(*req.Gate, *req.Line)
		} else {
			outs = m.AnswerGate(*req.Line)
		}
	case "observe_run":
		outs = m.ObserveRun(req.Exit, req.Trace)
	case "snapshot":
		s, err := eng.Snapshot()
		if err != nil {
			return []session.Outcome{session.Refusal{Class: session.ClassOf(err), Text: err.Error()}}
		}
		return []session.Outcome{snapshotOutcome{s}}
	case "intelligence":
		if req.Choice == nil {
			return []session.Outcome{session.Refusal{Class: session.NotAllowed, Text: "give the human's choice: {\"call\":\"intelligence\",\"choice\":{\"kind\":\"none\"}}"}}
		}
		r, err := intelligence.Serve(*req.Choice, intelligence.LookPath, intelligence.LookupEnv)
		if err != nil {
			return []session.Outcome{session.Refusal{Class: session.ClassOf(err), Text: err.Error()}}
		}
		if err := intelligence.Save(home, *req.Choice); err != nil {
			return []session.Outcome{session.Refusal{Class: session.ClassOf(err), Text: err.Error()}}
		}
		m.SetReasoner(r)
		return []session.Outcome{session.Answer{Text: whereNow(*req.Choice, r)}}
	default:
		return []session.Outcome{session.Refusal{Class: session.NotAllowed, Text: "unknown call " + changeset.Quote(req.Call) + " · the calls are turn, consent, answer_gate, observe_run, snapshot, intelligence"}}
	}
	var all []session.Outcome
	for _, o := range outs {
		all = append(all, o)
		switch o.(type) {
		case session.RunRequested, session.ResumeRequested:
			all = append(all, d.carry(eng, m, o, nil, d.stderr)...)
		}
	}
	return all
}

type snapshotOutcome struct {
	Snapshot session.Snapshot `json:"snapshot"`
}

func (snapshotOutcome) Kind() string { return "snapshot" }

// outcomeJSON is an outcome as an object with its type.
func outcomeJSON(o session.Outcome) map[string]any {
	b, _ := json.Marshal(o)
	m := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&m)
	m["type"] = o.Kind()
	return m
}

func (d *door) result(seq json.RawMessage, call string, outs []session.Outcome) {
	list := make([]map[string]any, 0, len(outs))
	for _, o := range outs {
		list = append(list, outcomeJSON(o))
	}
	res := map[string]any{"type": "result", "call": call, "outcomes": list}
	if len(seq) > 0 {
		res["seq"] = seq
	}
	d.line(res)
}

// line writes one JSON object on one line, with no absolute host path.
func (d *door) line(v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	s := d.scrub(b.String())
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	io.WriteString(d.stdout, s)
}
