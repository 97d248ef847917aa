package reasoner

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nika-dev/nika/session"
)

var bundle = session.Bundle{Identity: "id", Language: "lang", Facts: "project p", Question: "what is in flows?"}

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "model.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func classOf(t *testing.T, err error) session.Class {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var e *session.Error
	if !errors.As(err, &e) {
		t.Fatalf("untyped error %v", err)
	}
	return e.Class
}

func TestCommandReadsPromptAnswers(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "prompt")
	p := script(t, "cat > "+got+"\necho 'the flows hold one workflow'\n")
	r := &Command{Argv: []string{p}, Env: []string{"PATH=/usr/bin:/bin"}}
	reply, err := r.Reason(context.Background(), bundle)
	if err != nil {
		t.Fatal(err)
	}
	if reply != "the flows hold one workflow\n" {
		t.Fatalf("%q", reply)
	}
	b, _ := os.ReadFile(got)
	if string(b) != bundle.Prompt() {
		t.Fatalf("the program read %q, want the bundle's prompt", b)
	}
}

func TestCommandFailures(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		timeout    time.Duration
		class      session.Class
	}{
		{"exit 1", "echo 'no key' >&2\nexit 1\n", 0, session.IntelligenceRefused},
		{"empty", "cat >/dev/null\n", 0, session.IntelligenceRefused},
		{"timeout", "sleep 5\n", 200 * time.Millisecond, session.Io},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Command{Argv: []string{script(t, tc.body)}, Timeout: tc.timeout}
			_, err := r.Reason(context.Background(), bundle)
			if c := classOf(t, err); c != tc.class {
				t.Fatalf("class %s, want %s (%v)", c, tc.class, err)
			}
		})
	}
	r := &Command{Argv: []string{filepath.Join(t.TempDir(), "missing")}}
	_, err := r.Reason(context.Background(), bundle)
	if c := classOf(t, err); c != session.NoIntelligence {
		t.Fatal(c, err)
	}
}

