package protocol

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
)

// docSection is the text of docs/protocol.md from heading to the next one
// of the same level.
func docSection(t *testing.T, doc, heading string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("docs/protocol.md has no %q", heading)
	}
	rest := doc[i+len(heading)+2:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

var (
	rowRe    = regexp.MustCompile("(?m)^\\| `([a-z_A-Z]+)` \\|([^|]*)\\|(.*)$")
	nameRe   = regexp.MustCompile("`([a-z_]+)(?:\\[\\])?`")
	parenRe  = regexp.MustCompile(`\([^)]*\)`)
	nestedRe = regexp.MustCompile("`([a-z_]+)(?:\\[\\])?` (?:\\((?:optional )?|are )`\\{([^}]*)\\}`")
)

// docRow is one row of a table: the backticked names of its second column
// (outside parentheses), and the objects the row spells out (`name`
// (`{a, b}`), or `name` are `{a, b}`) by field name.
type docRow struct {
	fields []string
	nested map[string][]string
}

func docRows(section string) map[string]docRow {
	out := map[string]docRow{}
	for _, m := range rowRe.FindAllStringSubmatch(section, -1) {
		if m[1] == "call" || m[1] == "type" {
			continue // the header
		}
		row := docRow{nested: map[string][]string{}}
		for _, f := range nameRe.FindAllStringSubmatch(parenRe.ReplaceAllString(m[2], ""), -1) {
			row.fields = append(row.fields, f[1])
		}
		sort.Strings(row.fields)
		for _, n := range nestedRe.FindAllStringSubmatch(m[2]+m[3], -1) {
			row.nested[n[1]] = splitNames(n[2])
		}
		out[m[1]] = row
	}
	return out
}

// splitNames reads "a, b[], c" as [a b c].
func splitNames(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		out = append(out, strings.TrimSuffix(strings.TrimSpace(f), "[]"))
	}
	return out
}

func jsonFields(v any) []string {
	out := fieldNames(reflect.TypeOf(v))
	sort.Strings(out)
	return out
}

// objects are the fields of the objects a type holds, at any depth, by the
// name of the field that holds them: what a row may spell out.
func objects(t reflect.Type) map[string][]string {
	out := map[string][]string{}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || depth > 6 {
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			if name := jsonName(f); name != "" && ft.Kind() == reflect.Struct {
				out[name] = fieldNames(ft)
				walk(ft, depth+1)
			}
		}
	}
	walk(t, 0)
	return out
}

