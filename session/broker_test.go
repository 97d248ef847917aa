package session

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const privateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n"

// TestReasonerReceivesOnlyTheRedactedBundle: with a secret in the process
// environment and secrets in a named file, the reasoner receives the
// bundle only, redacted, and no environment value.
func TestReasonerReceivesOnlyTheRedactedBundle(t *testing.T) {
	t.Setenv("NIKA_SESSION_TEST_SECRET", "env-secret-value-0xdeadbeef")
	eng := newFake()
	eng.files["flows/a.nika.yaml"] = "nika: a\n# token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\nsecrets:\n  api: { env: API }\ntasks:\n  t:\n    infer: { prompt: \"${{ secrets.api }}\", model: \"mock/echo\" }\n" +
		privateKey + "# password: hunter22hunter\n"
	eng.files["flows/other.nika.yaml"] = "nika: other # OTHERFILE\n"
	r := &fakeReasoner{reply: "the file reads a secret"}
	m := newMachine(t, eng, r)
	out := m.Turn("why does flows/a.nika.yaml fail? my key is sk-abcdefghijklmnopqrstuvwx, see NIKA_SESSION_TEST_SECRET")
	if len(r.got) != 1 {
		t.Fatalf("the reasoner was called %d times", len(r.got))
	}
	b := r.got[0]
	raw, _ := json.Marshal(b)
	all := string(raw) + b.Prompt()
	for _, leak := range []string{"env-secret-value-0xdeadbeef", "ghp_abcdefghij", "sk-abcdefghij", "b3BlbnNzaC1rZXk", "hunter22hunter", "OTHERFILE"} {
		if strings.Contains(all, leak) {
			t.Errorf("the bundle holds %q", leak)
		}
	}
	for _, kept := range []string{"[redacted token]", "[redacted api key]", "[redacted private key]", "[redacted password]", "${{ secrets.api }}", "## File flows/a.nika.yaml", "NIKA_SESSION_TEST_SECRET"} {
		if !strings.Contains(all, kept) {
			t.Errorf("the bundle lacks %q", kept)
		}
	}
	if len(b.Files) != 1 || b.Files[0].Path != "flows/a.nika.yaml" {
		t.Errorf("files sent: %+v", b.Files)
	}
	want := []string{"api key", "password", "private key", "token"}
	if !reflect.DeepEqual(b.Redacted, want) {
		t.Errorf("redacted kinds %v, want %v", b.Redacted, want)
	}
	a, ok := out[0].(Answer)
	if !ok || !reflect.DeepEqual(a.Redacted, want) {
		t.Errorf("the answer does not record the kinds redacted: %#v", out)
	}
	// the next question still carries the named file, and the dialogue,
	// redacted
	m.Turn("and now?")
	b2 := r.got[1]
	raw2, _ := json.Marshal(b2)
	if len(b2.Files) != 1 || len(b2.Dialogue) != 2 || strings.Contains(string(raw2), "sk-abcdefghij") {
		t.Errorf("second bundle: %s", raw2)
	}
}

func TestRedactKeepsReferences(t *testing.T) {
	in := "token: ${{ secrets.GH }}\npassword: ${{ inputs.pw }}\napi_key: [a, b]\nno secret here: tokens are counted\n"
	out, kinds := Redact(in)
	if out != in || len(kinds) != 0 {
		t.Fatalf("%q %v", out, kinds)
	}
	out, kinds = Redact("Authorization: Bearer abcdefghijklmnop.qrstuv\nAKIAABCDEFGHIJKLMNOP\nxoxb-1234567890-abcdef\n")
	if strings.Contains(out, "abcdefghijklmnop") || strings.Contains(out, "AKIAABCD") || strings.Contains(out, "xoxb-12") {
		t.Fatalf("%q", out)
	}
	if !reflect.DeepEqual(kinds, []string{"api key", "token"}) {
		t.Fatal(kinds)
	}
}

func TestNamedPaths(t *testing.T) {
	got := NamedPaths("fix flows/a.nika.yaml and ./nika.yaml, not notes.txt or .env; again flows/a.nika.yaml (see `b.nika.yaml`)")
	want := []string{"flows/a.nika.yaml", "nika.yaml", "b.nika.yaml"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%v", got)
	}
}
