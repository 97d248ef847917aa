package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/intelligence"
)

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

// nested are the exact fields of the objects a request holds (gate, trace,
// choice), in their structs' order: read from Request's types, so that the
// check and the decoding cannot disagree.
var nested = nestedFields(reflect.TypeOf(Request{}))

func nestedFields(t reflect.Type) map[string][]string {
	out := map[string][]string{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Struct {
			continue
		}
		out[jsonName(f)] = fieldNames(ft)
	}
	return out
}

// fieldNames are the JSON names of a struct's fields, in order.
func fieldNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if n := jsonName(t.Field(i)); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// jsonName is a field's JSON name, "" for a field JSON leaves out.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return f.Name
	}
	return name
}

func callNames() []string {
	var out []string
	for c := range calls {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Request is one line from the host, once its fields are checked against
// the call's row of calls: each call reads the fields its row names.
type Request struct {
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
func parseRequest(line []byte) (Request, *badRequest) {
	var req Request
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
