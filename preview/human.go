package preview

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/checker"
)

// Options shape the human text. The caller decides color (NO_COLOR, TTY);
// this package never looks at the terminal.
type Options struct {
	// Color adds git's diff colors: meta lines bold, hunk headers cyan,
	// removed lines red, added lines green, escaped bytes in reverse video.
	Color bool
}

// Input is everything a preview renders: the staged proposal and what the
// checker said about its exact bytes.
type Input struct {
	Proposal *changeset.Proposal
	// Audits are the checker's reports on the exact proposed bytes, one per
	// workflow or project file the proposal writes; may be nil. A written
	// workflow or project file without a report is shown as not audited.
	Audits []checker.Report
	// Repairs are the fix ladder's repairs per path, made to proposed bytes
	// before staging (so the diffs already include them); may be nil.
	Repairs map[changeset.Path][]checker.RepairStep
	// Unchanged lists paths the input named whose bytes did not change; the
	// preview says so, so that a silent no-op is never mistaken for a change.
	Unchanged []changeset.Path
	// Signing, when set, says how git's configuration will have the
	// applied commit signed after the yes ("ssh, key SHA256:…"): the
	// commit shown is then the unsigned proposal commit.
	Signing string
}

// ErrInconsistent wraps every refusal to render a proposal whose parts do
// not agree (a side missing for its kind, a witness that is not the blake3
// of its bytes, a diff that would not reproduce the proposed bytes). Showing
// such a proposal could show other bytes than apply writes.
var ErrInconsistent = errors.New("preview: inconsistent proposal")

// The lengths of short ids in the human text.
const shortHex = 12

// git's default diff colors.
const (
	cReset  = "\x1b[m"
	cBold   = "\x1b[1m"
	cCyan   = "\x1b[36m"
	cRed    = "\x1b[31m"
	cGreen  = "\x1b[32m"
	cYellow = "\x1b[33m"
	cRevOn  = "\x1b[7m"
	cRevOff = "\x1b[27m"
)

type printer struct {
	b     bytes.Buffer
	color bool
}

// line writes one line, wrapped in the color code c when color is on.
func (p *printer) line(c, s string) {
	if p.color && c != "" {
		p.b.WriteString(c)
		p.b.WriteString(s)
		p.b.WriteString(cReset)
	} else {
		p.b.WriteString(s)
	}
	p.b.WriteByte('\n')
}

func (p *printer) linef(c, format string, args ...any) { p.line(c, fmt.Sprintf(format, args...)) }

