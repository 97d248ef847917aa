package session

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/nika-dev/nika/redact"
	"github.com/nika-dev/nika/redact/redacttest"
)

// TestReasonerReceivesOnlyTheRedactedBundle: with a secret in the process
// environment and secrets in a named file, the reasoner receives the
// bundle only, redacted, and no environment value; the answer records
// each redaction's kind and line, never its value.
func TestReasonerReceivesOnlyTheRedactedBundle(t *testing.T) {
	t.Setenv("NIKA_SESSION_TEST_SECRET", "env-secret-value-0xdeadbeef")
	ghp := "ghp_" + redacttest.Fake(101, redacttest.Alnum, 36)
	pem := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + redacttest.Fake(102, redacttest.B64, 64) + "\n-----END OPENSSH PRIVATE KEY-----\n"
	pw := "hunter22hunter" // low in entropy: the structural rule finds it
	askKey := "glpat-" + redacttest.Fake(104, redacttest.Alnum, 20)
	eng := newFake()
	eng.files["flows/a.nika.yaml"] = "nika: a\n# token: " + ghp + "\nsecrets:\n  api: { source: env, key: API }\ntasks:\n  t:\n    infer: { prompt: \"${{ secrets.api }}\", model: \"mock/echo\" }\n" +
		pem + "# password: " + pw + "\n"
	eng.files["flows/other.nika.yaml"] = "nika: other # OTHERFILE\n"
	r := &fakeReasoner{reply: "the file reads a secret"}
	m := newMachine(t, eng, r)
	out := m.Turn("why does flows/a.nika.yaml fail? my key is " + askKey + ", see NIKA_SESSION_TEST_SECRET")
	if len(r.got) != 1 {
		t.Fatalf("the reasoner was called %d times", len(r.got))
	}
	b := r.got[0]
	raw, _ := json.Marshal(b)
	all := string(raw) + b.Prompt()
	for _, leak := range []string{"env-secret-value-0xdeadbeef", ghp, askKey, pem[40:80], pw, "OTHERFILE"} {
		if strings.Contains(all, leak) {
			t.Errorf("the bundle holds %q", leak)
		}
	}
	for _, kept := range []string{"[redacted github-pat]", "[redacted gitlab-pat]", "[redacted private-key]", "[redacted secret-field]", "${{ secrets.api }}", "key: API", "## File flows/a.nika.yaml", "NIKA_SESSION_TEST_SECRET"} {
		if !strings.Contains(all, kept) {
			t.Errorf("the bundle lacks %q", kept)
		}
	}
	if len(b.Files) != 1 || b.Files[0].Path != "flows/a.nika.yaml" {
		t.Errorf("files sent: %+v", b.Files)
	}
	want := []redact.Redaction{
		{Where: "file flows/a.nika.yaml", Line: 2, Kind: "github-pat"},
		{Where: "file flows/a.nika.yaml", Line: 8, Kind: "private-key"},
		{Where: "file flows/a.nika.yaml", Line: 11, Kind: redact.KindSecretField},
		{Where: "question", Line: 1, Kind: "gitlab-pat"},
	}
	if !reflect.DeepEqual(b.Redacted, want) {
		t.Errorf("redacted %+v, want %+v", b.Redacted, want)
	}
	a, ok := out[0].(Answer)
	if !ok || !reflect.DeepEqual(a.Redacted, want) {
		t.Errorf("the answer does not record the redactions: %#v", out)
	}
	rawA, _ := json.Marshal(a)
	if strings.Contains(string(rawA), pw) || strings.Contains(string(rawA), ghp) {
		t.Errorf("the answer holds a value: %s", rawA)
	}
	// the next question still carries the named file, and the dialogue,
	// redacted
	m.Turn("and now?")
	b2 := r.got[1]
	raw2, _ := json.Marshal(b2)
	if len(b2.Files) != 1 || len(b2.Dialogue) != 2 || strings.Contains(string(raw2), askKey) {
		t.Errorf("second bundle: %s", raw2)
	}
}

func TestNamedPaths(t *testing.T) {
	got := NamedPaths("fix flows/a.nika.yaml and ./nika.yaml, not notes.txt or .env; again flows/a.nika.yaml (see `b.nika.yaml`)")
	want := []string{"flows/a.nika.yaml", "nika.yaml", "b.nika.yaml"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%v", got)
	}
}
