// Package review is the screen of nika review: a proposal's files as a
// tree, the hunks under each file, the diff of the one under the cursor;
// the human toggles files and hunks, comments on the proposal, a file or a
// hunk, and ends the review by building the part they chose, or by
// discarding the proposal, with the comments.
//
// Why a package of its own: it is a door's screen and nothing else
// (DESIGN.md: the doors hold no logic a library user would need), but its
// update logic is a state machine worth testing on its own, key by key,
// with no terminal (review_test.go). It decides nothing about the project:
// the door (cmd/nika's review verb) turns its Result into a flow.Choice
// (Result.Choice), and the part chosen becomes a derived proposal that is
// previewed and consented with the typed yes outside this screen, through
// the same consent reader as nika apply (package terminal). Nothing here
// applies; the screen cannot consent. InputOf builds the screen's view of
// a proposal, and Run runs the screen on the controlling terminal.
//
// It is built on bubbletea v2 and lipgloss v2, the kept Go libraries for
// terminal screens: bubbletea owns the terminal (raw mode, the alternate
// screen, key and paste decoding, resizes, restoring the terminal on every
// way out), so the model is a pure Update and View.
//
// Only nika draws the screen (law 9): every string from outside nika that
// the screen shows (paths, the goal, diff lines, the human's own comments)
// passes through preview.Escape before it is laid out, and each line is cut
// to the width after escaping. Colour is the door's decision (NO_COLOR,
// color.ui, the terminal): without it, the screen has no style at all and
// the cursor is a marker, so it reads the same in plain text.
package review

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nika-dev/nika/doorwords"
	"github.com/nika-dev/nika/preview"
)

// Hunk is one selectable hunk of a file: its number and the lines of its
// diff, each with its op (' ', '-', '+'), or the line a whole change shows
// when it has none.
type Hunk struct {
	N     int
	Title string   // its @@ header, or what the whole change is
	Lines []string // diff lines, each led by its op; raw bytes, escaped here
}

// File is one change of the proposal.
type File struct {
	Path  string // the path written (a move's destination)
	Kind  string // create, update, delete, move
	From  string // a move's source
	Hunks []Hunk
}

// Input is what the screen reviews.
type Input struct {
	ID, Goal, Branch string
	Files            []File
	Color            bool
}

// Decision is how a review ended.
type Decision int

const (
	// Left: the human left the review; nothing is decided.
	Left Decision = iota
	// Build: the human chose the parts to apply.
	Build
	// Discard: the human discarded the proposal.
	Discard
)

// Ref names a hunk: the path of its file and its number.
type Ref struct {
	Path string
	N    int
}

// Comment is one of the human's comments: On is "" for the proposal, a
// path for a file, PATH:N for a hunk.
type Comment struct{ On, Text string }

// Result is what the review decided.
type Result struct {
	Decision Decision
	Dropped  []Ref // the hunks toggled off, in file and hunk order
	Kept     int   // hunks kept
	Total    int   // hunks in all
	Comments []Comment
}

type mode int

const (
	browsing mode = iota
	commenting
	confirming
)

// row is one line of the tree: a file (hunk -1) or one of its hunks.
type row struct{ file, hunk int }

// Model is the review's state. Its zero value is not usable; use New.
type Model struct {
	in       Input
	rows     []row
	on       [][]bool
	comments map[string]string
	cursor   int
	top      int // the first tree row shown
	scroll   int // the first diff line shown
	width    int
	height   int
	mode     mode
	edit     []rune // the comment being written
	editOn   string // what it is on
	message  string // one line for the human: what a key did, or why not
	result   Result
	done     bool
	st       styles
}

type styles struct {
	cursor, file, header, add, del, dim, title lipgloss.Style
}

// Screen sizes the review is laid out for, at least.
const (
	MinWidth  = 80
	MinHeight = 24
)