// Human writes the text a human reads before consenting: a header (proposal
// id, commit, base and branch, goal, run request), one row per change (kind,
// class, blob and witness before → after, path), the paths named but
// unchanged, then per change its exact bytes as a git-style diff: every line
// of a create, a unified diff with three lines of context for an update or
// a move, every removed line of a delete. Then the fix ladder's repairs, and
// last the audit of each workflow and project file: the verdict, each
// finding as path:line:col CODE message with its fix, and the effect rows.
// Bytes a terminal would not show as themselves are escaped and flagged. The text is a pure function of in and
// opt: no times, no absolute paths. Nothing is written if the proposal is
// inconsistent (ErrInconsistent).
func Human(w io.Writer, in Input, opt Options) error {
	changes, err := check(in.Proposal)
	if err != nil {
		return err
	}
	p := &printer{color: opt.Color}
	pr := in.Proposal
	s := &pr.Set

	p.linef(cYellow, "proposal %s", safe(pr.ID))
	p.linef("", "commit   %s", safe(pr.Commit))
	if in.Signing != "" {
		p.linef("", "signing  will be signed (%s) after the yes: the branch moves to the signed twin of the unsigned commit above", safe(in.Signing))
	}
	p.linef("", "base     %s", baseText(s))
	for i, l := range strings.Split(s.Goal, "\n") {
		// a goal of many lines is shown as lines, each escaped
		if i == 0 {
			p.linef("", "goal     %s", safe(l))
		} else {
			p.linef("", "         %s", safe(l))
		}
	}
	if s.RebasedFrom != "" {
		p.linef("", "rebased  brings proposal %s forward onto this base", short(s.RebasedFrom))
	}
	if s.Run != nil {
		p.linef("", "run      %s", runText(s.Run))
	}
	p.line("", "")

	if len(changes) == 0 {
		p.line(cBold, "nothing was proposed: this proposal changes no file")
	} else {
		p.linef(cBold, "%d %s", len(changes), plural(len(changes), "change", "changes"))
		for _, c := range changes {
			before, after := "absent", "absent"
			wb, wa := "absent", "absent"
			if c.Before != nil {
				before, wb = short(c.Before.Blob), c.Before.Witness.String()
			}
			if c.After != nil {
				after, wa = short(c.After.Blob), c.After.Witness.String()
			}
			flag := ""
			if c.After != nil && scan(string(c.After.Bytes)).any() {
				flag = "  ! hidden characters"
			}
			p.linef("", "  %-6s  %-10s  %-12s → %-12s  %s%s", c.Kind, c.Class, before, after, pathText(c), flag)
			p.linef("", "  %-6s  %-10s  %s → %s", "", "witness", wb, wa)
			p.checkoutRows(c)
		}
	}
	hiddenRows(p, changes)
	if n := len(in.Unchanged); n > 0 {
		p.line("", "")
		p.linef(cBold, "%d %s named but unchanged (the bytes are the same as in the base)", n, plural(n, "path", "paths"))
		for _, u := range sortedPaths(in.Unchanged) {
			p.linef("", "  %s", safe(string(u)))
		}
	}

	for _, c := range changes {
		p.line("", "")
		if err := p.change(c); err != nil {
			return err
		}
		if err := p.diskBody(c); err != nil {
			return err
		}
	}

	if rs := repairs(in.Repairs); len(rs) > 0 {
		p.line("", "")
		p.line(cBold, "repairs made by the fix ladder before staging (the diffs above include them)")
		for _, r := range rs {
			p.linef("", "  %s:%d %s: %s", safe(string(r.path)), r.step.Line, safe(r.step.Rule), safe(r.step.Description))
		}
	}

	p.audits(changes, in.Audits)

	_, err = w.Write(p.b.Bytes())
	return err
}

// check validates the proposal and returns its changes sorted by path, the
// manifest's order.
func check(pr *changeset.Proposal) ([]changeset.Change, error) {
	if pr == nil {
		return nil, fmt.Errorf("%w: no proposal", ErrInconsistent)
	}
	if id := ID(pr); pr.ID != id {
		return nil, fmt.Errorf("%w: the id %s is not the blake3 of the manifest (%s)", ErrInconsistent, changeset.Quote(pr.ID), id)
	}
	cs := append([]changeset.Change(nil), pr.Set.Changes...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })
	for _, c := range cs {
		q := changeset.Quote(string(c.Path))
		var wantBefore, wantAfter bool
		switch c.Kind {
		case changeset.Create:
			wantAfter = true
		case changeset.Update, changeset.Move:
			wantBefore, wantAfter = true, true
		case changeset.Delete:
			wantBefore = true
		default:
			return nil, fmt.Errorf("%w: change %s has unknown kind %q", ErrInconsistent, q, c.Kind)
		}
		if (c.Before != nil) != wantBefore || (c.After != nil) != wantAfter {
			return nil, fmt.Errorf("%w: %s of %s has the wrong sides (before %s, after %s)",
				ErrInconsistent, c.Kind, q, presence(c.Before), presence(c.After))
		}
		if (c.Kind == changeset.Move) != (c.From != "") {
			return nil, fmt.Errorf("%w: %s of %s: only a move has a source", ErrInconsistent, c.Kind, q)
		}
		for _, sd := range []*changeset.Side{c.Before, c.After} {
			if sd != nil && changeset.WitnessOf(sd.Bytes) != sd.Witness {
				return nil, fmt.Errorf("%w: %s: witness %s is not the blake3 of the bytes", ErrInconsistent, q, sd.Witness)
			}
			if sd != nil && sd.Disk != nil && sd.Disk.Bytes != nil && changeset.WitnessOf(sd.Disk.Bytes) != sd.Disk.Witness {
				return nil, fmt.Errorf("%w: %s: witness %s is not the blake3 of the bytes on disk", ErrInconsistent, q, sd.Disk.Witness)
			}
		}
	}
	return cs, nil
}

