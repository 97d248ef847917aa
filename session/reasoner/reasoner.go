// Package reasoner holds the session's models: a program on this machine
// that reads a prompt on its standard input and answers on its standard
// output (llm, ollama run MODEL, a vendor CLI in print mode), and an
// OpenAI-compatible chat completions endpoint (a cloud API, or a local
// engine such as ollama or llama.cpp's server).
//
// Why a package of its own: a reasoner is where the session's data leaves
// the machine (or the process), so it is kept small and explicit. Each
// reasoner sends only the session.Bundle the broker built, never the
// process environment, and turns every failure into a typed refusal:
// IntelligenceRefused when the model or the endpoint said no (a 4xx, a
// program that exited non-zero), Io when it could not be reached or timed
// out (a 5xx, a refused connection, a deadline). Neither reasoner has a
// tool: a reply is text, and only a human's answer at a door consents.
package reasoner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nika-dev/nika/hostpath"
	"github.com/nika-dev/nika/redact"
	"github.com/nika-dev/nika/session"
)

// MaxReply bounds a reply read from a program or an endpoint.
const MaxReply = 1 << 20

// Command runs a program with the prompt on its standard input.
type Command struct {
	Argv []string
	// Dir is the program's working directory ("": the process's); its
	// paths in the program's messages become relative.
	Dir     string
	Timeout time.Duration // 0: two minutes
	// Env is the program's environment; nil inherits the process's (the
	// program is the human's own app, and may need its own settings). The
	// bundle never carries the environment.
	Env []string
}

// Where names the program.
func (c *Command) Where() string {
	name := ""
	if len(c.Argv) > 0 {
		name = filepath.Base(c.Argv[0])
	}
	return fmt.Sprintf("the program %q on this machine (and wherever it sends its prompts)", name)
}

// Reason runs the program once.
func (c *Command) Reason(ctx context.Context, b session.Bundle) (string, error) {
	if len(c.Argv) == 0 {
		return "", session.Errorf(session.NoIntelligence, "no program is configured · choose one with /intelligence")
	}
	t := c.Timeout
	if t <= 0 {
		t = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Env = c.Env
	cmd.Dir = c.Dir
	cmd.Stdin = strings.NewReader(b.Prompt())
	var out, errb capBuf
	out.max, errb.max = MaxReply, 4096
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return "", session.Errorf(session.Io, "%s did not answer within %s · try again, or choose another intelligence with /intelligence", filepath.Base(c.Argv[0]), t)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		// What the program printed is the human's program's text: it can
		// hold its key (redacted) and this machine's paths (scrubbed).
		msg := strings.TrimSpace(errb.String())
		if msg != "" {
			msg, _ = redact.Text(msg)
			msg = ": " + oneLine(hostpath.New(c.Dir, hostpath.Options{}).Text(msg))
		}
		return "", session.Errorf(session.IntelligenceRefused, "%s exited %d%s · check the program, or choose another with /intelligence", filepath.Base(c.Argv[0]), ee.ExitCode(), msg)
	case err != nil:
		return "", session.Errorf(session.NoIntelligence, "%s could not start · install it, or choose another with /intelligence", filepath.Base(c.Argv[0]))
	}
	reply := strings.TrimSpace(out.String())
	if reply == "" {
		return "", session.Errorf(session.IntelligenceRefused, "%s answered nothing", filepath.Base(c.Argv[0]))
	}
	return reply + "\n", nil
}

type capBuf struct {
	bytes.Buffer
	max int
}

func (c *capBuf) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		if len(p) > room {
			c.Buffer.Write(p[:room])
		} else {
			c.Buffer.Write(p)
		}
	}
	return len(p), nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// HTTP talks to an OpenAI-compatible chat completions endpoint.
type HTTP struct {
	// URL is the base (https://api.example.com or http://localhost:11434);
	// /v1/chat/completions is added, or /chat/completions after /v1.
	URL   string
	Model string
	// Key is sent as a bearer token; empty sends none. It is read by the
	// door from the environment variable the human named, and is never
	// part of the bundle or of an error text.
	Key     string
	Timeout time.Duration // 0: two minutes
	Client  *http.Client
}

// Endpoint is the URL posted to.
func (h *HTTP) Endpoint() string {
	u := strings.TrimRight(h.URL, "/")
	switch {
	case strings.HasSuffix(u, "/chat/completions"):
		return u
	case strings.HasSuffix(u, "/v1"):
		return u + "/chat/completions"
	}
	return u + "/v1/chat/completions"
}

