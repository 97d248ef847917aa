package intelligence

import (
	"errors"
	"strings"
	"testing"

	"github.com/nika-dev/nika/session"
)

func fakePath(have ...string) func(string) (string, error) {
	return func(n string) (string, error) {
		for _, h := range have {
			if h == n {
				return "/opt/bin/" + n, nil
			}
		}
		return "", errors.New("not found")
	}
}

func fakeEnv(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

func TestCensusNamesPresenceOnly(t *testing.T) {
	env := fakeEnv(map[string]string{"OPENAI_API_KEY": "sk-live-abcdefghijklmnop"})
	a := Take(fakePath("ollama", "llm"), env)
	b := Take(fakePath("llm", "ollama"), env)
	if strings.Join(a.Apps, ",") != "llm,ollama" || strings.Join(a.Engines, ",") != "ollama" || strings.Join(a.KeyVars, ",") != "OPENAI_API_KEY" {
		t.Fatalf("%+v", a)
	}
	if a.Menu() != b.Menu() {
		t.Fatal("the census is not deterministic")
	}
	if strings.Contains(a.Menu(), "sk-live") || strings.Contains(a.Menu(), "/opt/bin") {
		t.Fatal("the census shows a value")
	}
}

func TestKeptChoice(t *testing.T) {
	home := t.TempDir()
	if _, ok, err := Load(home); ok || err != nil {
		t.Fatal(ok, err)
	}
	c := Choice{Kind: API, URL: "https://api.example.com", Model: "m", KeyEnv: "MY_KEY"}
	if err := Save(home, c); err != nil {
		t.Fatal(err)
	}
	got, ok, err := Load(home)
	if !ok || err != nil || got.URL != c.URL || got.KeyEnv != "MY_KEY" {
		t.Fatal(got, ok, err)
	}
}

func TestServeRefusesWithFix(t *testing.T) {
	env := fakeEnv(map[string]string{"SET_KEY": "k"})
	for _, c := range []Choice{
		{Kind: App, Command: []string{"gone-app"}},
		{Kind: API, URL: "https://api.example.com", Model: "m", KeyEnv: "UNSET_KEY"},
		{Kind: API, URL: "http://api.example.com", Model: "m", KeyEnv: "SET_KEY"},
		{Kind: Local, URL: "http://10.0.0.5:11434", Model: "m"},
		{Kind: "telepathy"},
	} {
		r, err := Serve(c, fakePath("llm"), env)
		var e *session.Error
		if r != nil || !errors.As(err, &e) || e.Class != session.NoIntelligence || !strings.Contains(e.Text, "·") {
			t.Errorf("%+v: %v %v", c, r, err)
		}
	}
	for _, c := range []Choice{
		{Kind: App, Command: []string{"llm", "-m", "x"}},
		{Kind: API, URL: "https://api.example.com", Model: "m", KeyEnv: "SET_KEY"},
		{Kind: Local, URL: OllamaURL, Model: "llama3.2"},
	} {
		if r, err := Serve(c, fakePath("llm"), env); err != nil || r == nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if r, err := Serve(Choice{Kind: None}, fakePath(), env); r != nil || err != nil {
		t.Error("none")
	}
}

func TestAskPlainWords(t *testing.T) {
	answers := []string{"7", "3", "ollama", "llama3.2"}
	var asked []string
	c, ok, err := Ask(Census{}, func(q string) (string, error) {
		asked = append(asked, q)
		a := answers[0]
		answers = answers[1:]
		return a, nil
	})
	if err != nil || !ok || c.Kind != Local || c.URL != OllamaURL || c.Model != "llama3.2" {
		t.Fatal(c, ok, err)
	}
	if len(asked) != 4 || !strings.Contains(asked[0], "4) none") {
		t.Fatal(asked)
	}
}

func TestNoHomeKeepsNothing(t *testing.T) {
	if _, ok, err := Load(""); ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := Save("", Choice{Kind: None}); err == nil {
		t.Fatal("saved with no HOME")
	}
	if err := Save("relative", Choice{Kind: None}); err == nil {
		t.Fatal("saved under a relative HOME")
	}
}

func TestWhereShowsNoHostPath(t *testing.T) {
	w := Where(Choice{Kind: App, Command: []string{"/home/ada/bin/llm", "-m", "/home/ada/models/x"}})
	if strings.Contains(w, "/home/ada") || !strings.Contains(w, `"llm -m x"`) {
		t.Fatal(w)
	}
	if w := Where(Choice{Kind: API, URL: "https://api.example.com/v1?key=abc", Model: "m", KeyEnv: "K"}); strings.Contains(w, "key=abc") {
		t.Fatal(w)
	}
}
