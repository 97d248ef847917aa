// Package intelligence is the human's choice of where the session's
// questions go: an AI app they already have (a program that reads a
// prompt on stdin), an API (an OpenAI-compatible endpoint, its key read
// from an environment variable the human names), a local engine (an
// OpenAI-compatible server on localhost: ollama, llama.cpp), or none.
//
// Why a package of its own: the choice decides where the project's data
// goes, so it is the human's, made once in plain words and kept in
// ~/.nika/session-intelligence.json, asked again only on /intelligence.
// The census that informs it is deterministic and says only whether each
// option is present, never a value (no key, no URL, no model list). A
// choice this machine cannot serve (the program is gone, the variable is
// unset, a "local" URL that is not local) is refused with its fix; it is
// never silently replaced by another.
package intelligence

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/reasoner"
)

// Kinds of intelligence.
const (
	App   = "app"
	API   = "api"
	Local = "local"
	None  = "none"
)

// Choice is what the human chose. It holds no secret: an API's key stays
// in the environment variable it names.
type Choice struct {
	Kind    string   `json:"kind"`
	Command []string `json:"command,omitempty"` // App
	URL     string   `json:"url,omitempty"`     // API, Local
	Model   string   `json:"model,omitempty"`   // API, Local
	KeyEnv  string   `json:"key_env,omitempty"` // API
	Engine  string   `json:"engine,omitempty"`  // Local: ollama or llamacpp
}

// File is where the choice is kept, under home.
func File(home string) string { return filepath.Join(home, ".nika", "session-intelligence.json") }

// Load reads the kept choice; ok is false when none is kept.
func Load(home string) (Choice, bool, error) {
	if home == "" {
		return Choice{}, false, nil
	}
	b, err := os.ReadFile(File(home))
	if errors.Is(err, fs.ErrNotExist) {
		return Choice{}, false, nil
	}
	if err != nil {
		return Choice{}, false, session.Errorf(session.Io, "~/.nika/session-intelligence.json could not be read")
	}
	var c Choice
	if err := json.Unmarshal(b, &c); err != nil || !valid(c.Kind) {
		return Choice{}, false, session.Errorf(session.NotAllowed, "~/.nika/session-intelligence.json is not a choice nika understands · choose again with /intelligence")
	}
	return c, true, nil
}

func valid(k string) bool { return k == App || k == API || k == Local || k == None }

// Save keeps the choice.
func Save(home string, c Choice) error {
	if home == "" || !filepath.IsAbs(home) {
		return session.Errorf(session.Io, "HOME is not set to a directory, so the choice is not kept · set HOME")
	}
	p := File(home)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return session.Errorf(session.Io, "~/.nika could not be created")
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return session.Errorf(session.Io, "~/.nika/session-intelligence.json could not be written")
	}
	if err := os.Rename(tmp, p); err != nil {
		return session.Errorf(session.Io, "~/.nika/session-intelligence.json could not be written")
	}
	return nil
}

// Apps are the AI apps the census looks for on PATH.
var Apps = []string{"llm", "ollama", "claude", "gemini", "codex", "aichat", "sgpt"}

// KeyVars are the environment variables the census looks for (presence
// only) to say an API key is at hand.
var KeyVars = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "GEMINI_API_KEY", "XAI_API_KEY"}

// Engines are the local engines the census looks for on PATH.
var Engines = []string{"ollama", "llama-server"}

// Census says which options are present on this machine: names only, in
// a fixed order, never a value.
type Census struct {
	Apps    []string `json:"apps"`     // programs found on PATH
	KeyVars []string `json:"key_vars"` // variables that are set (names)
	Engines []string `json:"engines"`  // local engine programs on PATH
}

// Take takes the census. lookPath and lookEnv are exec.LookPath and
// os.LookupEnv in a door; tests pass their own.
func Take(lookPath func(string) (string, error), lookEnv func(string) (string, bool)) Census {
	c := Census{Apps: []string{}, KeyVars: []string{}, Engines: []string{}}
	for _, a := range Apps {
		if _, err := lookPath(a); err == nil {
			c.Apps = append(c.Apps, a)
		}
	}
	for _, k := range KeyVars {
		if v, ok := lookEnv(k); ok && v != "" {
			c.KeyVars = append(c.KeyVars, k)
		}
	}
	for _, e := range Engines {
		if _, err := lookPath(e); err == nil {
			c.Engines = append(c.Engines, e)
		}
	}
	return c
}

func found(xs []string) string {
	if len(xs) == 0 {
		return "none found"
	}
	return "found: " + strings.Join(xs, ", ")
}

// Menu is the question asked on the first run and on /intelligence.
func (c Census) Menu() string {
	return fmt.Sprintf(`Where should your questions go? nika works without a model too.
  1) an AI app you already have: a program that reads a prompt and answers (llm, ollama run MODEL, a vendor CLI in print mode) · %s
  2) an API: an OpenAI-compatible chat completions endpoint, its key read from an environment variable you name · keys set: %s
  3) a local engine: an OpenAI-compatible server on this machine (ollama, llama.cpp) · %s
  4) none: facts, checks and pasted replies only; nothing leaves this machine
`, found(c.Apps), strings.TrimPrefix(found(c.KeyVars), "found: "), found(c.Engines))
}

