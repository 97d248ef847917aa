package checker

import (
	"os"
	"path/filepath"
	"testing"
)

// specDir locates the Nika spec: $NIKA_SPEC_DIR, or a shared/nika-spec
// folder found walking up from the package directory. It skips the test
// when the folder is absent.
func specDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("NIKA_SPEC_DIR"); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		t.Skipf("NIKA_SPEC_DIR=%s is not a directory; skipping the spec-driven test", d)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Skipf("cannot find the working directory: %v", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		for _, cand := range []string{filepath.Join(dir, "shared", "nika-spec"), filepath.Join(dir, "nika-spec")} {
			if st, err := os.Stat(filepath.Join(cand, "conformance")); err == nil && st.IsDir() {
				return cand
			}
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	t.Skip("the Nika spec folder (shared/nika-spec) is absent; set NIKA_SPEC_DIR to run the spec-driven tests")
	return ""
}