// New is a review with every hunk kept and the cursor on the first file.
func New(in Input) *Model {
	m := &Model{in: in, comments: map[string]string{}, width: MinWidth, height: MinHeight}
	for fi, f := range in.Files {
		m.rows = append(m.rows, row{fi, -1})
		ons := make([]bool, len(f.Hunks))
		for hi := range f.Hunks {
			ons[hi] = true
			m.rows = append(m.rows, row{fi, hi})
		}
		m.on = append(m.on, ons)
	}
	if in.Color {
		m.st = styles{
			cursor: lipgloss.NewStyle().Reverse(true),
			file:   lipgloss.NewStyle().Bold(true),
			header: lipgloss.NewStyle().Foreground(lipgloss.Color("6")),
			add:    lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
			del:    lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
			dim:    lipgloss.NewStyle().Faint(true),
			title:  lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("3")),
		}
	} else {
		plain := lipgloss.NewStyle()
		m.st = styles{plain, plain, plain, plain, plain, plain, plain}
	}
	return m
}

// Result is how the review ended; Decision is Left until it ends.
func (m *Model) Result() Result { return m.result }

// Done reports that the review ended.
func (m *Model) Done() bool { return m.done }

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// Update implements tea.Model: keys, pastes and resizes.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 8)
		m.follow()
	case tea.PasteMsg:
		if m.mode == commenting {
			m.edit = append(m.edit, []rune(strings.ReplaceAll(strings.ReplaceAll(msg.Content, "\r\n", " "), "\n", " "))...)
		} else {
			m.message = "a paste does nothing here: press c to write a comment"
		}
	case tea.KeyPressMsg:
		return m, m.key(tea.Key(msg))
	}
	return m, nil
}

func (m *Model) key(k tea.Key) tea.Cmd {
	m.message = ""
	if k.Mod == tea.ModCtrl && k.Code == 'c' {
		return m.end(Left)
	}
	switch m.mode {
	case commenting:
		return m.commentKey(k)
	case confirming:
		m.mode = browsing
		if k.Text == "y" {
			return m.end(Discard)
		}
		m.message = "not discarded"
		return nil
	}
	switch {
	case k.Code == tea.KeyUp || k.Text == "k":
		m.move(-1)
	case k.Code == tea.KeyDown || k.Text == "j":
		m.move(1)
	case k.Code == tea.KeyHome || k.Text == "g":
		m.move(-len(m.rows))
	case k.Code == tea.KeyEnd || k.Text == "G":
		m.move(len(m.rows))
	case k.Code == tea.KeyPgDown || k.Text == "f" || (k.Mod == tea.ModCtrl && k.Code == 'd'):
		m.scroll = min(m.scroll+m.diffHeight(), max(0, len(m.diffLines())-1))
	case k.Code == tea.KeyPgUp || k.Text == "b" || (k.Mod == tea.ModCtrl && k.Code == 'u'):
		m.scroll = max(0, m.scroll-m.diffHeight())
	case k.Code == tea.KeySpace || k.Text == " " || k.Text == "x":
		m.toggle()
	case k.Text == "c":
		m.startComment(m.target())
	case k.Text == "C":
		m.startComment("")
	case k.Text == "a":
		if m.kept() == 0 {
			m.message = "nothing is kept: toggle a hunk on with space, or press d to discard"
			return nil
		}
		return m.end(Build)
	case k.Text == "d":
		m.mode = confirming
	case k.Text == "q" || k.Code == tea.KeyEscape:
		return m.end(Left)
	case k.Text == "?":
		m.message = "c comments on the row, C on the whole proposal; a builds the part kept, previewed before your yes"
	default:
		m.message = "that key does nothing here: ? shows the keys"
	}
	return nil
}

func (m *Model) commentKey(k tea.Key) tea.Cmd {
	switch {
	case k.Code == tea.KeyEnter:
		text := strings.TrimSpace(string(m.edit))
		if text == "" {
			delete(m.comments, m.editOn)
			m.message = "comment removed"
		} else {
			m.comments[m.editOn] = text
			m.message = "comment kept on " + onName(m.editOn)
		}
		m.mode, m.edit = browsing, nil
	case k.Code == tea.KeyEscape:
		m.mode, m.edit = browsing, nil
		m.message = "comment not changed"
	case k.Code == tea.KeyBackspace:
		if len(m.edit) > 0 {
			m.edit = m.edit[:len(m.edit)-1]
		}
	case k.Mod == tea.ModCtrl && k.Code == 'u':
		m.edit = m.edit[:0]
	case k.Text != "":
		m.edit = append(m.edit, []rune(k.Text)...)
	}
	return nil
}

