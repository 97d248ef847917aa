package main

// The session's doors on the terminal: bare `nika` opens the session on
// an interactive terminal, and prints a deterministic summary of the
// project on a pipe. The machine is session.Machine; this file only reads
// lines from the terminal, prints outcomes, and carries out the run and
// resume requests the machine hands back as data.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
	"github.com/nika-dev/nika/session"
	"github.com/nika-dev/nika/session/intelligence"
	"github.com/nika-dev/nika/session/project"
)

func init() {
	bareAction = func(d *door) cli.ActionFunc { return d.bare }
}

// bare is `nika` with no verb.
func (d *door) bare(c *cli.Context) error {
	if c.NArg() > 0 {
		return refusal.New(refusal.Invalid, "run nika help to see the verbs", "nika has no verb %s", changeset.Quote(c.Args().First()))
	}
	eng, err := d.openEngine()
	if err != nil {
		return err
	}
	if d.json || !isTerminal(d.stdout) || !isReaderTerminal(d.stdin) {
		return d.summary(eng)
	}
	return d.terminalSession(eng)
}

func isReaderTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isTerminal(f)
}

func (d *door) openEngine() (*project.Engine, error) {
	r, err := d.openRepo()
	if err != nil {
		return nil, err
	}
	return &project.Engine{Repo: r, MaxApplied: 5, Color: d.colorOn()}, nil
}

// verbs are the CLI's verbs, for the hallucination guard.
func (d *door) verbs() []string {
	var out []string
	for _, c := range d.app().Commands {
		out = append(out, c.Name)
	}
	return append(out, "help")
}

// summary is the pipe door: the snapshot, the same bytes for the same
// project.
func (d *door) summary(eng *project.Engine) error {
	snap, err := eng.Snapshot()
	if err != nil {
		return err
	}
	if d.json {
		return d.writeJSON(map[string]any{"type": "summary", "snapshot": snap})
	}
	_, err = io.WriteString(d.stdout, snap.Summary())
	return err
}

// runOutcome is what a door did with a run or resume request.
type runOutcome struct {
	Status  string `json:"status"` // "ran" or "not configured"
	Exit    int    `json:"exit"`
	Command string `json:"command,omitempty"` // the command to run by hand
}

func (runOutcome) Kind() string { return "run" }

// carry carries out a RunRequested or a ResumeRequested through the
// project's runner templates (git config nika.runner, nika.resume), then
// tells the machine how the run ended. The runner's standard output is
// copied to echo (nil: kept from the output) and read for a paused frame.
func (d *door) carry(eng *project.Engine, m *session.Machine, req session.Outcome, echo, errw io.Writer) []session.Outcome {
	var argv []string
	var suggest string
	switch v := req.(type) {
	case session.RunRequested:
		t, _ := eng.Repo.Config.Get("nika.runner")
		argv, suggest = session.RunArgv(t, v), session.SuggestedRun(v)
	case session.ResumeRequested:
		t, _ := eng.Repo.Config.Get("nika.resume")
		argv, suggest = session.ResumeArgv(t, v), session.SuggestedResume(v)
	default:
		return nil
	}
	if len(argv) == 0 {
		return []session.Outcome{runOutcome{Status: "not configured", Command: suggest}}
	}
	var out bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = eng.Repo.Root
	cmd.Stdout, cmd.Stderr = &out, errw
	if echo != nil {
		cmd.Stdout = io.MultiWriter(&out, echo)
	}
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return []session.Outcome{session.Refusal{Class: session.Io, Text: eng.ScrubProgram(fmt.Sprintf("the runner %s could not start: %v · check git config nika.runner", argv[0], err))}}
	}
	return append([]session.Outcome{runOutcome{Status: "ran", Exit: code}}, m.ObserveRun(code, session.ParseRunOutput(out.Bytes()))...)
}

// term is the controlling terminal: the only place the session reads the
// human's lines, consent included.
type term struct {
	r *bufio.Reader
	w io.Writer
}

func (t *term) ask(prompt string) (string, error) {
	io.WriteString(t.w, prompt)
	line, err := t.r.ReadString('\n')
	if err != nil && line == "" {
		return "", io.EOF
	}
	return strings.TrimRight(line, "\r\n"), nil
}

type termSession struct {
	d   *door
	t   *term
	eng *project.Engine
	m   *session.Machine
}

