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

// TestSpecCounterfactuals replays what the examples' own comments promise:
// the human gate of these files is a blocking nika:prompt, and "add
// default: here and NIKA-SEC-009 fires". The test adds it and expects the
// lethal-trifecta refusal, and only that.
func TestSpecCounterfactuals(t *testing.T) {
	root := specDir(t)
	for _, f := range []string{"examples/ceo-monday-brief.nika.yaml", "examples/incident-war-room.nika.yaml", "examples/release-radar.nika.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Skipf("%s: %v", f, err)
		}
		s := string(data)
		i := strings.Index(s, "tool: \"nika:prompt\"")
		if i < 0 {
			t.Fatalf("%s: no nika:prompt gate", f)
		}
		j := strings.Index(s[i:], "args:\n")
		if j < 0 {
			t.Fatalf("%s: the gate has no block args:", f)
		}
		k := i + j + len("args:\n")
		line := s[k : k+strings.IndexByte(s[k:], '\n')]
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		mutated := s[:k] + indent + "default: false\n" + s[k:]
		if rep := CheckFS(os.DirFS(root), f, data); !rep.Clean() {
			t.Fatalf("%s: the original must be clean: %v", f, codesOf(rep.Findings))
		}
		rep := CheckFS(os.DirFS(root), f, []byte(mutated))
		got := codesOf(rep.Errors())
		if len(got) == 0 {
			t.Errorf("%s: a defaulted gate must let NIKA-SEC-009 fire, got a clean report", f)
		}
		for _, c := range got {
			if c != "NIKA-SEC-009" {
				t.Errorf("%s: unexpected %s with a defaulted gate", f, c)
			}
		}
	}
}

// TestSpecCommentedRefusals replays refusals the examples' comments name:
// each mutation is the edit a comment warns about, and the checker must
// answer with the code the comment names.
func TestSpecCommentedRefusals(t *testing.T) {
	root := specDir(t)
	cases := []struct {
		file, old, new, code string
	}{
		// "A bound cannot interpolate — `${{ const.target }}` here is NIKA-AUTH-007."
		{"examples/06-code-review.nika.yaml", `read: ["./examples/fixtures/review-me.rs"]`, `read: ["${{ const.target }}"]`, "NIKA-AUTH-007"},
		// "`description:` here is NIKA-PARSE-005 · unknown field"
		{"examples/bookmark-triage.nika.yaml", "    type: { array: string }\n", "    description: \"the pile\"\n    type: { array: string }\n", "NIKA-PARSE-005"},
		// "a STATIC path (never `${{ }}` · `NIKA-COMP-001`)"
		{"examples/10-compose-pipeline.nika.yaml", `workflow: "./10-compose-child.nika.yaml"`, `workflow: "./${{ inputs.child }}.nika.yaml"`, "NIKA-COMP-001"},
		// "Taken alone, check refuses before anything runs — NIKA-COMP-001 names the missing file"
		{"examples/10-compose-pipeline.nika.yaml", `workflow: "./10-compose-child.nika.yaml"`, `workflow: "./no-such-child.nika.yaml"`, "NIKA-COMP-001"},
	}
	for _, tc := range cases {
		data, err := os.ReadFile(filepath.Join(root, tc.file))
		if err != nil {
			t.Skipf("%s: %v", tc.file, err)
		}
		if strings.Count(string(data), tc.old) != 1 {
			t.Fatalf("%s: the text to mutate is not unique: %q", tc.file, tc.old)
		}
		mutated := strings.Replace(string(data), tc.old, tc.new, 1)
		rep := CheckFS(os.DirFS(root), tc.file, []byte(mutated))
		found := false
		for _, f := range rep.Errors() {
			found = found || f.Code == tc.code
		}
		if !found {
			t.Errorf("%s with %q: want %s, got %v", tc.file, tc.new, tc.code, codesOf(rep.Findings))
		}
	}
}
