package main

import (
	"flag"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
)

var update = flag.Bool("update", false, "rewrite what the tests compare with: the man pages under docs/man, and the files the scripts cmp against (testscript UpdateScripts)")

// TestDoorsReachTheProjectThroughFlow keeps the door layer thin: no file of
// cmd/nika imports the rooms that flow composes (git, the transaction, the
// file system beneath the root, the hooks). A door that needs one of them
// needs a flow function every door can share.
func TestDoorsReachTheProjectThroughFlow(t *testing.T) {
	forbidden := []string{"gitstage", "consent", "safefs", "hooks"}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, room := range forbidden {
				if path == "github.com/nika-dev/nika/"+room || strings.HasPrefix(path, "github.com/nika-dev/nika/"+room+"/") {
					t.Errorf("%s imports %s: doors reach the project through flow", f, path)
				}
			}
		}
	}
}

// TestEveryDoorWordsEveryFix: a fix a library names reaches every human in
// the words of the door they use, with a subject or without one; the
// session's words (its own commands) and the agent's (its tools) name no
// CLI flag.
func TestEveryDoorWordsEveryFix(t *testing.T) {
	for _, f := range refusal.Fixes() {
		for _, subject := range []string{"", "0123456789abcdef0123", "docs/a.md"} {
			if cliFix(f, subject) == "" {
				t.Errorf("the CLI has no words for the fix %s (subject %q)", f, subject)
			}
			if mcpFix(f, subject) == "" {
				t.Errorf("the MCP door has no words for the fix %s (subject %q)", f, subject)
			}
			w := sessionFix(f, subject)
			if w == "" {
				t.Errorf("the session has no words for the fix %s (subject %q)", f, subject)
			}
			if strings.Contains(w, "--") || flagRE.MatchString(w) {
				t.Errorf("the session's words for %s name a CLI flag: %q", f, w)
			}
		}
	}
}

// TestSessionWordsTheFix: a refusal reaches the session's doors (the
// terminal, the stdio protocol) with its Fix worded by the session, after
// the library's text and door-neutral hint.
func TestSessionWordsTheFix(t *testing.T) {
	r := session.Refused(refusal.New(refusal.NotAllowed, "", "path %q is a supporting file that you did not allow", "docs/a.md").WithFix(refusal.AllowFile, "docs/a.md"))
	if got, want := sessionText(r), `path "docs/a.md" is a supporting file that you did not allow · /allow docs/a.md allows it for the turns that follow; then paste the reply again`; got != want {
		t.Errorf("sessionText = %q, want %q", got, want)
	}
	r = session.Refused(refusal.New(refusal.Invalid, "give at least 8 hex characters of the id", "%q is not a proposal id", "ab").WithFix(refusal.ListProposals, ""))
	if got, want := sessionText(r), `"ab" is not a proposal id · give at least 8 hex characters of the id · /pending lists the proposals that wait and their ids`; got != want {
		t.Errorf("sessionText = %q, want %q", got, want)
	}
	if m := outcomeJSON(r); m["text"] != sessionText(r) || m["fix"] != string(refusal.ListProposals) {
		t.Errorf("the protocol's refusal is %v", m)
	}
	if r := (session.Refusal{Class: refusal.Invalid, Text: "bad"}); sessionText(r) != "bad" {
		t.Errorf("a refusal with no fix is worded %q", sessionText(r))
	}
}

// TestManPagesFresh keeps docs/man/nika.1 and docs/man/git-nika.1 equal to
// what the command tree renders (go test ./cmd/nika -run TestManPages
// -update rewrites them).
func TestManPagesFresh(t *testing.T) {
	d := &door{name: "nika"}
	for _, name := range []string{"nika", "git-nika"} {
		path := filepath.Join("..", "..", "docs", "man", name+".1")
		want := manPage(name, d.commands())
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (generate it with go test ./cmd/nika -run TestManPages -update)", err)
		}
		if string(got) != want {
			t.Errorf("%s is stale: the command tree changed (go test ./cmd/nika -run TestManPages -update)", path)
		}
	}
}