// keysOf lists the keys of a JSON object's text, in its order.
func keysOf(t *testing.T, js string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(js))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%q is not a JSON object", js)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// same reports two name lists as sets.
func same(a, b []string) bool {
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func readDoc(t *testing.T) string {
	b, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestProtocolDocMatchesTheTypes: docs/protocol.md cannot drift from the
// protocol: its calls and their fields are the table parseRequest enforces
// and the Request it decodes, its outcomes and their fields are the JSON
// of the types a result holds, its classes and codes are the one table's,
// and its limits are the code's. Each comparison runs both ways.
func TestProtocolDocMatchesTheTypes(t *testing.T) {
	doc := readDoc(t)

	// calls: the document's table is the code's, field for field
	callsDoc := docSection(t, doc, "## Calls from the host")
	documented := docRows(callsDoc)
	for name, spec := range calls {
		got, ok := documented[name]
		if !ok {
			t.Errorf("the call %s is not documented", name)
		} else if !same(got.fields, spec.fields) {
			t.Errorf("the call %s takes %v, the document says %v", name, spec.fields, got.fields)
		}
	}
	for name := range documented {
		if _, ok := calls[name]; !ok {
			t.Errorf("the document lists a call %s that does not exist", name)
		}
	}
	// the table of calls names the Request's fields, all of them
	reqFields := map[string]bool{}
	for _, f := range fieldNames(reflect.TypeOf(Request{})) {
		reqFields[f] = true
	}
	used := map[string]bool{"call": true, "seq": true}
	for name, spec := range calls {
		for _, f := range spec.fields {
			used[f] = true
			if !reqFields[f] {
				t.Errorf("the call %s takes %s, which Request does not decode", name, f)
			}
		}
	}
	for f := range reqFields {
		if !used[f] {
			t.Errorf("Request decodes %s, which no call takes", f)
		}
	}
	// the objects a request holds: each documented, as its struct has them
	docNested := map[string][]string{}
	for _, m := range nestedRe.FindAllStringSubmatch(callsDoc, -1) {
		docNested[m[1]] = splitNames(m[2])
	}
	for name, want := range nested {
		if got, ok := docNested[name]; !ok || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s holds %v, the document says %v", name, want, got)
		}
	}
	for name := range docNested {
		if _, ok := nested[name]; !ok {
			t.Errorf("the document spells out an object %s that no request holds", name)
		}
	}

	// outcomes: each type's fields, and the objects its row spells out
	lines := docSection(t, doc, "## Lines from nika")
	outs := docRows(lines)
	seen := map[string]bool{}
	for _, o := range Outcomes {
		seen[o.Kind()] = true
		row, ok := outs[o.Kind()]
		if !ok {
			t.Errorf("the outcome %s is not documented", o.Kind())
			continue
		}
		if want := jsonFields(o); !same(row.fields, want) {
			t.Errorf("the outcome %s has the fields %v, the document says %v", o.Kind(), want, row.fields)
		}
		objs := objects(reflect.TypeOf(o))
		for name, got := range row.nested {
			if want, ok := objs[name]; !ok || !same(got, want) {
				t.Errorf("the outcome %s: %s holds %v, the document says %v", o.Kind(), name, want, got)
			}
		}
	}
	for k := range outs {
		if !seen[k] {
			t.Errorf("the document lists an outcome %s that does not exist", k)
		}
	}

	// the hello: the document's example has Hello's fields, and the
	// objects of limits, intelligence and census as their structs do
	hello := regexp.MustCompile("(?s)```json\n(\\{\"type\":\"hello\".*?)\n```").FindStringSubmatch(lines)
	if hello == nil {
		t.Fatal("docs/protocol.md has no hello example")
	}
	var example map[string]json.RawMessage
	if err := json.Unmarshal([]byte(hello[1]), &example); err != nil {
		t.Fatalf("the hello example is not JSON: %v", err)
	}
	keys := keysOf(t, hello[1])
	if strings.Contains(lines, "the hello carries a `refusal`") {
		keys = append(keys, "refusal") // only when the kept choice cannot be served
	}
	if want := fieldNames(reflect.TypeOf(Hello{})); !same(keys, want) {
		t.Errorf("the hello has the fields %v, the document's example %v", want, keys)
	}
	helloObjs := objects(reflect.TypeOf(Hello{}))
	for _, name := range []string{"limits", "intelligence", "census", "snapshot"} {
		raw, ok := example[name]
		if !ok {
			continue // reported above
		}
		if got := keysOf(t, string(raw)); !same(got, helloObjs[name]) {
			t.Errorf("the hello's %s has the fields %v, the document's example %v", name, helloObjs[name], got)
		}
	}
	// the result line
	result := regexp.MustCompile(`\{"type":"result"[^\n]*`).FindString(lines)
	var resultKeys []string
	for _, m := range regexp.MustCompile(`"([a-z_]+)":`).FindAllStringSubmatch(result, -1) {
		resultKeys = append(resultKeys, m[1])
	}
	if want := fieldNames(reflect.TypeOf(Result{})); !same(resultKeys, want) {
		t.Errorf("a result has the fields %v, the document's example %v", want, resultKeys)
	}

	// classes: the one table's, with its codes, every one a session can
	// give (all but the classes only nika verify gives)
	classRe := regexp.MustCompile("(?m)^\\| `([A-Za-z]+)` \\| ([0-9]+) \\|")
	rows := classRe.FindAllStringSubmatch(docSection(t, doc, "## Identities and refusal classes"), -1)
	docClasses := map[refusal.Class]int{}
	for _, m := range rows {
		n, _ := strconv.Atoi(m[2])
		docClasses[refusal.Class(m[1])] = n
	}
	all := refusal.Classes()
	for c, n := range docClasses {
		if code, ok := all[c]; !ok || code != n {
			t.Errorf("the document gives %s the code %d; the table: %d (known: %v)", c, n, code, ok)
		}
	}
	verifyOnly := map[refusal.Class]bool{
		refusal.TamperedTrailer: true, refusal.AmendedTree: true, refusal.WrongParent: true, refusal.Findings: true,
		refusal.MissingObjects: true, refusal.NotAProposal: true, refusal.CorruptObject: true,
		refusal.Unsigned: true, refusal.BadSignature: true, refusal.KeyNotAllowed: true,
	}
	for c := range all {
		if _, ok := docClasses[c]; !ok && !verifyOnly[c] {
			t.Errorf("the class %s is not documented", c)
		}
	}

	// limits and version
	if !strings.Contains(doc, fmt.Sprintf(`"limits":{"line_bytes":%d}`, MaxRequest)) || !strings.Contains(doc, fmt.Sprintf("longer than %d bytes", MaxRequest)) {
		t.Errorf("the document does not give the line limit %d", MaxRequest)
	}
	if !strings.Contains(doc, fmt.Sprintf(`{"type":"hello","protocol":%d,`, Version)) {
		t.Errorf("the document's hello is not protocol %d", Version)
	}
}

// TestLinesAreTyped: a line is its struct's JSON, its type first, with no
// HTML escapes; a refusal carries the session's words for its fix, the
// fix's name and its class's exit code.
func TestLinesAreTyped(t *testing.T) {
	r := session.Refused(refusal.New(refusal.Invalid, "give at least 8 hex characters of the id", "%q is not a proposal id", "a<b").WithFix(refusal.ListProposals, ""))
	b, err := marshal(Result{Type: "result", Seq: json.RawMessage(`7`), Call: "consent", Outcomes: []Outcome{
		{session.AskIntelligence{}}, {session.Discarded{ID: "x", Reason: "a & b"}}, {r}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"result","seq":7,"call":"consent","outcomes":[{"type":"ask_intelligence"},{"type":"discarded","id":"x","reason":"a & b"},` +
		`{"type":"refusal","class":"Invalid","text":"\"a<b\" is not a proposal id · give at least 8 hex characters of the id · /pending lists the proposals that wait and their ids","fix":"list-proposals","exit":4}]}`
	if string(b) != want {
		t.Errorf("the line is\n%s\nwant\n%s", b, want)
	}
}
