package main

import (
	"flag"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite what the tests compare with: the man pages under docs/man, and the files the scripts cmp against (testscript UpdateScripts)")

// TestDoorsReachTheProjectThroughFlow keeps the door layer thin: no file of
// cmd/nika or of a door package (docs/architecture.md) imports the rooms
// that flow composes (git, the transaction, the file system beneath the
// root, the hooks). A door that needs one of them needs a flow function
// every door can share.
func TestDoorsReachTheProjectThroughFlow(t *testing.T) {
	forbidden := []string{"gitstage", "consent", "safefs", "hooks"}
	var files []string
	for _, dir := range []string{".", "../../mcp", "../../protocol", "../../terminal", "../../review", "../../doorwords"} {
		fs, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(fs) == 0 {
			t.Fatalf("no Go file in %s", dir)
		}
		files = append(files, fs...)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, room := range forbidden {
				if path == "github.com/nika-dev/nika/"+room || strings.HasPrefix(path, "github.com/nika-dev/nika/"+room+"/") {
					t.Errorf("%s imports %s: doors reach the project through flow", f, path)
				}
			}
		}
	}
}

// TestManPagesFresh keeps docs/man/nika.1 and docs/man/git-nika.1 equal to
// what the command tree renders (go test ./cmd/nika -run TestManPages
// -update rewrites them).
func TestManPagesFresh(t *testing.T) {
	d := &door{name: "nika"}
	for _, name := range []string{"nika", "git-nika"} {
		path := filepath.Join("..", "..", "docs", "man", name+".1")
		want := manPage(name, d.commands())
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (generate it with go test ./cmd/nika -run TestManPages -update)", err)
		}
		if string(got) != want {
			t.Errorf("%s is stale: the command tree changed (go test ./cmd/nika -run TestManPages -update)", path)
		}
	}
}