func presence(s *changeset.Side) string {
	if s == nil {
		return "absent"
	}
	return "present"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// short abbreviates an object id for a human, as git does.
func short(h string) string {
	if len(h) > shortHex {
		h = h[:shortHex]
	}
	return safe(h)
}

// branchName strips refs/heads/ from a full ref name.
func branchName(ref string) string {
	return strings.TrimPrefix(ref, "refs/heads/")
}

func baseText(s *changeset.Set) string {
	base := "unborn"
	if s.Base != "" {
		base = short(s.Base)
	}
	if s.Branch == "" {
		return base + " (detached HEAD)"
	}
	return base + " (" + safe(branchName(s.Branch)) + ")"
}

func runText(r *changeset.RunRequest) string {
	var b strings.Builder
	b.WriteString(safe(string(r.Workflow)))
	b.WriteString(" after apply, max cost ")
	b.WriteString(strconv.FormatFloat(r.MaxCostUSD, 'f', -1, 64))
	b.WriteString(" USD")
	if len(r.Vars) > 0 {
		keys := make([]string, 0, len(r.Vars))
		for k := range r.Vars {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(", vars")
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%s", strconv.Quote(k), strconv.Quote(r.Vars[k]))
		}
	}
	return b.String()
}

func pathText(c changeset.Change) string {
	if c.Kind == changeset.Move {
		return safe(string(c.From)) + " → " + safe(string(c.Path))
	}
	return safe(string(c.Path))
}

func sortedPaths(ps []changeset.Path) []changeset.Path {
	out := append([]changeset.Path(nil), ps...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// zeros is the "absent" blob in an index line, as git prints it.
var zeros = strings.Repeat("0", shortHex)

// change renders one change as git renders it in `git show`.
func (p *printer) change(c changeset.Change) error {
	src, dst := c.Path, c.Path
	if c.Kind == changeset.Move {
		src = c.From
	}
	a, b := "a/"+safe(string(src)), "b/"+safe(string(dst))
	p.linef(cBold, "diff --git %s %s", a, b)

	var hs []hunk
	var err error
	fromName, toName := a, b
	switch c.Kind {
	case changeset.Create:
		p.linef(cBold, "new file mode %s", c.After.Mode)
		p.linef(cBold, "index %s..%s", zeros, short(c.After.Blob))
		fromName = "/dev/null"
		hs = whole(c.After.Bytes, opInsert)
	case changeset.Delete:
		p.linef(cBold, "deleted file mode %s", c.Before.Mode)
		p.linef(cBold, "index %s..%s", short(c.Before.Blob), zeros)
		toName = "/dev/null"
		hs = whole(c.Before.Bytes, opDelete)
	case changeset.Update, changeset.Move:
		if c.Before.Mode != c.After.Mode {
			p.linef(cBold, "old mode %s", c.Before.Mode)
			p.linef(cBold, "new mode %s", c.After.Mode)
		}
		same := bytes.Equal(c.Before.Bytes, c.After.Bytes)
		if c.Kind == changeset.Move {
			if same {
				p.line(cBold, "similarity index 100%")
			}
			p.linef(cBold, "rename from %s", safe(string(src)))
			p.linef(cBold, "rename to %s", safe(string(dst)))
		}
		if !same {
			if c.Before.Mode == c.After.Mode {
				p.linef(cBold, "index %s..%s %s", short(c.Before.Blob), short(c.After.Blob), c.After.Mode)
			} else {
				p.linef(cBold, "index %s..%s", short(c.Before.Blob), short(c.After.Blob))
			}
		}
		if hs, err = unified(c.Before.Bytes, c.After.Bytes); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrInconsistent, changeset.Quote(string(c.Path)), err)
		}
	}
	return p.hunks(c, hs, fromName, toName, true)
}

// hunks prints a change's hunks under its --- and +++ lines.
func (p *printer) hunks(c changeset.Change, hs []hunk, fromName, toName string, labels bool) error {
	if len(hs) == 0 {
		if c.Kind == changeset.Create || c.Kind == changeset.Delete {
			p.line("", `\ empty file (0 bytes)`)
		}
		if labels {
			p.line("", `\ `+hunkLabel(c, 0))
		}
		return nil
	}
	p.linef(cBold, "--- %s", fromName)
	p.linef(cBold, "+++ %s", toName)

	var total hidden
	flagged := 0
	for _, h := range hs {
		for _, l := range h.Lines {
			if x := scan(l.Text); x.any() {
				total.add(x)
				flagged++
			}
		}
	}
	if flagged > 0 {
		p.linef(cRed+cBold, "! %d %s hidden characters (%s): each is shown escaped, the lines are flagged, and \\\\ on a flagged line is one backslash",
			flagged, plural(flagged, "line has", "lines have"), total)
	}
	for i, h := range hs {
		if labels {
			p.line(cCyan, h.Header()+" "+hunkLabel(c, i))
		} else {
			p.line(cCyan, h.Header())
		}
		var run escapedRun
		for _, l := range h.Lines {
			p.diffLine(l, &run)
		}
		p.flush(&run)
	}
	return nil
}

// escapedRun counts consecutive escaped lines; one flag after the run says
// which lines above are shown escaped, so that a file with CRLF endings
// does not double in length.
type escapedRun struct {
	lines int
	h     hidden
}

func (p *printer) flush(r *escapedRun) {
	switch {
	case r.lines == 1:
		p.linef("", `\ escaped in the line above: %s`, r.h)
	case r.lines > 1:
		p.linef("", `\ escaped in the %d lines above: %s`, r.lines, r.h)
	}
	*r = escapedRun{}
}

// diffLine renders one line of a hunk: its op, its content (escaped if it
// hides anything, then flagged at the end of the run), and git's marker if
// it has no newline.
func (p *printer) diffLine(l diffLine, run *escapedRun) {
	text, eol := strings.CutSuffix(l.Text, "\n")
	c := ""
	switch l.Op {
	case opDelete:
		c = cRed
	case opInsert:
		c = cGreen
	}
	x := scan(text)
	if x.any() {
		on, off := "", ""
		if p.color {
			on, off = cRevOn, cRevOff
		}
		text = escapeLine(text, on, off)
	} else {
		p.flush(run)
	}
	p.line(c, string(l.Op)+text)
	if x.any() {
		run.lines++
		run.h.add(x)
	}
	if !eol {
		p.flush(run)
		p.line("", `\ No newline at end of file`)
	}
}

type pathRepair struct {
	path changeset.Path
	step checker.RepairStep
}

// repairs flattens the repairs per path in path order, each path's steps in
// the order the ladder applied them.
func repairs(m map[changeset.Path][]checker.RepairStep) []pathRepair {
	var out []pathRepair
	for _, p := range sortedPathKeys(m) {
		for _, st := range m[p] {
			out = append(out, pathRepair{p, st})
		}
	}
	return out
}

func sortedPathKeys(m map[changeset.Path][]checker.RepairStep) []changeset.Path {
	ks := make([]changeset.Path, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// hiddenRows adds a row for each change whose new bytes hold characters the
// preview shows escaped, saying how many and on which lines, so that the
// human knows where to look.
func hiddenRows(p *printer, changes []changeset.Change) {
	first := true
	for _, c := range changes {
		if c.After == nil {
			continue
		}
		lines, n := HiddenLines(c.After.Bytes)
		if n == 0 {
			continue
		}
		if first {
			p.line("", "")
			first = false
		}
		shown := lines
		more := ""
		if len(shown) > 10 {
			shown, more = shown[:10], fmt.Sprintf(", … %d more", len(lines)-10)
		}
		nums := make([]string, len(shown))
		for i, l := range shown {
			nums[i] = strconv.Itoa(l)
		}
		p.linef(cRed+cBold, "! hidden characters: %d in %s (%s %s%s)", n, safe(string(c.Path)),
			plural(len(lines), "line", "lines"), strings.Join(nums, ", "), more)
	}
}

// hunkLabel names the selectable hunk that the i-th diff block of c
// belongs to, as a human names it to keep or drop it: "hunk a.go:2". A
// creation, a deletion, a move or a mode change alone is one hunk, whatever
// blocks it shows (hunks.Of).
func hunkLabel(c changeset.Change, i int) string {
	name := safe(string(c.Path))
	switch {
	case c.Kind == changeset.Create || c.Kind == changeset.Delete:
		return "hunk " + name + ":1 (the whole file)"
	case c.Kind == changeset.Move:
		return "hunk " + name + ":1 (the whole move)"
	case bytes.Equal(c.Before.Bytes, c.After.Bytes):
		return "hunk " + name + ":1 (the mode change)"
	}
	return "hunk " + name + ":" + strconv.Itoa(i+1)
}