func TestHTTPChatCompletions(t *testing.T) {
	var got chatRequest
	var auth, path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, auth = r.URL.Path, r.Header.Get("Authorization")
		json.NewDecoder(r.Body).Decode(&got)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"one workflow"}}]}`))
	}))
	defer srv.Close()
	r := &HTTP{URL: srv.URL, Model: "llama3.2", Key: "k-123"}
	reply, err := r.Reason(context.Background(), bundle)
	if err != nil {
		t.Fatal(err)
	}
	if reply != "one workflow" || path != "/v1/chat/completions" || auth != "Bearer k-123" {
		t.Fatalf("reply %q path %q auth %q", reply, path, auth)
	}
	if got.Model != "llama3.2" || len(got.Messages) != 2 || got.Messages[0].Role != "system" || got.Messages[1].Content != bundle.User() {
		t.Fatalf("%+v", got)
	}
	if (&HTTP{URL: srv.URL + "/v1/"}).Endpoint() != srv.URL+"/v1/chat/completions" {
		t.Fatal("endpoint after /v1")
	}
}

func TestHTTPStatusClasses(t *testing.T) {
	for _, tc := range []struct {
		status int
		class  session.Class
	}{
		{400, session.IntelligenceRefused},
		{401, session.IntelligenceRefused},
		{403, session.IntelligenceRefused},
		{404, session.IntelligenceRefused},
		{429, session.IntelligenceRefused},
		{500, session.Io},
		{503, session.Io},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tc.status)
			w.Write([]byte(`{"error":{"message":"nope"}}`))
		}))
		_, err := (&HTTP{URL: srv.URL, Model: "m", Key: "secret-key-value"}).Reason(context.Background(), bundle)
		srv.Close()
		if c := classOf(t, err); c != tc.class {
			t.Errorf("HTTP %d: class %s, want %s", tc.status, c, tc.class)
		}
		if strings.Contains(err.Error(), "secret-key-value") {
			t.Errorf("HTTP %d: the key is in the error text", tc.status)
		}
	}
}

func TestHTTPTimeoutAndUnreachable(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	_, err := (&HTTP{URL: srv.URL, Model: "m", Timeout: 200 * time.Millisecond}).Reason(context.Background(), bundle)
	if c := classOf(t, err); c != session.Io {
		t.Fatal(c, err)
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	u := dead.URL
	dead.Close()
	_, err = (&HTTP{URL: u, Model: "m"}).Reason(context.Background(), bundle)
	if c := classOf(t, err); c != session.Io {
		t.Fatal(c, err)
	}
}

// TestHTTPNeverFollowsARedirectToAnotherOrigin: an endpoint that
// redirects to another port (another origin, as another host or scheme
// would be) gets one request; the other origin gets none, whatever the
// redirect's code; the refusal names the target; a redirect within the
// origin is followed.
func TestHTTPNeverFollowsARedirectToAnotherOrigin(t *testing.T) {
	var other int
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other++
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"stolen"}}]}`))
	}))
	defer elsewhere.Close()
	for _, code := range []int{301, 302, 303, 307, 308} {
		var first int
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			first++
			http.Redirect(w, r, elsewhere.URL+"/v1/chat/completions", code)
		}))
		h := &HTTP{URL: srv.URL, Model: "m", Key: "k-123"}
		_, err := h.Reason(context.Background(), bundle)
		srv.Close()
		if classOf(t, err) != session.IntelligenceRefused {
			t.Fatalf("%d: %v", code, err)
		}
		if want := Origin(elsewhere.URL); !strings.Contains(err.Error(), want) {
			t.Errorf("%d: the refusal does not name %s: %v", code, want, err)
		}
		if first != 1 {
			t.Errorf("%d: the endpoint got %d requests", code, first)
		}
	}
	if other != 0 {
		t.Fatalf("the other origin got %d requests", other)
	}
	// within the origin: followed
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if r.URL.Path == "/v1/chat/completions" {
			http.Redirect(w, r, "/v2/chat/completions", 307)
			return
		}
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"here"}}]}`))
	}))
	defer srv.Close()
	h := &HTTP{URL: srv.URL, Model: "m"}
	if reply, err := h.Reason(context.Background(), bundle); err != nil || reply != "here" {
		t.Fatalf("%q %v", reply, err)
	}
	if strings.Join(paths, " ") != "/v1/chat/completions /v2/chat/completions" {
		t.Fatal(paths)
	}
	if w := h.Where(); !strings.Contains(w, Origin(srv.URL)) || !strings.Contains(Origin(srv.URL), ":") {
		t.Fatalf("where %q", w)
	}
	if got := Origin("https://api.example.com/v1"); got != "https://api.example.com:443" {
		t.Fatal(got)
	}
}

// TestCommandErrorIsRedactedAndScrubbed: a failing program's stderr is
// copied into the refusal with its secrets redacted and no host path.
func TestCommandErrorIsRedactedAndScrubbed(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	key := "sk-ant-api03-" + strings.Repeat("Ab3dE", 18) + "x7Q" + "AA"
	p := script(t, "echo \"error: key "+key+" rejected; see "+home+"/.config/app/log and /opt/app/lib/x\" >&2\nexit 3\n")
	_, err := (&Command{Argv: []string{p}}).Reason(context.Background(), bundle)
	if classOf(t, err) != session.IntelligenceRefused {
		t.Fatal(err)
	}
	msg := err.Error()
	for _, leak := range []string{key, home, "/opt/app", filepath.Dir(p)} {
		if strings.Contains(msg, leak) {
			t.Errorf("the refusal holds %q: %s", leak, msg)
		}
	}
	if !strings.Contains(msg, "[redacted") || !strings.Contains(msg, "<home>/.config/app/log") {
		t.Errorf("%s", msg)
	}
}