// Where names the endpoint's exact origin: scheme, host and port. Data
// goes there and nowhere else: a redirect to another origin is refused.
func (h *HTTP) Where() string {
	return fmt.Sprintf("the model %q at %s", h.Model, Origin(h.URL))
}

// Origin is a URL's origin, its port always written: https://h:443.
func Origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return origin(u)
}

func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// MaxRedirects bounds the redirects followed within the endpoint's origin.
const MaxRedirects = 3

// redirectError is a redirect the reasoner would not follow.
type redirectError struct{ from, to string }

func (e *redirectError) Error() string { return "redirect from " + e.from + " to " + e.to }

// client is h.Client (or a default one) that follows a redirect only
// within the endpoint's origin: never to another scheme, host or port,
// where the bundle (and the key) would go to a place the human did not
// choose.
func (h *HTTP) client() *http.Client {
	c := http.Client{}
	if h.Client != nil {
		c = *h.Client
	}
	start := Origin(h.Endpoint())
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if to := origin(req.URL); to != start {
			return &redirectError{from: start, to: to}
		}
		if len(via) > MaxRedirects {
			return &redirectError{from: start, to: origin(req.URL) + " (more than " + fmt.Sprint(MaxRedirects) + " redirects)"}
		}
		return nil
	}
	return &c
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Reason posts the bundle as a system and a user message.
func (h *HTTP) Reason(ctx context.Context, b session.Bundle) (string, error) {
	t := h.Timeout
	if t <= 0 {
		t = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	body, _ := json.Marshal(chatRequest{Model: h.Model, Messages: []chatMessage{{"system", b.System()}, {"user", b.User()}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.Endpoint(), bytes.NewReader(body))
	if err != nil {
		return "", session.Errorf(session.NoIntelligence, "the endpoint %q is not a URL · choose again with /intelligence", h.URL)
	}
	req.Header.Set("Content-Type", "application/json")
	if h.Key != "" {
		req.Header.Set("Authorization", "Bearer "+h.Key)
	}
	resp, err := h.client().Do(req)
	if err != nil {
		var re *redirectError
		if errors.As(err, &re) {
			return "", session.Errorf(session.IntelligenceRefused, "%s redirected the request to %s, another origin · nika sends a question only to the origin you chose, so nothing was sent there; choose that endpoint with /intelligence if you trust it", h.Where(), re.to)
		}
		var ne net.Error
		if ctx.Err() == context.DeadlineExceeded || (errors.As(err, &ne) && ne.Timeout()) {
			return "", session.Errorf(session.Io, "%s did not answer within %s · try again later", h.Where(), t)
		}
		return "", session.Errorf(session.Io, "%s could not be reached · check that it runs and the URL, or choose again with /intelligence", h.Where())
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxReply))
	if err != nil {
		return "", session.Errorf(session.Io, "the answer of %s could not be read", h.Where())
	}
	var cr chatResponse
	_ = json.Unmarshal(data, &cr)
	detail := ""
	if cr.Error != nil && cr.Error.Message != "" {
		msg, _ := redact.Text(cr.Error.Message)
		detail = ": " + oneLine(hostpath.New("", hostpath.Options{}).Text(msg))
	}
	switch {
	case resp.StatusCode == 401 || resp.StatusCode == 403:
		return "", session.Errorf(session.IntelligenceRefused, "%s refused the key (HTTP %d)%s · check the key in the environment variable you named", h.Where(), resp.StatusCode, detail)
	case resp.StatusCode == 404:
		return "", session.Errorf(session.IntelligenceRefused, "%s has no such model or endpoint (HTTP 404)%s · check the model and the URL with /intelligence", h.Where(), detail)
	case resp.StatusCode == 429:
		return "", session.Errorf(session.IntelligenceRefused, "%s is rate limiting (HTTP 429)%s · wait, then ask again", h.Where(), detail)
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return "", session.Errorf(session.IntelligenceRefused, "%s refused the request (HTTP %d)%s", h.Where(), resp.StatusCode, detail)
	case resp.StatusCode >= 500:
		return "", session.Errorf(session.Io, "%s failed (HTTP %d)%s · try again later", h.Where(), resp.StatusCode, detail)
	case resp.StatusCode != 200:
		return "", session.Errorf(session.IntelligenceRefused, "%s answered HTTP %d", h.Where(), resp.StatusCode)
	}
	if len(cr.Choices) == 0 || strings.TrimSpace(cr.Choices[0].Message.Content) == "" {
		return "", session.Errorf(session.IntelligenceRefused, "%s answered with no message", h.Where())
	}
	return cr.Choices[0].Message.Content, nil
}