func (d *door) terminalSession(eng *project.Engine) error {
	tty, err := openTTY()
	if err != nil {
		return d.summary(eng)
	}
	defer tty.Close()
	t := &term{r: bufio.NewReader(tty), w: tty}
	home, _ := os.UserHomeDir()
	choice, kept, err := intelligence.Load(home)
	if err != nil {
		fmt.Fprintf(t.w, "nika: %s\n", err)
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
	fmt.Fprintf(t.w, "nika session · %s\n\n", whereNow(choice, rsn))
	io.WriteString(t.w, m.Snapshot().Summary())
	fmt.Fprintln(t.w, "\nAsk a question, paste a reply or a patch, or type /help. /quit ends the session.")
	for {
		line, err := t.ask(s.prompt())
		if err != nil {
			fmt.Fprintln(t.w)
			break
		}
		trim := strings.TrimSpace(line)
		if trim == "/quit" || trim == "/exit" {
			break
		}
		text, ok := s.collect(line)
		if !ok {
			break
		}
		s.show(m.Turn(text))
	}
	if p := m.Pending(); p != nil {
		fmt.Fprintf(t.w, "proposal %s stays pending (nika apply %s)\n", p.ID[:12], p.ID[:12])
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

func whereNow(c intelligence.Choice, r session.Reasoner) string {
	if r == nil {
		return intelligence.Where(intelligence.Choice{Kind: intelligence.None})
	}
	return intelligence.Where(c)
}

// collect reads the rest of a multi-line paste: a fenced block up to its
// closing fence, an apply_patch payload up to *** End Patch, or anything
// between /paste and /end.
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
		l, err := s.t.r.ReadString('\n')
		if err != nil && l == "" {
			return strings.Join(lines, "\n") + "\n", len(lines) > 0
		}
		l = strings.TrimRight(l, "\r\n")
		if end(l) {
			if trim != "/paste" {
				lines = append(lines, l)
			}
			return strings.Join(lines, "\n") + "\n", true
		}
		lines = append(lines, l)
	}
}

// show prints outcomes, and asks the human where an outcome waits for
// them: consent for a proposal, an answer for a gate.
func (s *termSession) show(outs []session.Outcome) {
	w := s.t.w
	for _, o := range outs {
		switch v := o.(type) {
		case session.Answer:
			io.WriteString(w, v.Text)
			if !strings.HasSuffix(v.Text, "\n") {
				io.WriteString(w, "\n")
			}
			for _, c := range v.Corrections {
				fmt.Fprintf(w, "nika: correction (%s): %s\n", c.Kind, c.Text)
			}
			if len(v.Redacted) > 0 {
				fmt.Fprintf(w, "nika: redacted before sending: %s\n", session.RedactedSummary(v.Redacted))
			}
		case session.Proposal:
			io.WriteString(w, v.Preview)
			for {
				line, err := s.t.ask(fmt.Sprintf("Apply proposal %s? Type yes to apply; anything else discards it: ", v.ID[:12]))
				if err != nil {
					fmt.Fprintf(w, "\nno answer: proposal %s stays pending\n", v.ID[:12])
					return
				}
				res := s.m.ConsentTo(v.ID, line)
				if r, ok := res[0].(session.Refusal); ok && r.Class == session.EmptyAnswer {
					fmt.Fprintf(w, "%s\n", r.Text)
					continue
				}
				s.show(res)
				break
			}
		case session.Discarded:
			fmt.Fprintf(w, "discarded %s: %s\n", v.ID[:12], v.Reason)
		case session.Applied:
			fmt.Fprintf(w, "applied %s: %s is now at %s (%d file(s))\n", v.ID[:12], v.Branch, v.Commit[:12], len(v.Paths))
			io.WriteString(w, v.Note)
		case session.RunRequested, session.ResumeRequested:
			s.show(s.d.carry(s.eng, s.m, v, w, w))
		case runOutcome:
			if v.Status == "ran" {
				fmt.Fprintf(w, "runner exited %d\n", v.Exit)
			} else {
				fmt.Fprintf(w, "no runner is configured (git config nika.runner, nika.resume); to run it:\n  %s\n", v.Command)
			}
		case session.GateAsk:
			for {
				line, err := s.t.ask(fmt.Sprintf("The run %s waits at task %s: %s\nYour answer: ", v.ID.Trace, v.ID.Task, v.Question))
				if err != nil {
					fmt.Fprintln(w, "\nno answer: the run stays paused")
					return
				}
				res := s.m.AnswerGateFor(v.ID, line)
				if r, ok := res[0].(session.Refusal); ok && r.Class == session.EmptyAnswer {
					fmt.Fprintf(w, "%s\n", r.Text)
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
			fmt.Fprintf(w, "nika session · %s\n", whereNow(c, r))
		case session.Builtins, session.Providers, session.LastRun:
			io.WriteString(w, o.(session.Texter).Text())
		case session.Refusal:
			fmt.Fprintf(w, "nika: refused (%s): %s\n", v.Class, v.Text)
		}
	}
}

// chooseIntelligence asks the human in plain words and keeps the choice.
func chooseIntelligence(t *term, home string) intelligence.Choice {
	census := intelligence.Take(intelligence.LookPath, intelligence.LookupEnv)
	c, ok, err := intelligence.Ask(census, t.ask)
	if err != nil || !ok {
		fmt.Fprintln(t.w, "\nno choice was made: this session has no intelligence, and nothing is kept · /intelligence asks again")
		return intelligence.Choice{Kind: intelligence.None}
	}
	if err := intelligence.Save(home, c); err != nil {
		fmt.Fprintf(t.w, "nika: %s\n", err)
	} else {
		fmt.Fprintln(t.w, "kept in ~/.nika/session-intelligence.json · /intelligence asks again")
	}
	return c
}

// serveChoice builds the reasoner, or says why this machine cannot serve
// the choice and what fixes it. It never replaces the choice.
func serveChoice(t *term, c intelligence.Choice) session.Reasoner {
	r, err := intelligence.Serve(c, intelligence.LookPath, intelligence.LookupEnv)
	if err != nil {
		fmt.Fprintf(t.w, "nika: refused (%s): %s\n", session.ClassOf(err), err)
		fmt.Fprintln(t.w, "this session goes on without an intelligence until you fix it")
		return nil
	}
	return r
}
