package flow_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/refusal"
)

func memBase(files map[string]string) *treeBase {
	b := &treeBase{files: map[string][]byte{}, modes: map[string]string{}, oids: map[string]string{}}
	for p, c := range files {
		b.files[p], b.modes[p], b.oids[p] = []byte(c), "100644", blobID([]byte(c))
	}
	return b
}

// TestParseFormsOfAReply reads the forms of issue 15 that reach the reply
// parser and the detector, and resolves them: blocks for one path
// compose; a second whole content is refused; a fenced cd wrapper keeps
// its directory; an empty input, or a mail with no diff, is refused.
func TestParseFormsOfAReply(t *testing.T) {
	base := map[string]string{"a.txt": "1\n2\n3\n", "sub/b.txt": "b\n"}
	for _, tc := range []struct {
		name, format, input string
		want                map[string]string // path -> bytes after; nil: refused
		class               refusal.Class
		text                string
	}{
		{"two diff blocks for one file compose", "auto",
			"First:\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-1\n+one\n 2\n```\nThen:\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -2,2 +2,2 @@\n-2\n+two\n 3\n```\n",
			map[string]string{"a.txt": "one\ntwo\n3\n"}, "", ""},
		{"a whole file, then a diff of it", "auto",
			"```text path=n.txt\nx\ny\n```\n```diff\n--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n```\n",
			map[string]string{"n.txt": "x\nY\n"}, "", ""},
		{"a diff block that does not apply names the block and its own line", "auto",
			"Here:\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-x\n+X\n 2\n```\n",
			nil, refusal.Invalid, "in the diff block at reply line 3: diff line 3: hunk 1 of a.txt: these 2 lines are not in the file"},
		{"two whole contents for one file", "auto",
			"```text path=a.txt\nfirst\n```\n```text path=a.txt\nsecond\n```\n",
			nil, refusal.Invalid, `reply line 4: two changes name the path "a.txt" (the first at line 1)`},
		{"a fenced cd wrapper", "auto",
			"Run this:\n```bash\ncd sub && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch\nEOF\n```\n",
			map[string]string{"sub/b.txt": "B\n"}, "", ""},
		{"a fenced cd wrapper into a missing directory", "auto",
			"Do this:\n```bash\ncd nope && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: b.txt\n+B\n*** End Patch\nEOF\n```\n",
			nil, refusal.NotFound, `reply line 5: the wrapper changes into "nope", which is not a directory of the project`},
		{"a cd wrapper, detected as a patch", "auto",
			"```bash\ncd nope && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: b.txt\n+B\n*** End Patch\nEOF\n```\n",
			nil, refusal.NotFound, `patch line 4: the wrapper changes into "nope", which is not a directory of the project`},
		{"a bare heredoc, detected", "auto",
			"<<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n-3\n+three\n*** End Patch\nEOF\n",
			map[string]string{"a.txt": "1\n2\nthree\n"}, "", ""},
		{"an empty input", "auto", "", nil, refusal.Invalid, "the input is empty (0 bytes)"},
		{"an input of blank lines", "reply", "\n \n\t\n", nil, refusal.Invalid, "the input is empty (5 bytes)"},
		{"an empty diff", "diff", "", nil, refusal.Invalid, "the input is empty (0 bytes)"},
		{"format-patch of an empty commit, detected", "auto",
			"From 50cb07512d7ca823bcf113eb81f6f4be62aa6699 Mon Sep 17 00:00:00 2001\nFrom: a <a@a>\nSubject: [PATCH] empty\n\n-- \n2.39.5\n",
			nil, refusal.Invalid, "diff line 1: the input holds no diff: no file section (a diff --git line, or --- and +++ lines)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := flow.Parse([]byte(tc.input), tc.format, 0)
			var changes []changeset.Change
			if err == nil {
				changes, _, err = changeset.Resolve(d, memBase(base), changeset.Policy{Allow: []string{"**"}})
			}
			if tc.want == nil {
				var e *refusal.Error
				if !errors.As(err, &e) || e.Class != tc.class || e.Text != tc.text || e.Hint == "" {
					t.Fatalf("got %#v\nwant %s %q with a hint", err, tc.class, tc.text)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, c := range changes {
				if c.After != nil {
					got[string(c.Path)] = string(c.After.Bytes)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("changes %v, want %v", got, tc.want)
			}
			for p, w := range tc.want {
				if got[p] != w {
					t.Errorf("%s = %q, want %q", p, got[p], w)
				}
			}
		})
	}
}

// A refusal of flow.Parse names no CLI flag: the door words the fix.
func TestParseRefusalsCarryTheirFix(t *testing.T) {
	_, err := flow.Parse([]byte("x"), "yaml", 0)
	var e *refusal.Error
	if !errors.As(err, &e) || e.Fix != refusal.ChooseFormat || e.Subject != strings.Join(flow.Formats, ",") || strings.Contains(e.Hint, "--") {
		t.Errorf("unknown format: %#v", err)
	}
	_, err = flow.Parse([]byte("0123456789"), "auto", 5)
	if !errors.As(err, &e) || e.Fix != refusal.RaiseInputLimit || e.Subject != "5" || strings.Contains(e.Hint, "--") {
		t.Errorf("too large: %#v", err)
	}
}
