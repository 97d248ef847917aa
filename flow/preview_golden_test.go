package flow_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/gitstage/gittest"
	"github.com/nika-dev/nika/preview"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestWorkflowPreviewGolden renders the preview of a real proposal (a
// workflow with network, a program, a tool and a model, and a project file
// with a finding) with the checker's audit and effect rows, as text and as
// JSON, against golden files. Dates and identities are fixed, so the commit
// ids, and so the bytes, are the same on every machine.
func TestWorkflowPreviewGolden(t *testing.T) {
	g := gittest.New(t)
	for _, kv := range [][2]string{{"GIT_AUTHOR_DATE", "1767225600 +0000"}, {"GIT_COMMITTER_DATE", "1767225600 +0000"}} {
		t.Setenv(kv[0], kv[1])
	}
	g.Write("nika.yaml", "nika: demo\n")
	g.Commit("base")
	wf, err := os.ReadFile("testdata/release-digest.nika.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reply := "```yaml path=flows/release-digest.nika.yaml\n" + string(wf) + "```\n" +
		"```yaml path=nika.yaml\nnika: demo\ntasks: {}\n```\n"
	r, err := gitstage.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flow.Propose(flow.FromGit(r), flow.ProposeInput{Input: []byte(reply), Goal: "add the release digest"})
	if err != nil {
		t.Fatal(err)
	}
	var text, js bytes.Buffer
	if err := preview.Human(&text, flow.PreviewInput(p), preview.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := preview.JSON(&js, flow.PreviewInput(p)); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/workflow-preview.golden", text.Bytes())
	golden(t, "testdata/workflow-preview.json.golden", js.Bytes())

	// show re-derives the same preview from the commit alone.
	q, err := flow.Load(flow.FromGit(r), p.Proposal.ID)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	preview.Human(&again, flow.PreviewInput(q), preview.Options{})
	if !bytes.Equal(again.Bytes(), text.Bytes()) {
		t.Error("the preview re-derived from the commit differs from propose's")
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./flow -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update to accept):\n%s", filepath.Base(path), got)
	}
}