func (m *Model) startComment(on string) {
	m.mode, m.editOn = commenting, on
	m.edit = []rune(m.comments[on])
}

func onName(on string) string {
	if on == "" {
		return "the proposal"
	}
	return preview.Escape(on)
}

// target is what a comment under the cursor is on: the file, or PATH:N.
func (m *Model) target() string {
	if len(m.rows) == 0 {
		return ""
	}
	r := m.rows[m.cursor]
	f := m.in.Files[r.file]
	if r.hunk < 0 {
		return f.Path
	}
	return fmt.Sprintf("%s:%d", f.Path, f.Hunks[r.hunk].N)
}

func (m *Model) move(d int) {
	if len(m.rows) == 0 {
		return
	}
	m.cursor = min(max(m.cursor+d, 0), len(m.rows)-1)
	m.scroll = 0
	m.follow()
}

// follow keeps the cursor's row inside the tree pane.
func (m *Model) follow() {
	h := m.treeHeight()
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+h {
		m.top = m.cursor - h + 1
	}
}

// toggle turns the item under the cursor on or off: a file turns every
// hunk of it (on when any is off).
func (m *Model) toggle() {
	if len(m.rows) == 0 {
		return
	}
	r := m.rows[m.cursor]
	if r.hunk >= 0 {
		m.on[r.file][r.hunk] = !m.on[r.file][r.hunk]
		return
	}
	all := true
	for _, on := range m.on[r.file] {
		all = all && on
	}
	for i := range m.on[r.file] {
		m.on[r.file][i] = !all
	}
}

func (m *Model) kept() int {
	n := 0
	for _, ons := range m.on {
		for _, on := range ons {
			if on {
				n++
			}
		}
	}
	return n
}

func (m *Model) end(d Decision) tea.Cmd {
	res := Result{Decision: d, Kept: m.kept()}
	for fi, f := range m.in.Files {
		for hi, h := range f.Hunks {
			res.Total++
			if !m.on[fi][hi] {
				res.Dropped = append(res.Dropped, Ref{f.Path, h.N})
			}
		}
	}
	for _, on := range m.commentOrder() {
		res.Comments = append(res.Comments, Comment{On: on, Text: m.comments[on]})
	}
	m.result, m.done = res, true
	return tea.Quit
}

// commentOrder lists the commented items: the proposal first, then files
// and hunks in tree order.
func (m *Model) commentOrder() []string {
	var out []string
	if _, ok := m.comments[""]; ok {
		out = append(out, "")
	}
	for _, f := range m.in.Files {
		if _, ok := m.comments[f.Path]; ok {
			out = append(out, f.Path)
		}
		for _, h := range f.Hunks {
			if on := fmt.Sprintf("%s:%d", f.Path, h.N); m.comments[on] != "" {
				out = append(out, on)
			}
		}
	}
	return out
}

// The layout: two header lines, the tree, a rule, the diff, two footer
// lines.
func (m *Model) treeHeight() int {
	return max(3, min(len(m.rows), (m.height-5)*2/5))
}

func (m *Model) diffHeight() int {
	return max(1, m.height-5-m.treeHeight())
}

// diffLines is the diff of the item under the cursor: one hunk, or every
// hunk of a file.
func (m *Model) diffLines() []string {
	if len(m.rows) == 0 {
		return nil
	}
	r := m.rows[m.cursor]
	f := m.in.Files[r.file]
	var out []string
	for hi, h := range f.Hunks {
		if r.hunk >= 0 && hi != r.hunk {
			continue
		}
		out = append(out, "\x00"+h.Title)
		out = append(out, h.Lines...)
	}
	return out
}

// keysLine is the footer: every key, in 80 columns.
const keysLine = "↑↓ move · space toggle · c comment · C on all · a apply · d discard · q quit"

// View implements tea.Model.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	return v
}

