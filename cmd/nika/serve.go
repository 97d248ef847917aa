package main

// `nika serve --stdio`: the session machine over a JSON-lines protocol
// (docs/protocol.md), so that an editor or another host can drive the
// same machine as the terminal session. A host that speaks the protocol
// for a human is a door: the consent and gate answers it sends must be
// lines its human typed, never a model's output.
//
// The protocol is exactly as strict as its document: one object per line,
// the fields of each call and nothing else (names match exactly, case
// included), an empty line refused, a line over MaxRequest refused as
// TooLarge and skipped (the session goes on), and every refusal classed
// from the one table of package refusal. protocol_doc_test.go holds the
// document to these tables.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/intelligence"
	"github.com/nika-dev/nika/session/project"
)

// ProtocolVersion is the version of the stdio protocol in the hello line.
const ProtocolVersion = 2

func (d *door) serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "drive the session over a JSON-lines protocol on stdin and stdout (see docs/protocol.md)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stdio", Usage: "speak the protocol on standard input and output"},
			jsonFlag,
		},
		// Its host sends consents and gate answers for a human: an agent
		// host's command environment is refused, as at nika apply.
		Action: humansOnly(d.serve),
	}
}

// MaxRequest bounds one request line, its newline excluded.
const MaxRequest = 16 << 20

// callSpec is one call of the protocol: its fields (beside "call" and
// "seq", which every request may carry) and those it requires.
type callSpec struct {
	fields   []string
	required []string
}

// calls is the protocol's table of calls. docs/protocol.md lists the same.
var calls = map[string]callSpec{
	"turn":         {fields: []string{"text"}, required: []string{"text"}},
	"consent":      {fields: []string{"id", "answer"}, required: []string{"answer"}},
	"answer_gate":  {fields: []string{"gate", "line"}, required: []string{"line"}},
	"observe_run":  {fields: []string{"exit", "trace"}, required: []string{"exit"}},
	"snapshot":     {},
	"intelligence": {fields: []string{"choice"}, required: []string{"choice"}},
	"builtins":     {},
	"providers":    {},
	"last_run":     {},
	"gates":        {},
}

// nested are the exact fields of the objects a request holds.
var nested = map[string][]string{
	"gate":   {"trace", "task"},
	"trace":  {"trace", "task", "question"},
	"choice": {"kind", "command", "url", "model", "key_env", "engine"},
}

