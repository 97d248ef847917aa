package checker

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// declaredRe finds a finding a file's own comments declare it must get,
// as the spec's counterexamples spell it ("# Expected · NIKA-VAR-005.").
var declaredRe = regexp.MustCompile(`(?m)^#\s*Expected\s*[·:]\s*(NIKA-[A-Z]+(?:-[A-Z_]+)?-[0-9]{3})`)

// TestSpecWorkflows checks every workflow of the spec's examples/ and
// templates/: a file that declares no finding must check without an error
// or a warning (no false finding), and a file whose comments declare a
// finding must get exactly that code among its errors.
func TestSpecWorkflows(t *testing.T) {
	root := specDir(t)
	var files []string
	for _, dir := range []string{"examples", "templates"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if strings.HasSuffix(p, ".nika.yaml") || strings.HasSuffix(p, ".negative.yaml") {
				files = append(files, p)
			}
			return nil
		})
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Skip("no workflows under examples/ or templates/")
	}
	fsys := os.DirFS(root)
	clean, declared := 0, 0
	for _, p := range files {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rep := CheckFS(fsys, rel, data)
		if rep.Kind != KindWorkflow {
			t.Errorf("%s: kind %q, want workflow", rel, rep.Kind)
		}
		want := declaredRe.FindAllStringSubmatch(string(data), -1)
		if len(want) == 0 {
			for _, f := range rep.Findings {
				t.Errorf("%s:%d:%d: false finding %s (%s): %s", rel, f.Line, f.Col, f.Code, f.Severity, f.Message)
			}
			if rep.Effects == nil {
				t.Errorf("%s: no effect rows", rel)
			}
			clean++
			continue
		}
		declared++
		for _, m := range want {
			found := false
			for _, f := range rep.Errors() {
				found = found || f.Code == m[1]
			}
			if !found {
				t.Errorf("%s: the file declares %s, the checker reported %v", rel, m[1], codesOf(rep.Findings))
			}
		}
	}
	t.Logf("%d workflows checked clean, %d counterexamples got their declared finding", clean, declared)
}

func codesOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return out
}
