package main

// The session's doors on the terminal: bare `nika` opens the session on
// an interactive terminal, and prints a deterministic summary of the
// project on a pipe. The machine is session.Machine; this file only reads
// lines from the terminal, prints outcomes, and carries out the run and
// resume requests the machine hands back as data.

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/protocol"
	"github.com/nika-dev/nika/redact"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/intelligence"
	"github.com/nika-dev/nika/session/project"
	"github.com/nika-dev/nika/terminal"
)

// bare is `nika` with no verb.
func (d *door) bare(c *cli.Context) error {
	if c.NArg() > 0 {
		return refusal.New(refusal.Invalid, "run nika help to see the verbs", "nika has no verb %s", changeset.Quote(c.Args().First()))
	}
	eng, err := d.openEngine()
	if err != nil {
		return err
	}
	if d.json || !terminal.IsTerminal(d.stdout) || !terminal.IsTerminal(d.stdin) {
		return d.summary(eng)
	}
	return d.terminalSession(eng)
}

func (d *door) openEngine() (*project.Engine, error) {
	r, err := d.openRepo()
	if err != nil {
		return nil, err
	}
	return &project.Engine{Repo: r.Git(), MaxApplied: 5, Color: d.colorOn()}, nil
}

// summary is the pipe door: the snapshot, the same bytes for the same
// project.
func (d *door) summary(eng *project.Engine) error {
	snap, err := eng.Snapshot()
	if err != nil {
		return err
	}
	if d.json {
		return d.writeJSON(summaryJSON{Type: "summary", Snapshot: snap})
	}
	_, err = io.WriteString(d.stdout, escapeText(snap.Summary()))
	return err
}

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

func escapeText(t string) string { return preview.EscapeText(t) }

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

// show prints outcomes, and asks the human where an outcome waits for
// them: consent for a proposal, an answer for a gate. Both prompts are read
// with the consent reader: input typed ahead is discarded and a pasted
// line is never an answer.
func (s *termSession) show(outs []session.Outcome) {
	for _, o := range outs {
		switch v := o.(type) {
		case session.Answer:
			s.text(v.Text)
			for _, c := range v.Corrections {
				s.printf("nika: correction (%s): %s\n", escape(c.Kind), escape(c.Text))
			}
			if len(v.Redacted) > 0 {
				s.printf("nika: redacted before sending: %s\n", escape(redact.Summary(v.Redacted)))
			}
		case session.Proposal:
			io.WriteString(s.t, v.Preview)
			for {
				line, err := s.t.Answer(fmt.Sprintf("Apply proposal %s? Type yes to apply; anything else discards it: ", short(v.ID)))
				if err != nil {
					s.printf("no answer: proposal %s stays pending\n", short(v.ID))
					return
				}
				res := s.m.ConsentTo(v.ID, line)
				if r, ok := res[0].(session.Refusal); ok && r.Class == session.EmptyAnswer {
					s.text(r.Text)
					continue
				}
				s.show(res)
				break
			}
		case session.Discarded:
			s.printf("discarded %s: %s\n", short(v.ID), escape(v.Reason))
		case session.Applied:
			s.printf("applied %s: %s is now at %s (%d file(s))\n", short(v.ID), escape(v.Branch), short(v.Commit), len(v.Paths))
			io.WriteString(s.t, escapeText(v.Note))
		case session.RunRequested, session.ResumeRequested:
			s.show(protocol.Carry(s.d.repo, s.eng, s.m, v, terminal.EscapingWriter(s.t.File()), terminal.EscapingWriter(s.t.File())))
		case protocol.Run:
			if v.Status == string(flow.Ran) {
				s.printf("runner exited %d\n", v.Exit)
			} else {
				s.printf("no runner is configured (git config nika.runner, nika.resume); to run it:\n  %s\n", escape(v.Command))
			}
		case session.GateAsk:
			s.printf("The run %s waits at task %s: %s\n", escape(v.ID.Trace), escape(v.ID.Task), escape(v.Question))
			for {
				line, err := s.t.Answer("Your answer: ")
				if err != nil {
					s.printf("no answer: the run stays paused\n")
					return
				}
				res := s.m.AnswerGateFor(v.ID, line)
				if r, ok := res[0].(session.Refusal); ok && r.Class == session.EmptyAnswer {
					s.text(r.Text)
					continue
				}
				s.show(res)
				break
			}
		case session.AskIntelligence:
			home, _ := os.UserHomeDir()
			c := chooseIntelligence(s.t, home)
			r := serveChoice(s.t, c)
			s.m.SetReasoner(r)
			s.printf("nika session · %s\n", escape(protocol.Where(c, r)))
		case session.Builtins, session.Providers, session.LastRun:
			s.text(o.(session.Texter).Text())
		case session.Refusal:
			s.printf("nika: refused (%s): %s\n", v.Class, escape(doorwords.SessionText(v)))
		}
	}
}

// chooseIntelligence asks the human in plain words and keeps the choice.
// Where the session's data goes is the human's to say: the answers are
// read like a consent, typed after the question and never pasted.
func chooseIntelligence(t *terminal.Terminal, home string) intelligence.Choice {
	census := intelligence.Take(intelligence.LookPath, intelligence.LookupEnv)
	ask := func(prompt string) (string, error) {
		line, err := t.Answer(escapePrompt(prompt))
		if err != nil {
			return "", io.EOF
		}
		return line, nil
	}
	c, ok, err := intelligence.Ask(census, ask)
	if err != nil || !ok {
		fmt.Fprintln(t, "\nno choice was made: this session has no intelligence, and nothing is kept · /intelligence asks again")
		return intelligence.Choice{Kind: intelligence.None}
	}
	if err := intelligence.Save(home, c); err != nil {
		fmt.Fprintf(t, "nika: %s\n", escape(err.Error()))
	} else {
		fmt.Fprintln(t, "kept in ~/.nika/session-intelligence.json · /intelligence asks again")
	}
	return c
}

// escapePrompt escapes a question of many lines for the terminal.
func escapePrompt(p string) string { return escapeText(p) }

// serveChoice builds the reasoner, or says why this machine cannot serve
// the choice and what fixes it. It never replaces the choice.
func serveChoice(t *terminal.Terminal, c intelligence.Choice) session.Reasoner {
	r, err := intelligence.Serve(c, intelligence.LookPath, intelligence.LookupEnv)
	if err != nil {
		fmt.Fprintf(t, "nika: refused (%s): %s\n", session.ClassOf(err), escape(doorwords.SessionText(session.Refused(err))))
		fmt.Fprintln(t, "this session goes on without an intelligence until you fix it")
		return nil
	}
	return r
}
