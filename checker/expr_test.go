package checker

import (
	"reflect"
	"strings"
	"testing"
)

func TestIslands(t *testing.T) {
	cases := []struct {
		in       string
		exprs    []string
		unclosed int
	}{
		{"plain text", nil, -1},
		{"${{ a.b }}", []string{"a.b"}, -1},
		{"x ${{ a }} y ${{ b }}", []string{"a", "b"}, -1},
		{`\${{ a }}`, nil, -1},
		{`\\${{ a }}`, []string{"a"}, -1},
		{"${{ 'a}}b' }}", []string{"'a}}b'"}, -1},
		{"${{ a", nil, 0},
		{"ok ${{ a }} ${{ b", []string{"a"}, 12},
	}
	for _, tc := range cases {
		isl, un := islands(tc.in)
		var got []string
		for _, is := range isl {
			got = append(got, is.expr)
		}
		if !reflect.DeepEqual(got, tc.exprs) || un != tc.unclosed {
			t.Errorf("%q: got %v %d, want %v %d", tc.in, got, un, tc.exprs, tc.unclosed)
		}
	}
}

func TestCELSubset(t *testing.T) {
	ok := []string{
		"with.x == 'y'",
		"size(with.items) > 0",
		"has(inputs.style) && inputs.style != 'none'",
		"with.log.contains('ERROR')",
		"item.kind in ['a', 'b']",
		"inputs.env == 'prod' ? 'mistral/large' : 'ollama/q'",
		"!(with.a == 1) || with.b[0] >= -2.5",
		"obj['key-with-dash'] == null",
	}
	for _, src := range ok {
		if _, err := parseCEL(src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	bad := map[string]string{
		"a < b < c":                    "chain",
		"a + 1":                        "unexpected character",
		"matches(a, 'x')":              "not in the subset",
		"a.exists(x, x > 1)":           "not in the subset",
		"":                             "empty",
		"(a":                           "expected",
		strings.Repeat("!", 500) + "a": "too deep",
	}
	for src, want := range bad {
		_, err := parseCEL(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want it to mention %q", src, err, want)
		}
	}
}

func TestRefs(t *testing.T) {
	e, err := parseCEL("size(with.items) > 0 && tasks.a.output.x[0] == inputs.k && has(const.c)")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range refs(e) {
		s := refText(r)
		if r.inHas {
			s += " (has)"
		}
		got = append(got, s)
	}
	want := []string{"with.items", "tasks.a.output.x[…]", "inputs.k", "const.c (has)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestEvalTri(t *testing.T) {
	env := func(r ref) (any, bool) {
		if refText(r) == "with.go" {
			return false, true
		}
		return nil, false
	}
	for src, want := range map[string]tri{
		"with.go == true":                     triFalse,
		"with.go == true || with.go == false": triTrue,
		"with.other == 1":                     triUnknown,
		"with.go == true && with.other":       triFalse,
		"!with.go":                            triTrue,
	} {
		e, err := parseCEL(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := evalTri(e, env); got != want {
			t.Errorf("%q: %v, want %v", src, got, want)
		}
	}
}

func TestGlobs(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"nika:*", "nika:read", true},
		{"nika:*", "mcp:x/y", false},
		{"mcp:browser/*", "mcp:browser/navigate", true},
		{"mcp:browser/*", "mcp:browser/tab/open", false},
		{"mcp:browser/**", "mcp:browser/tab/open", true},
	} {
		if got := toolGlob(tc.pattern, tc.s); got != tc.want {
			t.Errorf("toolGlob(%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
	for _, tc := range []struct {
		p     string
		globs []string
		want  bool
	}{
		{"datasets/../datasets/q3.csv", []string{"datasets/**"}, true},
		{"../../etc/passwd", []string{"./**"}, false},
		{"datasets/sub/x.csv", []string{"./datasets/*.csv"}, false},
		{"./datasets/x.csv", []string{"datasets/*.csv"}, true},
		{"./src", []string{"./src/**"}, true},
		{"/tmp/a", []string{"/tmp/**"}, true},
	} {
		if got := pathAllowed(tc.p, tc.globs); got != tc.want {
			t.Errorf("pathAllowed(%q, %v) = %v", tc.p, tc.globs, got)
		}
	}
}

func TestFloorAndCodeClasses(t *testing.T) {
	for h, want := range map[string]bool{
		"169.254.169.254": true, "10.1.2.3": true, "localhost": true, "a.localhost": true,
		"127.0.0.1": true, "[::1]": true, "100.64.0.1": true, "metadata.google.internal": true,
		"api.example.com": false, "8.8.8.8": false,
	} {
		if got := floorBlocked(h); got != want {
			t.Errorf("floorBlocked(%q) = %v", h, got)
		}
	}
	for u, want := range map[string]string{
		"https://x/m.pkl": "pkl", "https://x/M.PT": "pt", "https://x/a%2epkl": "pkl",
		"https://x/lib.so.1.2": "so", "https://x/model.pt.2": "", "https://x/r.csv": "",
		"https://x/run.sh?x=1": "sh", "https://x/dir/": "",
	} {
		if _, got := codeClass(u); got != want {
			t.Errorf("codeClass(%q) = %q, want %q", u, got, want)
		}
	}
}

func TestRegexDialect(t *testing.T) {
	for p, want := range map[string]string{
		"^[a-z][a-z0-9-]{1,30}$": "",
		"(?:ab)+|c*":             "",
		"(?=x)a":                 "lookaround",
		"(a)\\1":                 "a backreference",
		"(?P<n>a)":               "a named group",
		"(?i)abc":                "inline flags",
		"a*?":                    "a lazy or possessive quantifier",
		"\\bword":                "a word boundary",
		"\\p{L}":                 "a unicode property class",
	} {
		if got := regexOutOfDialect(p); got != want {
			t.Errorf("%q: %q, want %q", p, got, want)
		}
	}
}
