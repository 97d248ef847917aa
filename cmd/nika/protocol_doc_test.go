package main

import (
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
	rowRe    = regexp.MustCompile("(?m)^\\| `([a-z_A-Z]+)` \\|([^|]*)\\|")
	nameRe   = regexp.MustCompile("`([a-z_]+)(?:\\[\\])?`")
	parenRe  = regexp.MustCompile(`\([^)]*\)`)
	nestedRe = regexp.MustCompile("`([a-z_]+)` \\((?:optional )?`\\{([^}]*)\\}`\\)")
)

// docRows reads a table's rows: the backticked name of the first column,
// and the backticked names of the second (outside parentheses).
func docRows(section string) map[string][]string {
	out := map[string][]string{}
	for _, m := range rowRe.FindAllStringSubmatch(section, -1) {
		if m[1] == "call" || m[1] == "type" {
			continue // the header
		}
		var fields []string
		for _, f := range nameRe.FindAllStringSubmatch(parenRe.ReplaceAllString(m[2], ""), -1) {
			fields = append(fields, f[1])
		}
		sort.Strings(fields)
		out[m[1]] = fields
	}
	return out
}

func jsonFields(v any) []string {
	var out []string
	t := reflect.TypeOf(v)
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		if tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	sort.Strings(out)
	return out
}

// TestProtocolDocMatchesTheTypes: docs/protocol.md cannot drift from the
// protocol: its calls and their fields are the table serve.go enforces,
// its outcomes and their fields are the JSON of the types, its classes and
// codes are the one table's, and its limits are the code's.
func TestProtocolDocMatchesTheTypes(t *testing.T) {
	b, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)

	// calls
	documented := docRows(docSection(t, doc, "## Calls from the host"))
	for name, spec := range calls {
		want := append([]string(nil), spec.fields...)
		sort.Strings(want)
		got, ok := documented[name]
		if !ok {
			t.Errorf("the call %s is not documented", name)
		} else if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the call %s takes %v, the document says %v", name, want, got)
		}
	}
	for name := range documented {
		if _, ok := calls[name]; !ok {
			t.Errorf("the document lists a call %s that does not exist", name)
		}
	}
	for _, m := range nestedRe.FindAllStringSubmatch(docSection(t, doc, "## Calls from the host"), -1) {
		var got []string
		for _, f := range strings.Split(m[2], ",") {
			got = append(got, strings.TrimSuffix(strings.TrimSpace(f), "[]"))
		}
		if want, ok := nested[m[1]]; !ok || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s holds %v, the document says %v", m[1], want, got)
		}
	}

	// outcomes
	outs := docRows(docSection(t, doc, "## Lines from nika"))
	seen := map[string]bool{}
	for _, o := range protocolOutcomes {
		want := jsonFields(o)
		if _, ok := o.(session.Refusal); ok {
			want = append(want, "exit")
			sort.Strings(want)
		}
		seen[o.Kind()] = true
		got, ok := outs[o.Kind()]
		if !ok {
			t.Errorf("the outcome %s is not documented", o.Kind())
		} else if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the outcome %s has the fields %v, the document says %v", o.Kind(), want, got)
		}
	}
	for k := range outs {
		if !seen[k] {
			t.Errorf("the document lists an outcome %s that does not exist", k)
		}
	}

	// classes: the one table's, with its codes
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
	for _, c := range []refusal.Class{session.NoIntelligence, session.IntelligenceRefused, session.WrongState, session.EmptyAnswer,
		refusal.Invalid, refusal.NotAllowed, refusal.Dirty, refusal.NotFound, refusal.StaleRevision, refusal.AlreadyConsumed, refusal.TooLarge, refusal.Io} {
		if _, ok := docClasses[c]; !ok {
			t.Errorf("the class %s is not documented", c)
		}
	}

	// limits and version
	if !strings.Contains(doc, fmt.Sprintf(`"limits":{"line_bytes":%d}`, MaxRequest)) || !strings.Contains(doc, fmt.Sprintf("longer than %d bytes", MaxRequest)) {
		t.Errorf("the document does not give the line limit %d", MaxRequest)
	}
	if !strings.Contains(doc, fmt.Sprintf(`{"type":"hello","protocol":%d,`, ProtocolVersion)) {
		t.Errorf("the document's hello is not protocol %d", ProtocolVersion)
	}
}
