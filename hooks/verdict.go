package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
	"github.com/nika-dev/nika/preview"
)

// Verdict is the outcome of the post-apply checks: the checker's reports on
// the applied files, the hooks' results, and the problems that kept a file
// from being checked at all.
type Verdict struct {
	Reports  []checker.Report `json:"reports"`
	Hooks    []Result         `json:"hooks"`
	Problems []string         `json:"problems,omitempty"`
	// Removed lists the audited files the apply removed, as the change
	// meant: they are not on disk, and that is no failure.
	Removed []string `json:"removed,omitempty"`
}

// Judge checks the applied files and runs the snapshot's hooks, in that
// order, and returns the verdict. A file that cannot be read is a problem
// in the verdict (which is then not clean), not an error: the hooks run
// regardless.
func Judge(ctx context.Context, s *Set, env Env, opt Options) Verdict {
	removed := map[string]bool{}
	for _, p := range env.Removed {
		removed[p] = true
	}
	var written []string
	for _, p := range env.Paths {
		if !removed[p] {
			written = append(written, p)
		}
	}
	reports, errs := checkFiles(env.Root, written)
	v := Verdict{Reports: reports, Hooks: s.Run(ctx, env, opt)}
	for _, p := range env.Removed {
		if pp, err := changeset.ParsePath(p); err == nil && changeset.Classify(pp).Audited() {
			v.Removed = append(v.Removed, p)
		}
	}
	for _, err := range errs {
		v.Problems = append(v.Problems, err.Error())
	}
	return v
}

// Clean reports whether no finding has error severity, every file could be
// checked, and every hook that ran exited 0 in time.
func (v Verdict) Clean() bool {
	if len(v.Problems) > 0 {
		return false
	}
	for _, r := range v.Reports {
		if !r.Clean() {
			return false
		}
	}
	for _, h := range v.Hooks {
		if h.Failed() {
			return false
		}
	}
	return true
}

type tally struct{ errors, warnings, problems, failed int }