func callNames() []string {
	var out []string
	for c := range calls {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// request is one line from the host, once its fields are checked.
type request struct {
	Seq    json.RawMessage      `json:"seq,omitempty"`
	Call   string               `json:"call"`
	Text   string               `json:"text"`
	ID     string               `json:"id"`
	Answer *string              `json:"answer"`
	Gate   *session.GateID      `json:"gate"`
	Line   *string              `json:"line"`
	Exit   *int                 `json:"exit"`
	Trace  session.Trace        `json:"trace"`
	Choice *intelligence.Choice `json:"choice"`
}

// badRequest is a request refused before it reached the machine.
type badRequest struct {
	seq   json.RawMessage
	call  string
	class refusal.Class
	text  string
}

func bad(seq json.RawMessage, call string, class refusal.Class, format string, args ...any) *badRequest {
	return &badRequest{seq: seq, call: call, class: class, text: fmt.Sprintf(format, args...)}
}

// parseRequest checks one line against the table of calls and decodes it.
func parseRequest(line []byte) (request, *badRequest) {
	var req request
	if len(bytes.TrimSpace(line)) == 0 {
		return req, bad(nil, "", refusal.Invalid, "an empty line is not a request · send one JSON object per line: {\"call\":\"snapshot\"}")
	}
	fields, err := objectFields(line)
	if err != nil {
		return req, bad(nil, "", refusal.Invalid, "the line is not one JSON object: %s", err)
	}
	seq := fields["seq"]
	call := ""
	if raw, ok := fields["call"]; !ok {
		return req, bad(seq, "", refusal.Invalid, "the request names no call · the calls are %s", strings.Join(callNames(), ", "))
	} else if json.Unmarshal(raw, &call) != nil {
		return req, bad(seq, "", refusal.Invalid, "\"call\" must be a string · the calls are %s", strings.Join(callNames(), ", "))
	}
	spec, ok := calls[call]
	if !ok {
		return req, bad(seq, call, refusal.Invalid, "unknown call %s · the calls are %s", changeset.Quote(call), strings.Join(callNames(), ", "))
	}
	allowed := map[string]bool{"call": true, "seq": true}
	for _, f := range spec.fields {
		allowed[f] = true
	}
	var names []string
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !allowed[k] {
			return req, bad(seq, call, refusal.Invalid, "the call %s has no field %s · its fields are %s", call, changeset.Quote(k), fieldList(spec))
		}
		if want, ok := nested[k]; ok && string(bytes.TrimSpace(fields[k])) != "null" {
			inner, err := objectFields(fields[k])
			if err != nil {
				return req, bad(seq, call, refusal.Invalid, "%s must be one JSON object: %s", changeset.Quote(k), err)
			}
			for ik := range inner {
				if !contains(want, ik) {
					return req, bad(seq, call, refusal.Invalid, "%s has no field %s · its fields are %s", changeset.Quote(k), changeset.Quote(ik), strings.Join(want, ", "))
				}
			}
		}
	}
	for _, k := range spec.required {
		if _, ok := fields[k]; !ok {
			return req, bad(seq, call, refusal.Invalid, "the call %s needs the field %s · its fields are %s", call, changeset.Quote(k), fieldList(spec))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return req, bad(seq, call, refusal.Invalid, "the field %s must be a JSON %s, not %s", changeset.Quote(te.Field), jsonKind(te.Type.String()), te.Value)
		}
		return req, bad(seq, call, refusal.Invalid, "the request could not be read: %s", err)
	}
	return req, nil
}

func jsonKind(goType string) string {
	switch {
	case strings.Contains(goType, "int") || strings.Contains(goType, "float"):
		return "number"
	case strings.Contains(goType, "string") && strings.HasPrefix(goType, "[]"):
		return "array of strings"
	case strings.Contains(goType, "string"):
		return "string"
	}
	return "object"
}

func fieldList(s callSpec) string {
	if len(s.fields) == 0 {
		return "none (beside call and seq)"
	}
	return strings.Join(s.fields, ", ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// objectFields reads exactly one JSON object and returns its members by
// their exact names. A second value after it, a repeated name, or a value
// that is not an object is refused.
func objectFields(b []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, errors.New("it is not JSON")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("it is not an object")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, errors.New("it is not valid JSON")
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("the value of %s is not valid JSON", changeset.Quote(k))
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("the field %s appears twice", changeset.Quote(k))
		}
		out[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("it is not valid JSON")
	}
	if rest := bytes.TrimSpace(b[dec.InputOffset():]); len(rest) > 0 {
		return nil, errors.New("more follows the object on the same line (one object per line)")
	}
	return out, nil
}

// readLine reads one line of at most max bytes (its newline excluded). A
// longer line is read to its end and dropped: tooLong is set, and the
// next call reads the next line. err is io.EOF at the end of input.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(bytes.TrimSuffix(line, []byte("\n"))) > max {
				tooLong, line = true, nil
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(line) == 0 && !tooLong:
			return nil, false, io.EOF
		case err != nil && err != io.EOF:
			return nil, false, err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		return bytes.TrimSuffix(line, []byte("\r")), tooLong, nil
	}
}

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
	gates, _ := eng.Gates()
	hello := map[string]any{
		"type":     "hello",
		"protocol": ProtocolVersion,
		"limits":   map[string]any{"line_bytes": MaxRequest},
		"snapshot": m.Snapshot(),
		"gates":    gatesOrEmpty(gates),
		"intelligence": map[string]any{
			"kind": choice.Kind, "kept": kept, "where": whereNow(choice, rsn),
		},
		"census": intelligence.Take(intelligence.LookPath, intelligence.LookupEnv),
	}
	if e := firstErr(lerr, serr); e != nil {
		hello["refusal"] = outcomeJSON(session.Refused(e))
	}
	d.line(hello)
	in := bufio.NewReaderSize(d.stdin, 64<<10)
	for {
		raw, tooLong, err := readLine(in, MaxRequest)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			d.result(nil, "", []session.Outcome{session.Refusal{Class: refusal.Io, Text: "the input could not be read: " + err.Error()}})
			return nil
		}
		if tooLong {
			d.result(nil, "", []session.Outcome{session.Refusal{Class: refusal.TooLarge,
				Text: fmt.Sprintf("the line is longer than %d bytes, the limit of one request · it was skipped; split the text, or send the file's path in a turn instead of its bytes", MaxRequest)}})
			continue
		}
		req, b := parseRequest(raw)
		if b != nil {
			d.result(b.seq, b.call, []session.Outcome{session.Refusal{Class: b.class, Text: b.text}})
			continue
		}
		d.result(req.Seq, req.Call, d.call(eng, m, home, req))
	}
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
func (d *door) call(eng *project.Engine, m *session.Machine, home string, req request) []session.Outcome {
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
		s, err := eng.Snapshot()
		if err != nil {
			return []session.Outcome{session.Refused(err)}
		}
		return []session.Outcome{snapshotOutcome{s}}
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
		return []session.Outcome{gatesOutcome{gatesOrEmpty(g)}}
	case "intelligence":
		r, err := intelligence.Serve(*req.Choice, intelligence.LookPath, intelligence.LookupEnv)
		if err != nil {
			return []session.Outcome{session.Refused(err)}
		}
		if err := intelligence.Save(home, *req.Choice); err != nil {
			return []session.Outcome{session.Refused(err)}
		}
		m.SetReasoner(r)
		return []session.Outcome{session.Answer{Text: whereNow(*req.Choice, r)}}
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

// protocolOutcomes are the outcomes a result can hold, one of each type:
// docs/protocol.md lists the same, field for field (protocol_doc_test.go).
var protocolOutcomes = []session.Outcome{
	session.Answer{}, session.Proposal{}, session.Discarded{}, session.Applied{}, session.RunRequested{},
	runOutcome{}, session.GateAsk{}, session.ResumeRequested{}, session.AskIntelligence{}, snapshotOutcome{},
	gatesOutcome{}, session.Builtins{}, session.Providers{}, session.LastRun{}, session.Refusal{},
}

type snapshotOutcome struct {
	Snapshot session.Snapshot `json:"snapshot"`
}

func (snapshotOutcome) Kind() string { return "snapshot" }

type gatesOutcome struct {
	Gates []session.GateAsk `json:"gates"`
}

func (gatesOutcome) Kind() string { return "gates" }

// outcomeJSON is an outcome as an object with its type; a refusal also
// carries the exit code of its class (the one table).
func outcomeJSON(o session.Outcome) map[string]any {
	b, _ := json.Marshal(o)
	m := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&m)
	m["type"] = o.Kind()
	if r, ok := o.(session.Refusal); ok {
		m["text"] = doorwords.SessionText(r) // the fix in the session's words
		m["exit"] = refusal.Code(r.Class)
	}
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
