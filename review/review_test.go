package review

import (
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// input is a proposal of two files: a.txt with three hunks, and a move of
// old.txt to b.txt, one hunk.
func input() Input {
	return Input{ID: strings.Repeat("ab", 32), Goal: "tidy\nthe body", Branch: "main", Files: []File{
		{Path: "a.txt", Kind: "update", Hunks: []Hunk{
			{N: 1, Title: "@@ -1,3 +1,3 @@", Lines: []string{" x\n", "-y\n", "+Y\n"}},
			{N: 2, Title: "@@ -10,3 +10,3 @@", Lines: []string{"-p\n", "+P\n"}},
			{N: 3, Title: "@@ -20,3 +20,3 @@", Lines: []string{"-q\n", "+Q\n"}},
		}},
		{Path: "b.txt", From: "old.txt", Kind: "move", Hunks: []Hunk{{N: 1, Title: "the whole move", Lines: []string{" (no lines)"}}}},
	}}
}

// key turns a name into the key a terminal would send: a character, or
// up, down, space, enter, esc, bs, pgdn, ctrl+c, ctrl+u.
func key(name string) tea.KeyPressMsg {
	switch name {
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "bs":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "pgdn":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	}
	r := []rune(name)[0]
	return tea.KeyPressMsg{Code: r, Text: name}
}

// play sends each key; "type:TEXT" sends TEXT one character at a time,
// "paste:TEXT" pastes it.
func play(m *Model, keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		switch {
		case strings.HasPrefix(k, "type:"):
			for _, r := range strings.TrimPrefix(k, "type:") {
				_, last = m.Update(key(string(r)))
			}
		case strings.HasPrefix(k, "paste:"):
			_, last = m.Update(tea.PasteMsg{Content: strings.TrimPrefix(k, "paste:")})
		default:
			_, last = m.Update(key(k))
		}
	}
	return last
}

// TestUpdate: the review's state after each sequence of keys.
func TestUpdate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		keys     []string
		cursor   int
		kept     int
		decision Decision
		done     bool
		dropped  []Ref
		comments []Comment
		message  string
	}{
		{name: "nothing pressed", kept: 4},
		{name: "down moves, up stops at the top", keys: []string{"down", "j", "up", "up", "up"}, kept: 4},
		{name: "down stops at the last row", keys: []string{"G", "down", "down"}, cursor: 5, kept: 4},
		{name: "space toggles the hunk under the cursor", keys: []string{"j", "j", "space"}, cursor: 2, kept: 3},
		{name: "a second space turns it back on", keys: []string{"j", "j", "space", "space"}, cursor: 2, kept: 4},
		{name: "a file row toggles every hunk of it", keys: []string{"space"}, kept: 1},
		{name: "a partly kept file turns whole again", keys: []string{"j", "space", "k", "space"}, kept: 4},
		{name: "x toggles too", keys: []string{"G", "x"}, cursor: 5, kept: 3},
		{name: "a builds the part kept, and ends", keys: []string{"j", "j", "space", "a"}, cursor: 2, kept: 3, decision: Build, done: true,
			dropped: []Ref{{"a.txt", 2}}},
		{name: "a with nothing kept does not end", keys: []string{"space", "G", "space", "a"}, cursor: 5, kept: 0,
			message: "nothing is kept: toggle a hunk on with space, or press d to discard"},
		{name: "a comment on a hunk", keys: []string{"j", "c", "type:too risky", "enter"}, cursor: 1, kept: 4,
			message: "comment kept on a.txt:1"},
		{name: "a comment on the proposal, and the move's file", keys: []string{"C", "type:split it", "enter", "G", "k", "c", "type:why move?", "enter", "a"},
			cursor: 4, kept: 4, decision: Build, done: true,
			comments: []Comment{{"", "split it"}, {"b.txt", "why move?"}}},
		{name: "backspace and ctrl+u edit a comment", keys: []string{"C", "type:abx", "bs", "type:c", "enter"}, kept: 4,
			message: "comment kept on the proposal"},
		{name: "esc leaves a comment unchanged", keys: []string{"C", "type:first", "enter", "C", "ctrl+u", "type:second", "esc", "a"}, kept: 4,
			decision: Build, done: true, comments: []Comment{{"", "first"}}},
		{name: "an empty comment removes it", keys: []string{"C", "type:first", "enter", "C", "ctrl+u", "enter", "a"}, kept: 4,
			decision: Build, done: true},
		{name: "a paste goes into a comment, on one line", keys: []string{"C", "paste:two\nlines", "enter", "a"}, kept: 4,
			decision: Build, done: true, comments: []Comment{{"", "two lines"}}},
		{name: "a paste outside a comment does nothing", keys: []string{"paste:a"}, kept: 4,
			message: "a paste does nothing here: press c to write a comment"},
		{name: "keys typed into a comment are text, not commands", keys: []string{"C", "type:a d q", "enter"}, kept: 4,
			message: "comment kept on the proposal"},
		{name: "d asks, y discards", keys: []string{"C", "type:no", "enter", "d", "y"}, kept: 4, decision: Discard, done: true,
			comments: []Comment{{"", "no"}}},
		{name: "d then another key goes back", keys: []string{"d", "n"}, kept: 4, message: "not discarded"},
		{name: "q leaves undecided", keys: []string{"space", "q"}, kept: 1, decision: Left, done: true,
			dropped: []Ref{{"a.txt", 1}, {"a.txt", 2}, {"a.txt", 3}}},
		{name: "ctrl+c leaves, even in a comment", keys: []string{"C", "type:x", "ctrl+c"}, kept: 4, decision: Left, done: true},
		{name: "an unknown key says so", keys: []string{"z"}, kept: 4, message: "that key does nothing here: ? shows the keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(input())
			cmd := play(m, tc.keys...)
			if m.cursor != tc.cursor || m.kept() != tc.kept || m.Done() != tc.done || m.message != tc.message {
				t.Fatalf("cursor %d kept %d done %v message %q; want %d %d %v %q", m.cursor, m.kept(), m.Done(), m.message, tc.cursor, tc.kept, tc.done, tc.message)
			}
			if tc.done {
				if cmd == nil {
					t.Fatal("an ended review must quit the program")
				}
				r := m.Result()
				if r.Decision != tc.decision || !reflect.DeepEqual(r.Dropped, tc.dropped) || !reflect.DeepEqual(r.Comments, tc.comments) || r.Total != 4 || r.Kept != tc.kept {
					t.Fatalf("result %+v; want decision %v dropped %v comments %v", r, tc.decision, tc.dropped, tc.comments)
				}
			}
		})
	}
}