// Where says, in plain words, where a choice sends the data.
func Where(c Choice) string {
	switch c.Kind {
	case App:
		return fmt.Sprintf("your questions, the project's facts and the files you name go to the program %q on this machine, and wherever it sends them", shown(c.Command))
	case API:
		return fmt.Sprintf("your questions, the project's facts and the files you name go to %s (model %s), with the key from $%s", host(c.URL), c.Model, c.KeyEnv)
	case Local:
		return fmt.Sprintf("your questions, the project's facts and the files you name go to the local engine at %s (model %s); they stay on this machine", host(c.URL), c.Model)
	}
	return "no intelligence: nothing leaves this machine"
}

// shown is a command as shown in output: absolute paths by their base
// name, so that machine output never holds a host path.
func shown(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if filepath.IsAbs(a) {
			a = filepath.Base(a)
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// host is the exact origin the data goes to (scheme, host and port).
func host(raw string) string { return reasoner.Origin(raw) }

// Serve builds the reasoner for a choice, or refuses with the fix. None
// gives a nil reasoner and no error.
func Serve(c Choice, lookPath func(string) (string, error), lookEnv func(string) (string, bool)) (session.Reasoner, error) {
	switch c.Kind {
	case None:
		return nil, nil
	case App:
		if len(c.Command) == 0 || c.Command[0] == "" {
			return nil, session.Errorf(session.NoIntelligence, "the kept choice names no program · choose again with /intelligence")
		}
		if _, err := lookPath(c.Command[0]); err != nil {
			return nil, session.Errorf(session.NoIntelligence, "the program %q is not on PATH on this machine · install it, or choose again with /intelligence", c.Command[0])
		}
		return &reasoner.Command{Argv: c.Command}, nil
	case API:
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname()))) {
			return nil, session.Errorf(session.NoIntelligence, "the API URL %q is not https · give an https URL with /intelligence", c.URL)
		}
		if c.Model == "" {
			return nil, session.Errorf(session.NoIntelligence, "the API choice names no model · choose again with /intelligence")
		}
		if c.KeyEnv == "" {
			return nil, session.Errorf(session.NoIntelligence, "the API choice names no environment variable for its key · choose again with /intelligence")
		}
		key, ok := lookEnv(c.KeyEnv)
		if !ok || key == "" {
			return nil, session.Errorf(session.NoIntelligence, "the environment variable %s is not set · export %s=<your key> before nika, or choose again with /intelligence", c.KeyEnv, c.KeyEnv)
		}
		return &reasoner.HTTP{URL: c.URL, Model: c.Model, Key: key}, nil
	case Local:
		u, err := url.Parse(c.URL)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || !loopback(u.Hostname()) {
			return nil, session.Errorf(session.NoIntelligence, "%q is not a server on this machine (localhost) · choose an API instead, or give a localhost URL with /intelligence", c.URL)
		}
		if c.Model == "" {
			return nil, session.Errorf(session.NoIntelligence, "the local engine choice names no model · choose again with /intelligence")
		}
		return &reasoner.HTTP{URL: c.URL, Model: c.Model}, nil
	}
	return nil, session.Errorf(session.NoIntelligence, "unknown intelligence %q · choose again with /intelligence", c.Kind)
}

func loopback(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Default URLs of local engines.
const (
	OllamaURL   = "http://localhost:11434"
	LlamaCppURL = "http://localhost:8080"
)

// Asker reads the human's answers to the questions of Ask. It returns the
// trimmed line, or an error at end of input.
type Asker func(question string) (string, error)

// Ask asks the human to choose, in plain words. It never picks for them:
// an answer that is not one of the options asks again (three times, then
// none is chosen for this session, and nothing is kept).
func Ask(census Census, ask Asker) (Choice, bool, error) {
	for tries := 0; tries < 3; tries++ {
		a, err := ask(census.Menu() + "Choose 1, 2, 3 or 4: ")
		if err != nil {
			return Choice{}, false, err
		}
		switch strings.ToLower(strings.TrimSpace(a)) {
		case "1", "app":
			cmd, err := ask("The program and its arguments (for example: llm, or ollama run llama3.2): ")
			if err != nil {
				return Choice{}, false, err
			}
			if f := strings.Fields(cmd); len(f) > 0 {
				return Choice{Kind: App, Command: f}, true, nil
			}
		case "2", "api":
			u, err := ask("The endpoint's base URL (for example https://api.openai.com): ")
			if err != nil {
				return Choice{}, false, err
			}
			m, err := ask("The model: ")
			if err != nil {
				return Choice{}, false, err
			}
			k, err := ask("The environment variable that holds the key (for example OPENAI_API_KEY): ")
			if err != nil {
				return Choice{}, false, err
			}
			if u != "" && m != "" && k != "" {
				return Choice{Kind: API, URL: u, Model: m, KeyEnv: strings.TrimPrefix(k, "$")}, true, nil
			}
		case "3", "local":
			e, err := ask("The engine: ollama or llama.cpp: ")
			if err != nil {
				return Choice{}, false, err
			}
			c := Choice{Kind: Local, Engine: "ollama", URL: OllamaURL}
			if strings.Contains(strings.ToLower(e), "llama") && !strings.Contains(strings.ToLower(e), "ollama") {
				c.Engine, c.URL = "llamacpp", LlamaCppURL
			}
			m, err := ask("The model (for example llama3.2): ")
			if err != nil {
				return Choice{}, false, err
			}
			if m != "" {
				c.Model = m
				return c, true, nil
			}
		case "4", "none":
			return Choice{Kind: None}, true, nil
		}
	}
	return Choice{Kind: None}, false, nil
}

// LookPath and LookupEnv are the real world, for doors.
var (
	LookPath  = exec.LookPath
	LookupEnv = os.LookupEnv
)
