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