func (v Verdict) tally() tally {
	var t tally
	for _, r := range v.Reports {
		for _, f := range r.Findings {
			if f.Severity == checker.SeverityError {
				t.errors++
			} else {
				t.warnings++
			}
		}
	}
	for _, h := range v.Hooks {
		if h.Failed() {
			t.failed++
		}
	}
	t.problems = len(v.Problems)
	return t
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Summary is the verdict in a few words: "clean", "clean, 1 warning",
// "2 errors, 1 hook failed".
func (v Verdict) Summary() string {
	t := v.tally()
	var parts []string
	if v.Clean() {
		parts = append(parts, "clean")
	}
	if t.errors > 0 {
		parts = append(parts, plural(t.errors, "error", "errors"))
	}
	if t.warnings > 0 {
		parts = append(parts, plural(t.warnings, "warning", "warnings"))
	}
	if t.problems > 0 {
		parts = append(parts, plural(t.problems, "file not checked", "files not checked"))
	}
	if t.failed > 0 {
		parts = append(parts, plural(t.failed, "hook failed", "hooks failed"))
	}
	if n := len(v.Removed); n > 0 {
		parts = append(parts, plural(n, "file removed", "files removed"))
	}
	return strings.Join(parts, ", ")
}

// Text renders the verdict for a git note: the summary line, one line per
// finding (path:line:col CODE message), one per problem, then one per hook
// with its output indented by four spaces. It leaves out durations, and
// escapes control characters, so the same checks give the same bytes.
func (v Verdict) Text() string {
	var b strings.Builder
	b.WriteString("nika verdict: " + v.Summary() + "\n")
	for _, r := range v.Reports {
		for _, f := range r.Findings {
			sev := ""
			if f.Severity != checker.SeverityError {
				sev = string(f.Severity) + ": "
			}
			fmt.Fprintf(&b, "%s:%d:%d %s %s%s\n", oneLine(r.Path), f.Line, f.Col, oneLine(f.Code), sev, oneLine(f.Message))
		}
	}
	for _, p := range v.Problems {
		b.WriteString("not checked: " + oneLine(p) + "\n")
	}
	for _, p := range v.Removed {
		b.WriteString("removed: " + oneLine(p) + "\n")
	}
	for _, h := range v.Hooks {
		b.WriteString("hook " + oneLine(h.Name) + ": " + h.status() + "\n")
		out := strings.TrimSuffix(h.Output, "\n")
		if out == "" {
			continue
		}
		for _, l := range strings.Split(out, "\n") {
			b.WriteString("    " + oneLine(l) + "\n")
		}
	}
	return b.String()
}

// status is a hook's outcome in a few words.
func (h Result) status() string {
	switch {
	case h.Skipped != "":
		return "skipped (" + oneLine(h.Skipped) + ")"
	case h.TimedOut:
		return "timed out"
	case h.Error != "":
		return oneLine(h.Error)
	case h.Signal != 0:
		return fmt.Sprintf("killed by signal %d", h.Signal)
	}
	return fmt.Sprintf("exit %d", h.Exit)
}

// oneLine renders a line of a note with the one escaper (preview.Escape):
// every control character, escape sequence, bidi control and invisible
// code point as a visible escape, so that a line of a note stays one line
// and a terminal that shows it (git log --notes) takes no orders from it.
func oneLine(s string) string { return preview.Escape(s) }

// Advice says, for a human, what failed and how to undo the apply; it is
// empty for a clean verdict. The apply itself stands: it was made with the
// human's consent, and a failed check does not take it back. Its last line
// names git's own command for the undo (git revert COMMIT); a door adds
// its own way, if it has one, to that line.
func (v Verdict) Advice(commit string) string {
	if v.Clean() {
		return ""
	}
	if commit == "" {
		commit = "<commit>"
	}
	var b strings.Builder
	b.WriteString("the post-apply checks failed: " + v.Summary() + "\n")
	for _, r := range v.Reports {
		errs := r.Errors()
		if len(errs) == 0 {
			continue
		}
		var codes []string
		for _, f := range errs {
			codes = append(codes, f.Code)
		}
		fmt.Fprintf(&b, "  %s: %s (%s)\n", oneLine(r.Path), plural(len(errs), "error", "errors"), oneLine(strings.Join(codes, ", ")))
	}
	for _, p := range v.Problems {
		b.WriteString("  not checked: " + oneLine(p) + "\n")
	}
	for _, h := range v.Hooks {
		if h.Failed() {
			b.WriteString("  hook " + oneLine(h.Name) + ": " + h.status() + "\n")
		}
	}
	b.WriteString("the apply stays: it was made with your consent, and a failed check does not undo it\n")
	fmt.Fprintf(&b, "to undo the apply: git revert %s\n", commit)
	return b.String()
}

// MarshalJSON adds the type and the clean flag, and writes empty lists as
// [] rather than null.
func (v Verdict) MarshalJSON() ([]byte, error) {
	type plain Verdict
	p := plain(v)
	if p.Reports == nil {
		p.Reports = []checker.Report{}
	}
	if p.Hooks == nil {
		p.Hooks = []Result{}
	}
	return json.Marshal(struct {
		Type    string `json:"type"`
		Clean   bool   `json:"clean"`
		Summary string `json:"summary"`
		plain
	}{"verdict", v.Clean(), v.Summary(), p})
}

// resultJSON is the JSON shape of a Result; the duration is in whole
// milliseconds.
type resultJSON struct {
	Name       string `json:"name"`
	Exit       int    `json:"exit"`
	Signal     int    `json:"signal,omitempty"`
	TimedOut   bool   `json:"timed_out"`
	Skipped    string `json:"skipped,omitempty"`
	Error      string `json:"error,omitempty"`
	Output     string `json:"output"`
	DurationMS int64  `json:"duration_ms"`
}

// MarshalJSON writes the result with its duration in milliseconds.
func (r Result) MarshalJSON() ([]byte, error) {
	return json.Marshal(resultJSON{r.Name, r.Exit, r.Signal, r.TimedOut, r.Skipped, r.Error, r.Output, r.Duration.Milliseconds()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Result) UnmarshalJSON(data []byte) error {
	var j resultJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*r = Result{j.Name, j.Exit, j.Signal, j.TimedOut, j.Skipped, j.Error, j.Output, time.Duration(j.DurationMS) * time.Millisecond}
	return nil
}
