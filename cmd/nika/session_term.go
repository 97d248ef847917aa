package main

// The session on the controlling terminal: its loop and its input.

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nika-dev/nika/protocol"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/intelligence"
	"github.com/nika-dev/nika/session/project"
	"github.com/nika-dev/nika/terminal"
)

// termSession is the session on the controlling terminal. Every string
// that came from outside nika (the model's replies, goals, paths, hook and
// runner output, reasoners' errors) is written through the one escaper;
// the preview escapes its own.
type termSession struct {
	d   *door
	t   *terminal.Terminal
	eng *project.Engine
	m   *session.Machine
}

func (s *termSession) printf(format string, args ...any) { fmt.Fprintf(s.t, format, args...) }

// text writes text from outside nika, escaped, ending with a newline.
func (s *termSession) text(t string) {
	t = escapeText(t)
	if !strings.HasSuffix(t, "\n") {
		t += "\n"
	}
	io.WriteString(s.t, t)
}

func (d *door) terminalSession(eng *project.Engine) error {
	t, err := terminal.Open()
	if err != nil {
		return d.summary(eng)
	}
	defer t.Close()
	home, _ := os.UserHomeDir()
	choice, kept, err := intelligence.Load(home)
	if err != nil {
		fmt.Fprintf(t, "nika: %s\n", escape(err.Error()))
	}
	if !kept {
		choice = chooseIntelligence(t, home)
	}
	rsn := serveChoice(t, choice)
	m, err := session.New(eng, rsn, session.Options{Verbs: d.verbs()})
	if err != nil {
		return err
	}
	s := &termSession{d: d, t: t, eng: eng, m: m}
	s.printf("nika session · %s\n\n", escape(protocol.Where(choice, rsn)))
	io.WriteString(t, escapeText(m.Snapshot().Summary()))
	s.printf("\nAsk a question, paste a reply or a patch, or type /help. /quit ends the session.\n")
	for {
		in, pasted, err := t.Input(s.prompt())
		if err != nil {
			break
		}
		if pasted {
			s.show(m.Paste(in))
			continue
		}
		trim := strings.TrimSpace(in)
		if trim == "/quit" || trim == "/exit" {
			break
		}
		text, ok := s.collect(in)
		if !ok {
			break
		}
		s.show(m.Turn(text))
	}
	if p := m.Pending(); p != nil {
		s.printf("proposal %s stays pending (nika apply %s)\n", short(p.ID), short(p.ID))
	}
	return nil
}

// prompt is the session's prompt; it shows what /allow allows.
func (s *termSession) prompt() string {
	if a := s.m.Allowed(); len(a) > 0 {
		return "nika [allow " + strings.Join(a, " ") + "]> "
	}
	return "nika> "
}

// collect reads the rest of a typed multi-line input: a fenced block up to
// its closing fence, an apply_patch payload up to *** End Patch, or
// anything between /paste and /end. A paste within it is taken whole.
func (s *termSession) collect(first string) (string, bool) {
	trim := strings.TrimSpace(first)
	var end func(string) bool
	lines := []string{first}
	switch {
	case trim == "/paste":
		lines = nil
		end = func(l string) bool { return strings.TrimSpace(l) == "/end" }
	case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
		fence := trim[:3]
		end = func(l string) bool { return strings.TrimSpace(l) == fence }
	case strings.HasPrefix(trim, "*** Begin Patch"):
		end = func(l string) bool { return strings.TrimSpace(l) == "*** End Patch" }
	default:
		return first, true
	}
	for {
		in, pasted, err := s.t.Input("")
		if err != nil {
			return strings.Join(lines, "\n") + "\n", len(lines) > 0
		}
		for _, l := range strings.Split(strings.TrimSuffix(in, "\n"), "\n") {
			if !pasted && end(l) {
				if trim != "/paste" {
					lines = append(lines, l)
				}
				return strings.Join(lines, "\n") + "\n", true
			}
			lines = append(lines, l)
		}
		if pasted && trim == "/paste" {
			// /paste then a bracketed paste: the paste is the input.
			return strings.Join(lines, "\n") + "\n", true
		}
	}
}
