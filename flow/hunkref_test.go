package flow_test

import (
	"strings"
	"testing"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
)

// TestParseHunkRef: PATH:N, PATH:N,M; the number follows the last colon.
func TestParseHunkRef(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"a.go:1", "a.go:1", ""},
		{"./dir/a.go:2,3", "dir/a.go:2 dir/a.go:3", ""},
		{"c:d.txt:4", "c:d.txt:4", ""},
		{"a.go", "", `"a.go" does not name a hunk`},
		{"a.go:", "", `"a.go:" does not name a hunk`},
		{":1", "", `":1" does not name a hunk`},
		{"a.go:0", "", `"a.go:0" does not name a hunk: "0" is not a hunk number (1, 2, …)`},
		{"a.go:01", "", `"a.go:01" does not name a hunk: "01" is not a hunk number (1, 2, …)`},
		{"a.go:1,,2", "", `"a.go:1,,2" does not name a hunk: "" is not a hunk number (1, 2, …)`},
		{"a.go:-1", "", `"a.go:-1" does not name a hunk: "-1" is not a hunk number (1, 2, …)`},
	} {
		refs, err := flow.ParseHunkRef(tc.in)
		if tc.err != "" {
			if refusal.ClassOf(err) != refusal.Invalid || err.(*refusal.Error).Text != tc.err {
				t.Errorf("%q: %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		var got []string
		for _, r := range refs {
			got = append(got, r.String())
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%q: %v %v, want %s", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseHunkRef(f *testing.F) {
	for _, s := range []string{"a.go:1", "a:b:2,3", ":", "a.go:", "x:99999999999999999999", "é:1,2,3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		refs, err := flow.ParseHunkRef(s)
		if err != nil {
			if refusal.ClassOf(err) != refusal.Invalid {
				t.Fatalf("%q: an unclassed error %v", s, err)
			}
			return
		}
		if len(refs) == 0 {
			t.Fatalf("%q: no ref and no error", s)
		}
		for _, r := range refs {
			if r.N < 1 || r.Path == "" {
				t.Fatalf("%q: %+v", s, r)
			}
		}
	})
}
