package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/nika-dev/nika/consent"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/internal/gittest"
	"github.com/nika-dev/nika/internal/shared"
)

// refusedScenarios are the apply_patch scenarios nika must refuse before
// staging (../shared/conformance/apply-patch/README.md); every other one
// must apply and yield expected/.
var refusedScenarios = map[string]string{
	"005": "Invalid", "006": "Invalid", "007": "NotAllowed", "008": "Invalid", "009": "NotAllowed",
	"010": "NotAllowed", "011": "NotAllowed", "012": "NotAllowed", "013": "Invalid", "015": "NotAllowed",
}

// TestApplyPatchConformance runs every public apply_patch scenario through
// nika propose and the apply (consent supplied by the harness) in a fresh
// git repository whose first commit holds input/, then compares the
// working tree, the index and HEAD's tree with the outcome.
func TestApplyPatchConformance(t *testing.T) {
	dir := shared.Dir(t, "conformance/apply-patch/scenarios")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	passed, total := 0, 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		total++
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			sc := filepath.Join(dir, name)
			input := shared.ReadTree(t, filepath.Join(sc, "input"))
			g := gittest.New(t)
			for p, b := range input {
				g.Write(p, b)
			}
			if len(input) > 0 {
				g.Commit("input")
			}
			t.Chdir(g.Dir)
			var stdout, stderr bytes.Buffer
			code := run([]string{"nika", "propose", "--json", "--allow", "**", filepath.Join(sc, "patch.txt")}, strings.NewReader(""), &stdout, &stderr)
			class, refused := refusedScenarios[name[:3]]
			if refused {
				if code == 0 {
					t.Fatalf("proposed, want a %s refusal:\n%s", class, stdout.String())
				}
				if !strings.Contains(stdout.String(), `"class": "`+class+`"`) {
					t.Errorf("refusal is not %s:\n%s", class, stdout.String())
				}
				if !regexp.MustCompile(`line \d+|"[^"]+\.txt"|\.txt`).MatchString(stdout.String()) {
					t.Errorf("refusal names no line or path:\n%s", stdout.String())
				}
				sameTree(t, g, input)
				if out := g.Git("for-each-ref", "refs/nika"); out != "" {
					t.Errorf("a ref was made: %s", out)
				}
				passed++
				return
			}
			if code != 0 {
				t.Fatalf("propose exited %d:\n%s%s", code, stdout.String(), stderr.String())
			}
			r, err := gitstage.Open(g.Dir)
			if err != nil {
				t.Fatal(err)
			}
			recs, _ := r.Records()
			if len(recs) != 1 {
				t.Fatalf("want one proposal, got %d", len(recs))
			}
			p, err := flow.Load(flow.FromGit(r), recs[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := flow.Apply(flow.FromGit(r), p, consent.Options{}); err != nil {
				t.Fatalf("apply: %v", err)
			}
			sameTree(t, g, shared.ReadTree(t, filepath.Join(sc, "expected")))
			g.Clean()
			passed++
		})
	}
	t.Logf("apply_patch conformance: %d of %d scenarios reach the README's outcome", passed, total)
	if total != 23 {
		t.Errorf("found %d scenarios, the README lists 23", total)
	}
}

// sameTree checks that the working tree, the index and HEAD's tree all hold
// exactly want.
func sameTree(t *testing.T, g *gittest.Repo, want map[string]string) {
	t.Helper()
	got := shared.ReadTree(t, g.Dir)
	if !equalTrees(got, want) {
		t.Errorf("working tree:\n got %v\nwant %v", keys(got), keys(want))
	}
	if len(want) == 0 {
		return
	}
	ls := strings.Split(g.Git("ls-tree", "-r", "--name-only", "HEAD"), "\n")
	sort.Strings(ls)
	if strings.Join(ls, ",") != strings.Join(keys(want), ",") {
		t.Errorf("HEAD's tree: %v, want %v", ls, keys(want))
	}
	for p, b := range want {
		if s := g.Git("show", "HEAD:"+p); s != strings.TrimRight(b, "\n") {
			t.Errorf("HEAD:%s = %q, want %q", p, s, b)
		}
	}
	if d := g.Git("diff", "--cached", "--name-only"); d != "" {
		t.Errorf("the index differs from HEAD: %s", d)
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
