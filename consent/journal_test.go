package consent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nika-dev/nika/changeset"
)

// The journal is streamed one op at a time; recovery decodes it as one
// JSON object, and must find exactly what the apply planned.
func TestStreamedJournalDecodesToThePlan(t *testing.T) {
	before := changeset.NewSide([]byte("old\n"), changeset.ModeFile, "1111111111111111111111111111111111111111")
	after := changeset.NewSide([]byte("new\n"), changeset.ModeExecutable, "2222222222222222222222222222222222222222")
	ops := []op{
		{path: "gone.txt", before: before, tmp: ".gone.txt.nika-abc-0.removed"},
		{path: "dir/new \"quoted\" <b>.txt", after: after, tmp: "dir/.new.nika-abc"},
		{path: "up.txt", before: before, after: after, tmp: ".up.txt.nika-abc"},
	}
	for _, tc := range []struct {
		name string
		j    journal
		ops  []op
	}{
		{"ops and dirs", journal{Version: 2, ID: "abc", Commit: "c0", Base: "b0", Branch: "refs/heads/main", Goal: "a goal\nwith lines",
			Locks: []lockStamp{{Path: "common:index.lock", Dev: 1, Ino: 2}}, Dirs: []string{"dir"}}, ops},
		{"no ops, no dirs", journal{Version: 2, ID: "abc", Goal: ""}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.json")
			if err := writeJournal(path, &tc.j, tc.ops); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var got journal
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("the journal is not JSON: %v\n%s", err, b)
			}
			want := tc.j
			want.Ops = journalOps(tc.ops)
			if len(want.Ops) == 0 {
				want.Ops = []jop{} // "ops":[] decodes to an empty slice
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decoded journal:\n%+v\nwant:\n%+v\nfile:\n%s", got, want, b)
			}
		})
	}
}
