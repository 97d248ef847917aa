package checker

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// specCase is the expected.json of one case under testdata/spec: the
// conformance suite's shape, plus the spec text the case comes from.
type specCase struct {
	Valid  bool `json:"valid"`
	Errors []struct {
		Code string `json:"code"`
	} `json:"errors"`
	Source string `json:"source"` // a file of the spec, relative to its root
	Quote  string `json:"quote"`  // words of that file the case enacts
}

// specCaseDirs lists the case folders under testdata/spec.
func specCaseDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	filepath.WalkDir(filepath.Join("testdata", "spec"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "expected.json" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	sort.Strings(dirs)
	if len(dirs) == 0 {
		t.Fatal("no case under testdata/spec")
	}
	return dirs
}

var (
	quoteMarks = regexp.MustCompile(`(?m)^\s*>\s?`)
	quoteSpace = regexp.MustCompile(`\s+`)
)

// normalizeSpec folds a spec text for quoting: block-quote markers and
// line breaks do not count, runs of white space are one space.
func normalizeSpec(s string) string {
	return quoteSpace.ReplaceAllString(quoteMarks.ReplaceAllString(s, " "), " ")
}

// TestSpecCases runs every case the spec's own text states, beyond the
// conformance suite's core tier (testdata/spec/<area>/<case>: input.yaml,
// the files beside it, expected.json). Each case must produce exactly the
// codes it expects, no more and no fewer, and its quote must be words of
// the spec file it names, so that every case is the spec's, not ours.
// cmd/nika runs the same folders through the built nika check --json.
func TestSpecCases(t *testing.T) {
	spec := ""
	if d := os.Getenv("NIKA_SPEC_DIR"); d != "" {
		spec = d
	} else if wd, err := os.Getwd(); err == nil {
		for dir := wd; filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
			if st, err := os.Stat(filepath.Join(dir, "shared", "nika-spec", "spec")); err == nil && st.IsDir() {
				spec = filepath.Join(dir, "shared", "nika-spec")
				break
			}
		}
	}
	texts := map[string]string{}
	for _, dir := range specCaseDirs(t) {
		name := filepath.ToSlash(strings.TrimPrefix(dir, filepath.Join("testdata", "spec")+string(filepath.Separator)))
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			var exp specCase
			if err := json.Unmarshal(raw, &exp); err != nil {
				t.Fatal(err)
			}
			if exp.Source == "" || exp.Quote == "" {
				t.Fatal("the case names no source or quote")
			}
			if spec != "" {
				text, ok := texts[exp.Source]
				if !ok {
					b, err := os.ReadFile(filepath.Join(spec, filepath.FromSlash(exp.Source)))
					if err != nil {
						t.Fatalf("the source %s: %v", exp.Source, err)
					}
					text = normalizeSpec(string(b))
					texts[exp.Source] = text
				}
				if !strings.Contains(text, normalizeSpec(exp.Quote)) {
					t.Errorf("the quote is not in %s: %q", exp.Source, exp.Quote)
				}
			}
			data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			rep := CheckFS(os.DirFS(dir), "input.yaml", data)
			var got []string
			for _, f := range rep.Errors() {
				got = append(got, f.Code)
			}
			sort.Strings(got)
			got = slices.Compact(got)
			var want []string
			for _, e := range exp.Errors {
				want = append(want, e.Code)
			}
			sort.Strings(want)
			if exp.Valid != (len(want) == 0) {
				t.Fatalf("expected.json says valid=%v with %d errors", exp.Valid, len(want))
			}
			if !slices.Equal(got, want) {
				var detail []string
				for _, f := range rep.Errors() {
					detail = append(detail, f.Code+" "+f.Message)
				}
				t.Errorf("codes %v, want %v\n%s", got, want, strings.Join(detail, "\n"))
			}
		})
	}
}