// TestRender: the screen fits 80×24 (and smaller and larger), shows what
// the cursor is on, escapes what came from outside nika, and has no style
// at all without colour.
func TestRender(t *testing.T) {
	in := input()
	in.Goal = "a goal with \x1b[31mred\x1b[0m and a bidi \u202e override"
	in.Files[0].Path = "dir/" + strings.Repeat("long-name-", 12) + "a.txt"
	in.Files[0].Hunks[0].Lines = append(in.Files[0].Hunks[0].Lines, "+\x1b]0;title\x07 set the title\n", "+"+strings.Repeat("w", 200)+"\n")
	for _, size := range [][2]int{{80, 24}, {100, 40}, {40, 12}} {
		m := New(in)
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for _, keys := range [][]string{nil, {"j"}, {"G"}, {"C", "type:a comment \u202e"}, {"d"}} {
			m := *m
			m.comments = map[string]string{}
			play(&m, keys...)
			s := m.Render()
			lines := strings.Split(s, "\n")
			if len(lines) > size[1] {
				t.Errorf("%v after %v: %d lines on a screen of %d", size, keys, len(lines), size[1])
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Errorf("%v after %v: a line of %d cells: %q", size, keys, w, l)
				}
			}
			for _, raw := range []string{"\x1b", "\x07", "\u202e"} {
				if strings.Contains(s, raw) {
					t.Errorf("%v after %v: a raw %q reached the screen", size, keys, raw)
				}
			}
		}
	}
	m := New(in)
	s := m.Render()
	for _, want := range []string{"review proposal abababababab · a goal with \\x1b[31mred", "> [x] update dir/long-name-", "[x] hunk 1  @@ -1,3 +1,3 @@", "move   old.txt → b.txt",
		"kept 4 of 4 hunks · 0 comments", keysLine} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	if ansi.StringWidth(keysLine) > MinWidth {
		t.Errorf("the keys line is %d cells wide", ansi.StringWidth(keysLine))
	}
	in.Color = true
	if c := New(in).Render(); !strings.Contains(c, "\x1b[") {
		t.Error("with colour on, the screen has no style")
	}
}
