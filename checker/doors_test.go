package checker

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bytesOnlyCallers are the non-test files outside this package that may
// still call Check (the bytes alone), each with the reason. Every other
// caller must hand CheckFS the file system of its door, from one of the
// constructors: flow.ProposalFS (through flow.Audit), safefs.DirFS,
// flow.SnapshotFS.
var bytesOnlyCallers = map[string]string{}

// TestEveryDoorHandsTheCheckerItsFileSystem: no door calls checker.Check,
// which cannot see a workflow's skills and composed children, except the
// callers listed above with their reason.
func TestEveryDoorHandsTheCheckerItsFileSystem(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skipf("the module root is not above this package: %v", err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "checker" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Check" {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "checker" {
				if _, allowed := bytesOnlyCallers[rel]; !allowed {
					t.Errorf("%s: calls checker.Check, which judges the bytes without their neighbours; call checker.CheckFS with the door's file system", fset.Position(sel.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
