package main

// What the terminal session shows, and the answers it asks for.

import (
	"fmt"
	"io"
	"os"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/flow"
	"github.com/nika-dev/nika/protocol"
	"github.com/nika-dev/nika/redact"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/intelligence"
	"github.com/nika-dev/nika/terminal"
)

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
