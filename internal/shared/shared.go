// Package shared locates the workplace's shared folder (the Nika spec and
// the conformance cases) for tests: $NIKA_SHARED_DIR, or a shared/ folder
// found by walking up from the test's directory. Tests skip, saying so,
// when it is absent.
package shared

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns shared/<rel>, or skips the test when it cannot be found.
func Dir(t testing.TB, rel string) string {
	t.Helper()
	if d := os.Getenv("NIKA_SHARED_DIR"); d != "" {
		p := filepath.Join(d, rel)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("NIKA_SHARED_DIR is set but %s is missing: %v", p, err)
		}
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", rel)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	t.Skipf("shared/%s not found above %s; set NIKA_SHARED_DIR to run these cases", filepath.ToSlash(rel), wd)
	return ""
}

// ReadTree reads every file under dir as slash path -> bytes; a missing
// dir is an empty tree.
func ReadTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
