package applypatch

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/internal/shared"
	"github.com/nika-dev/nika/refusal"
)

// The conformance scenarios are Codex's own apply_patch fixtures. nika must
// reach the outcome that shared/conformance/apply-patch/README.md states for
// each: the tree equals expected/, or the patch is refused as a whole with a
// typed refusal that names the line or the path (and the tree stays input/).
//
// A refused scenario lists its class and a fragment of the refusal's text.
var refusedScenarios = map[string]struct {
	class refusal.Class
	text  string
}{
	"005_rejects_empty_patch":                          {refusal.Invalid, "patch line 1: the patch holds no operation"},
	"006_rejects_missing_context":                      {refusal.Invalid, `patch line 3: chunk 1 of "modify.txt": this context line is not in the file`},
	"007_rejects_missing_file_delete":                  {refusal.NotAllowed, `patch line 2: path "missing.txt" does not exist`},
	"008_rejects_empty_update_hunk":                    {refusal.Invalid, `patch line 2: the update of "foo.txt" has no chunk`},
	"009_requires_existing_file_for_update":            {refusal.NotAllowed, `patch line 2: path "missing.txt" does not exist`},
	"010_move_overwrites_existing_destination":         {refusal.NotAllowed, `patch line 2: cannot move "old/name.txt" onto "renamed/dir/name.txt", which already exists`},
	"011_add_overwrites_existing_file":                 {refusal.NotAllowed, `patch line 2: path "duplicate.txt" already exists`},
	"012_delete_directory_fails":                       {refusal.NotAllowed, `patch line 2: path "dir" is a directory`},
	"013_rejects_invalid_hunk_header":                  {refusal.Invalid, `patch line 2: "*** Frobnicate File: foo" is not an operation`},
	"015_failure_after_partial_success_leaves_changes": {refusal.NotAllowed, `patch line 4: path "missing.txt" does not exist`},
}

var appliedScenarios = []string{
	"001_add_file", "002_multiple_operations", "003_multiple_chunks", "004_move_to_new_directory",
	"014_update_file_appends_trailing_newline", "016_pure_addition_update_chunk",
	"017_whitespace_padded_hunk_header", "018_whitespace_padded_patch_markers", "019_unicode_simple",
	"020_delete_file_success", "020_whitespace_padded_patch_marker_lines",
	"021_update_file_deletion_only", "022_update_file_end_of_file_marker",
}

func TestConformance(t *testing.T) {
	dir := shared.Dir(t, filepath.Join("conformance", "apply-patch", "scenarios"))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			sc := filepath.Join(dir, name)
			patch, err := os.ReadFile(filepath.Join(sc, "patch.txt"))
			if err != nil {
				t.Fatal(err)
			}
			input := readTree(t, filepath.Join(sc, "input"))
			tree, err := run(patch, input)
			if want, refused := refusedScenarios[name]; refused {
				if err == nil {
					t.Fatalf("applied, want refused (%s); tree %v", want.class, keys(tree))
				}
				var ce *refusal.Error
				if !errors.As(err, &ce) {
					t.Fatalf("refusal %v is not a *refusal.Error", err)
				}
				if ce.Class != want.class || !strings.Contains(ce.Text, want.text) || ce.Hint == "" {
					t.Fatalf("refusal %s %q · %q\nwant %s containing %q, with a hint", ce.Class, ce.Text, ce.Hint, want.class, want.text)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused, want applied: %v", err)
			}
			compareTrees(t, tree, readTree(t, filepath.Join(sc, "expected")))
		})
	}
	for _, name := range appliedScenarios {
		if !seen[name] {
			t.Errorf("scenario %s is missing", name)
		}
	}
	for name := range refusedScenarios {
		if !seen[name] {
			t.Errorf("scenario %s is missing", name)
		}
	}
	if len(seen) != len(appliedScenarios)+len(refusedScenarios) {
		t.Errorf("%d scenarios, want %d: classify the new ones", len(seen), len(appliedScenarios)+len(refusedScenarios))
	}
}

// run parses a patch, resolves it against a tree, and returns the tree
// after the changes.
func run(patch []byte, tree map[string][]byte) (map[string][]byte, error) {
	d, err := parse(patch)
	if err != nil {
		return nil, err
	}
	changes, _, err := changeset.Resolve(d, mapBase(tree), changeset.Policy{Allow: []string{"**"}})
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for p, b := range tree {
		out[p] = b
	}
	for _, c := range changes {
		switch c.Kind {
		case changeset.Delete:
			delete(out, string(c.Path))
		case changeset.Move:
			delete(out, string(c.From))
			out[string(c.Path)] = c.After.Bytes
		default:
			out[string(c.Path)] = c.After.Bytes
		}
	}
	return out, nil
}

// mapBase is a changeset.Base over a map of path to bytes: a path is a
// File if the map holds it, a Dir if it is a prefix of one, else Absent.
type mapBase map[string][]byte

func (m mapBase) Entry(p changeset.Path) (changeset.Entry, error) {
	if b, ok := m[string(p)]; ok {
		return changeset.Entry{Kind: changeset.File, Mode: changeset.ModeFile, Bytes: b}, nil
	}
	for k := range m {
		if strings.HasPrefix(k, string(p)+"/") {
			return changeset.Entry{Kind: changeset.Dir, Mode: changeset.ModeDir}, nil
		}
	}
	return changeset.Entry{Kind: changeset.Absent}, nil
}

// readTree reads the files under dir as slash paths; a missing dir is an
// empty tree.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	tree := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		tree[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func compareTrees(t *testing.T, got, want map[string][]byte) {
	t.Helper()
	for _, p := range keys(want) {
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("%s: missing, want %q", p, want[p])
		case !bytes.Equal(g, want[p]):
			t.Errorf("%s:\n got %q\nwant %q", p, g, want[p])
		}
	}
	for _, p := range keys(got) {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: present (%q), want absent", p, got[p])
		}
	}
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
