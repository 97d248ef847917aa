package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// moduleImports reads every package of the module (test files and
// testdata left out) and the module packages each imports.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	const mod = "github.com/nika-dev/nika/"
	root := filepath.Join("..", "..")
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, mod) {
				out[pkg] = append(out[pkg], strings.TrimPrefix(path, mod))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// room is the room of a package: its top-level directory, or cmd/NAME.
func room(pkg string) string {
	parts := strings.Split(pkg, "/")
	if parts[0] == "cmd" && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// TestNoArrowBackUp: the rooms' import graph has no cycle (no room imports
// one that imports it back, through any chain), and docs/architecture.md
// gives every package the floor its imports give it, and lists them all.
func TestNoArrowBackUp(t *testing.T) {
	imports := moduleImports(t)
	rooms := map[string]map[string]bool{}
	for p, qs := range imports {
		for _, q := range qs {
			if room(p) != room(q) {
				if rooms[room(p)] == nil {
					rooms[room(p)] = map[string]bool{}
				}
				rooms[room(p)][room(q)] = true
			}
		}
	}
	// a cycle through room r: r reaches itself
	for r := range rooms {
		seen := map[string]bool{}
		var reach func(x string) bool
		reach = func(x string) bool {
			for y := range rooms[x] {
				if y == r {
					return true
				}
				if !seen[y] {
					seen[y] = true
					if reach(y) {
						return true
					}
				}
			}
			return false
		}
		if reach(r) {
			t.Errorf("an arrow runs back up: the room %s imports a room that imports it back", r)
		}
	}

	floor := map[string]int{}
	var fl func(p string, depth int) int
	fl = func(p string, depth int) int {
		if f, ok := floor[p]; ok {
			return f
		}
		if depth > 64 {
			t.Fatalf("%s: an import cycle", p)
		}
		f := 0
		for _, q := range imports[p] {
			f = max(f, fl(q, depth+1)+1)
		}
		floor[p] = f
		return f
	}
	for p := range imports {
		fl(p, 0)
	}
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| ([0-9]+) \\| (.*) \\|$")
	name := regexp.MustCompile("`([a-z0-9/-]+)`")
	documented := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		n, _ := strconv.Atoi(m[1])
		for _, p := range name.FindAllStringSubmatch(m[2], -1) {
			documented[p[1]] = n
		}
	}
	var missing []string
	for p, f := range floor {
		switch d, ok := documented[p]; {
		case !ok:
			missing = append(missing, p)
		case d != f:
			t.Errorf("docs/architecture.md puts %s on floor %d; its imports put it on %d", p, d, f)
		}
	}
	sort.Strings(missing)
	for _, p := range missing {
		t.Errorf("docs/architecture.md does not give %s a floor (it is on %d)", p, floor[p])
	}
	for p := range documented {
		if _, ok := floor[p]; !ok {
			t.Errorf("docs/architecture.md gives a floor to %s, which is no package", p)
		}
	}
}
