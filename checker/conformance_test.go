package checker

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// expectation is the expected.json of one conformance case.
type expectation struct {
	Valid  bool `json:"valid"`
	Errors []struct {
		Code      string `json:"code"`
		Namespace string `json:"namespace"`
		Category  string `json:"category"`
	} `json:"errors"`
}

// conformanceCase runs one case and returns "" on a pass, else the reason.
func conformanceCase(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
	if err != nil {
		return "", err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		return "", err
	}
	var exp expectation
	if err := json.Unmarshal(raw, &exp); err != nil {
		return "", err
	}
	rep := CheckFS(os.DirFS(dir), "input.yaml", data)
	errs := rep.Errors()
	var got []string
	for _, f := range errs {
		got = append(got, fmt.Sprintf("%s@%d:%d", f.Code, f.Line, f.Col))
	}
	if exp.Valid {
		if len(errs) > 0 {
			return "expected valid, got " + strings.Join(got, " ") + " · " + errs[0].Message, nil
		}
		return "", nil
	}
	if len(errs) == 0 {
		return "expected a refusal, got a clean report", nil
	}
	for _, e := range exp.Errors {
		matched := false
		for _, f := range errs {
			switch {
			case e.Code != "":
				matched = matched || f.Code == e.Code
			case e.Namespace != "":
				matched = matched || strings.HasPrefix(f.Code, e.Namespace+"-")
			case e.Category != "":
				matched = matched || f.Category == e.Category
			}
		}
		if !matched {
			want := e.Code
			if want == "" {
				want = e.Namespace + "/" + e.Category
			}
			return "expected " + want + ", got " + strings.Join(got, " "), nil
		}
	}
	return "", nil
}

// TestConformanceCore runs every case of conformance/tests/core and
// requires at least 90% of them to pass, as conformance/runner-protocol.md
// matches them.
func TestConformanceCore(t *testing.T) {
	root := filepath.Join(specDir(t), "conformance", "tests", "core")
	var cases []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "expected.json" {
			cases = append(cases, filepath.Dir(p))
		}
		return nil
	})
	sort.Strings(cases)
	if len(cases) == 0 {
		t.Skipf("no conformance cases under %s", root)
	}
	pass := 0
	var fails []string
	for _, dir := range cases {
		name, _ := filepath.Rel(root, dir)
		reason, err := conformanceCase(dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if reason == "" {
			pass++
			continue
		}
		fails = append(fails, name+": "+reason)
	}
	rate := float64(pass) * 100 / float64(len(cases))
	t.Logf("conformance core: %d/%d pass (%.1f%%)", pass, len(cases), rate)
	for _, f := range fails {
		t.Logf("FAIL %s", f)
	}
	if rate < 90 {
		t.Fatalf("conformance pass rate %.1f%% is under 90%%", rate)
	}
}
