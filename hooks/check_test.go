package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/refusal"
)

// checkAll is the check of the applied files with its refusals joined.
func checkAll(root string, paths []string) ([]checker.Report, error) {
	reports, errs := checkFiles(root, paths)
	return reports, errors.Join(errs...)
}

const (
	cleanWorkflow = "nika: hello\ntasks:\n  greet:\n    infer: { prompt: hi }\n"
	dupKey        = "nika: hello\ntasks:\n  greet:\n    infer: { prompt: hi, prompt: ho }\n"
)

func writeFile(t *testing.T, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckFilesReadsTheAuditedFilesFromDisk(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "flows/b.nika.yaml", cleanWorkflow)
	writeFile(t, root, "a.nika.yaml", dupKey)
	writeFile(t, root, "README.md", "not: [a workflow")

	reports, err := checkAll(root, []string{"flows/b.nika.yaml", "README.md", "a.nika.yaml", "a.nika.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 2 || reports[0].Path != "a.nika.yaml" || reports[1].Path != "flows/b.nika.yaml" {
		t.Fatalf("reports %+v, want a.nika.yaml then flows/b.nika.yaml, once each, no README.md", reports)
	}
	if errs := reports[0].Errors(); len(errs) != 1 || errs[0].Code != "NIKA-YAML-004" || errs[0].Line != 4 {
		t.Errorf("a.nika.yaml: %+v", reports[0].Findings)
	}
	if !reports[1].Clean() {
		t.Errorf("flows/b.nika.yaml: %+v", reports[1].Findings)
	}

	// What is on disk is what is checked: change the bytes, the report follows.
	writeFile(t, root, "a.nika.yaml", cleanWorkflow)
	reports, err = checkAll(root, []string{"a.nika.yaml"})
	if err != nil || len(reports) != 1 || !reports[0].Clean() {
		t.Fatalf("%+v %v", reports, err)
	}
}

func TestCheckFilesRefusesAPathThroughASymlink(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "real/w.nika.yaml", dupKey)
	if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real/w.nika.yaml", filepath.Join(root, "s.nika.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"link/w.nika.yaml", "s.nika.yaml"} {
		t.Run(p, func(t *testing.T) {
			reports, err := checkAll(root, []string{p, "real/w.nika.yaml"})
			if err == nil {
				t.Fatalf("read %s through a symlink", p)
			}
			if refusal.ClassOf(err) != refusal.NotAllowed {
				t.Errorf("class %s: %v", refusal.ClassOf(err), err)
			}
			if !strings.Contains(err.Error(), p+" was not checked") || strings.Contains(err.Error(), root) {
				t.Errorf("refusal text: %v", err)
			}
			// The other file is still checked.
			if len(reports) != 1 || reports[0].Path != "real/w.nika.yaml" {
				t.Errorf("reports %+v", reports)
			}
		})
	}
}

func TestCheckFilesSaysWhenAFileIsGone(t *testing.T) {
	root := t.TempDir()
	_, err := checkAll(root, []string{"gone.nika.yaml"})
	var e *refusal.Error
	if !errors.As(err, &e) || e.Class != refusal.NotFound || !strings.Contains(e.Text, "gone.nika.yaml") {
		t.Fatalf("%v", err)
	}
}

func TestCheckFilesRefusesAnInvalidPath(t *testing.T) {
	root := t.TempDir()
	_, err := checkAll(root, []string{"../outside.nika.yaml"})
	if err == nil {
		t.Fatal("a path outside the root was read")
	}
}

func TestCheckFilesWithNothingAudited(t *testing.T) {
	reports, err := checkAll("/nonexistent-root", []string{"main.go", "docs/x.md"})
	if err != nil || len(reports) != 0 {
		t.Fatalf("%+v %v", reports, err)
	}
}

// TestCheckFilesJudgesTheNeighboursOnDisk: the post-apply check reads the
// files a workflow names beside itself from the disk beneath the root: a
// composed child that is missing, or one that needs more than the parent
// grants, is a finding; a child reached through a symlink is never read.
func TestCheckFilesJudgesTheNeighboursOnDisk(t *testing.T) {
	const parent = "nika: parent\npermits:\n  exec: [echo]\ntasks:\n  call:\n    invoke:\n      workflow: ./child.nika.yaml\n"
	const child = "nika: child\npermits:\n  net:\n    http: [api.example.com]\n  tools: [nika:fetch]\ntasks:\n  get:\n    invoke:\n      tool: nika:fetch\n      args: { url: \"https://api.example.com/x\" }\n"
	root := t.TempDir()
	writeFile(t, root, "flows/parent.nika.yaml", parent)
	reports, err := checkAll(root, []string{"flows/parent.nika.yaml"})
	if err != nil || len(reports) != 1 {
		t.Fatalf("%+v %v", reports, err)
	}
	if codes := codesOf(reports[0]); codes != "NIKA-COMP-001" {
		t.Errorf("a missing child: %s, want NIKA-COMP-001", codes)
	}
	writeFile(t, root, "flows/child.nika.yaml", child)
	reports, _ = checkAll(root, []string{"flows/parent.nika.yaml"})
	if codes := codesOf(reports[0]); codes != "NIKA-COMP-002" {
		t.Errorf("a child beyond the parent's grant: %s, want NIKA-COMP-002", codes)
	}
	os.Remove(filepath.Join(root, "flows/child.nika.yaml"))
	writeFile(t, root, "elsewhere/child.nika.yaml", child)
	if err := os.Symlink("../elsewhere/child.nika.yaml", filepath.Join(root, "flows/child.nika.yaml")); err != nil {
		t.Skipf("cannot make a symlink: %v", err)
	}
	reports, _ = checkAll(root, []string{"flows/parent.nika.yaml"})
	if codes := codesOf(reports[0]); codes == "NIKA-COMP-002" {
		t.Errorf("the child was read through a symlink: %s", codes)
	}
}

func codesOf(r checker.Report) string {
	var out []string
	seen := map[string]bool{}
	for _, f := range r.Errors() {
		if !seen[f.Code] {
			seen[f.Code] = true
			out = append(out, f.Code)
		}
	}
	return strings.Join(out, " ")
}
