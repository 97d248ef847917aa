package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestCIRecipe runs the CI recipe of docs/ci/verify.sh, as a CI system
// would, with this nika on PATH, against real clones of a bare remote.
func TestCIRecipe(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not installed")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the recipe")
	}
	testscript.Run(t, testscript.Params{
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Dir:                 "testdata/ci",
		Setup: func(env *testscript.Env) error {
			if err := setupGit(env); err != nil {
				return err
			}
			for _, f := range []string{"verify.sh", "github-actions.yml"} {
				b, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci", f))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(env.WorkDir, f), b, 0o755); err != nil {
					return err
				}
			}
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"pty": cmdPty, "id": cmdID,
			"nikasource": cmdNikaSource, "ghactions": cmdGHActions},
	})
}