// Render is the screen as text: at most height lines, each at most width
// cells.
func (m *Model) Render() string {
	var lines []string
	put := func(st lipgloss.Style, s string) {
		lines = append(lines, st.Render(ansi.Truncate(s, m.width, "…")))
	}
	put(m.st.title, fmt.Sprintf("review proposal %s · %s", short(m.in.ID), preview.Escape(firstLine(m.in.Goal))))
	status := fmt.Sprintf("kept %d of %d hunks · %d %s", m.kept(), m.total(), len(m.comments), plural(len(m.comments), "comment", "comments"))
	if c, ok := m.comments[""]; ok {
		status += " · on the proposal: " + preview.Escape(c)
	}
	put(m.st.dim, status)
	h := m.treeHeight()
	for i := m.top; i < m.top+h; i++ {
		if i >= len(m.rows) {
			lines = append(lines, "")
			continue
		}
		put(m.rowStyle(i), m.rowText(i))
	}
	put(m.st.dim, "── "+preview.Escape(m.target())+" "+strings.Repeat("─", m.width))
	dl := m.diffLines()
	for i := 0; i < m.diffHeight(); i++ {
		k := m.scroll + i
		if k >= len(dl) {
			lines = append(lines, "")
			continue
		}
		l := dl[k]
		switch {
		case strings.HasPrefix(l, "\x00"):
			put(m.st.header, preview.Escape(l[1:]))
		case strings.HasPrefix(l, "+"):
			put(m.st.add, preview.Escape(strings.TrimSuffix(l, "\n")))
		case strings.HasPrefix(l, "-"):
			put(m.st.del, preview.Escape(strings.TrimSuffix(l, "\n")))
		default:
			put(lipgloss.NewStyle(), preview.Escape(strings.TrimSuffix(l, "\n")))
		}
	}
	switch m.mode {
	case commenting:
		put(lipgloss.NewStyle(), "comment on "+onName(m.editOn)+" (enter keeps it, esc leaves it):")
		put(lipgloss.NewStyle(), "> "+preview.Escape(string(m.edit))+"_")
	case confirming:
		put(m.st.title, fmt.Sprintf("discard proposal %s, keeping your comments for the model? y discards, any other key goes back", short(m.in.ID)))
		put(lipgloss.NewStyle(), "")
	default:
		put(m.st.dim, keysLine)
		put(lipgloss.NewStyle(), m.message)
	}
	return strings.Join(lines, "\n")
}

func (m *Model) total() int {
	n := 0
	for _, f := range m.in.Files {
		n += len(f.Hunks)
	}
	return n
}

func (m *Model) rowStyle(i int) lipgloss.Style {
	if i == m.cursor {
		return m.st.cursor
	}
	if m.rows[i].hunk < 0 {
		return m.st.file
	}
	return lipgloss.NewStyle()
}

func (m *Model) rowText(i int) string {
	r := m.rows[i]
	f := m.in.Files[r.file]
	mark := "  "
	if i == m.cursor {
		mark = "> "
	}
	if r.hunk < 0 {
		n := 0
		for _, on := range m.on[r.file] {
			if on {
				n++
			}
		}
		box := "[x]"
		switch {
		case n == 0:
			box = "[ ]"
		case n < len(f.Hunks):
			box = "[~]"
		}
		name := preview.Escape(f.Path)
		if f.From != "" {
			name = preview.Escape(f.From) + " → " + name
		}
		note := ""
		if _, ok := m.comments[f.Path]; ok {
			note = "  (comment)"
		}
		return fmt.Sprintf("%s%s %-6s %s  %d of %d %s%s", mark, box, f.Kind, name, n, len(f.Hunks), plural(len(f.Hunks), "hunk", "hunks"), note)
	}
	h := f.Hunks[r.hunk]
	box := "[ ]"
	if m.on[r.file][r.hunk] {
		box = "[x]"
	}
	note := ""
	if _, ok := m.comments[fmt.Sprintf("%s:%d", f.Path, h.N)]; ok {
		note = "  (comment)"
	}
	return fmt.Sprintf("%s    %s hunk %d  %s%s", mark, box, h.N, preview.Escape(h.Title), note)
}

func short(id string) string { return doorwords.Short(id) }

func firstLine(s string) string { return doorwords.FirstLine(s) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
