package searchreplace

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// Format is the Draft.Format of parsed blocks; the resolver names it in its
// refusals ("search-replace line 7: …").
const Format = "search-replace"

var (
	searchMarker  = regexp.MustCompile(`^<{5,9} SEARCH>?$`)
	dividerMarker = regexp.MustCompile(`^={5,9}$`)
	replaceMarker = regexp.MustCompile(`^>{5,9} REPLACE<?$`)
)

type markerKind int

const (
	noMarker markerKind = iota
	searchLine
	dividerLine
	replaceLine
)

func markerOf(line string) markerKind {
	t := strings.TrimSpace(line)
	if len(t) < 5 {
		return noMarker
	}
	switch {
	case t[0] == '<' && searchMarker.MatchString(t):
		return searchLine
	case t[0] == '=' && dividerMarker.MatchString(t):
		return dividerLine
	case t[0] == '>' && replaceMarker.MatchString(t):
		return replaceLine
	}
	return noMarker
}

// Looks reports whether input holds at least one whole search/replace
// block: a SEARCH marker, then a divider, then a REPLACE marker. It is
// cheap and never fails.
func Looks(input []byte) bool {
	if !bytes.Contains(input, []byte(" SEARCH")) || !bytes.Contains(input, []byte(" REPLACE")) {
		return false
	}
	want := searchLine
	for _, l := range splitLines(input) {
		if markerOf(l) == want {
			if want == replaceLine {
				return true
			}
			want++
		}
	}
	return false
}

// block is one SEARCH/REPLACE pair.
type block struct {
	n       int // 1-based number of the block within its file
	line    int // input line of its SEARCH marker
	search  []string
	replace []string
}

// file gathers the blocks of one path.
type file struct {
	path   string
	line   int // input line where the path is named
	blocks []block
}

// MaxInput is the default limit on the size of an input, in bytes.
const MaxInput = 16 << 20

// ParseLimit reads search/replace blocks into a draft with one intent per
// file: an OpEdit whose Edit applies the file's blocks in order, or an OpAdd
// when the file's first block has an empty SEARCH (the later blocks are
// then applied to the new content here). A limit <= 0 means MaxInput; a
// longer input is refused as TooLarge. Every other refusal is a
// *refusal.Error of class Invalid whose text starts with
// "search-replace line N:".
func ParseLimit(input []byte, limit int) (*changeset.Draft, error) {
	if limit <= 0 {
		limit = MaxInput
	}
	if len(input) > limit {
		return nil, &refusal.Error{Class: refusal.TooLarge, Hint: "split the input, or raise the input limit",
			Fix: refusal.RaiseInputLimit, Subject: strconv.Itoa(limit),
			Text: fmt.Sprintf("the search/replace text is %s, over the limit of %s", size(len(input)), size(limit))}
	}
	lines := splitLines(input)
	var files []*file
	index := map[string]*file{}
	var prev *file
	prevEnd := -1 // the REPLACE line of the previous block, 0-based
	for i := 0; i < len(lines); i++ {
		switch markerOf(lines[i]) {
		case noMarker:
			continue
		case dividerLine:
			continue // a markdown heading underline, or prose
		case replaceLine:
			return nil, refuse(i+1, "start each block with <<<<<<< SEARCH", ">>>>>>> REPLACE without a <<<<<<< SEARCH before it")
		}
		path, pathLine, err := findPath(lines, i, prevEnd, prev != nil)
		if err != nil {
			return nil, err
		}
		f := prev
		if path != "" {
			if f = index[path]; f == nil {
				f = &file{path: path, line: pathLine + 1}
				index[path] = f
				files = append(files, f)
			}
		}
		b, end, err := readBlock(lines, i)
		if err != nil {
			return nil, err
		}
		b.n = len(f.blocks) + 1
		f.blocks = append(f.blocks, b)
		prev, prevEnd, i = f, end, end
	}
	if len(files) == 0 {
		return nil, refuse(1, "write each change as a path line, then <<<<<<< SEARCH, the lines to find, =======, their replacement and >>>>>>> REPLACE",
			"the input holds no <<<<<<< SEARCH block")
	}
	d := &changeset.Draft{Format: Format}
	for _, f := range files {
		in, err := f.intent()
		if err != nil {
			return nil, err
		}
		d.Intents = append(d.Intents, in)
	}
	return d, nil
}

// readBlock reads the block whose SEARCH marker is at line s and returns
// the index of its REPLACE marker.
func readBlock(lines []string, s int) (block, int, error) {
	b := block{line: s + 1, search: []string{}, replace: []string{}}
	i := s + 1
	for ; i < len(lines) && markerOf(lines[i]) != dividerLine; i++ {
		switch markerOf(lines[i]) {
		case searchLine:
			return b, 0, refuse(i+1, "end the SEARCH text with a line =======", "a <<<<<<< SEARCH inside the SEARCH text of the block at line %d", s+1)
		case replaceLine:
			return b, 0, refuse(i+1, "put ======= between the SEARCH text and its replacement", ">>>>>>> REPLACE before the ======= of the block at line %d", s+1)
		}
		b.search = append(b.search, lines[i])
	}
	if i >= len(lines) {
		return b, 0, refuse(s+1, "end the SEARCH text with a line =======", "the block has no =======")
	}
	for i++; i < len(lines); i++ {
		switch markerOf(lines[i]) {
		case searchLine:
			return b, 0, refuse(s+1, "end the block with a line >>>>>>> REPLACE", "the block has no >>>>>>> REPLACE before the next <<<<<<< SEARCH (line %d)", i+1)
		case replaceLine:
			return b, i, nil
		}
		b.replace = append(b.replace, lines[i])
	}
	return b, 0, refuse(s+1, "end the block with a line >>>>>>> REPLACE", "the block has no >>>>>>> REPLACE")
}

// findPath finds the path of the block whose SEARCH marker is at line s.
// It returns "" when the block shares the previous block's file.
func findPath(lines []string, s, prevEnd int, hasPrev bool) (string, int, error) {
	j := prevBlank(lines, s-1, prevEnd)
	at := s // where the refusal points: the line read in place of a path
	if j > prevEnd {
		at = j
		if isFence(lines[j]) {
			if p, ok := fencePath(lines[j]); ok {
				return p, j, nil
			}
			if k := prevBlank(lines, j-1, prevEnd); k > prevEnd {
				at = k
				if p, ok := pathOf(lines[k]); ok {
					return p, k, nil
				}
				// The name in a fence of its own: ```, the name, ```.
				if isBareFence(lines[k]) && k-2 > prevEnd && isFence(lines[k-2]) {
					if p, ok := pathOf(lines[k-1]); ok {
						return p, k - 1, nil
					}
				}
			}
		} else if p, ok := pathOf(lines[j]); ok {
			return p, j, nil
		}
	}
	// No path: the block continues the previous one's file, if only blank
	// lines, fences and elisions ("...") separate them.
	if hasPrev {
		shared := true
		for k := prevEnd + 1; k < s; k++ {
			if t := strings.TrimSpace(lines[k]); t != "" && !isFence(t) && !isElision(t) {
				shared = false
				break
			}
		}
		if shared {
			return "", 0, nil
		}
	}
	if at == s || isFence(lines[at]) {
		return "", 0, refuse(at+1, "write the file's path alone on the line before the block's fence", "the block at line %d names no file", s+1)
	}
	return "", 0, refuse(at+1, "write the file's path alone on the line before the block's fence",
		"the block at line %d names no file: %s is not a path", s+1, show(lines[at]))
}

// prevBlank returns the last line at or before i (and after floor) that is
// not blank, or floor.
func prevBlank(lines []string, i, floor int) int {
	for ; i > floor && strings.TrimSpace(lines[i]) == ""; i-- {
	}
	return max(i, floor)
}

func isFence(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}

// isBareFence reports a fence with no info string: one that may close a
// block.
func isBareFence(line string) bool {
	return isFence(line) && strings.Trim(strings.TrimSpace(line), "`~") == ""
}

// isElision reports a line that stands for text left out ("...", "…"),
// which models write between the blocks of one file.
func isElision(t string) bool {
	return t != "" && strings.Trim(t, ".…") == "" && (strings.Contains(t, "…") || len(t) >= 3)
}

// fencePath reads a path written on the fence itself ("```src/a.go"): the
// info string names a file when it holds a '.' or a '/' and no space.
func fencePath(line string) (string, bool) {
	t := strings.TrimLeft(strings.TrimSpace(line), "`~")
	if t == "" || strings.ContainsAny(t, " \t") || !strings.ContainsAny(t, "./") {
		return "", false
	}
	return t, true
}

// pathOf reads a line that names a file, dropping markdown decoration:
// `a.go`, **a.go**, ### a.go, a.go:. A path with spaces must be in
// backticks.
func pathOf(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if t == "" || isFence(t) || markerOf(t) != noMarker || isElision(t) {
		return "", false
	}
	t = strings.TrimSpace(strings.TrimLeft(t, "#"))
	t = strings.TrimSuffix(t, ":")
	t = strings.Trim(t, "*")
	t = strings.TrimSuffix(t, ":")
	quoted := false
	if len(t) >= 2 && t[0] == '`' && t[len(t)-1] == '`' {
		t, quoted = t[1:len(t)-1], true
	}
	if t == "" || (!quoted && strings.ContainsAny(t, " \t")) {
		return "", false
	}
	return t, true
}

// intent turns a file's blocks into one intent.
func (f *file) intent() (changeset.Intent, error) {
	for _, b := range f.blocks[1:] {
		if len(b.search) == 0 {
			return changeset.Intent{}, refuse(b.line, "search for the lines the new text follows, and repeat them in REPLACE",
				"block %d of %s has an empty SEARCH, which creates a file, but block 1 already changes it", b.n, changeset.Quote(f.path))
		}
	}
	e := &edit{path: f.path, blocks: f.blocks}
	if len(f.blocks[0].search) > 0 {
		return changeset.Intent{Op: changeset.OpEdit, Path: f.path, Edit: e, Line: f.line}, nil
	}
	// A new file: its content is the first REPLACE, edited by the blocks
	// after it.
	first := f.blocks[0].replace
	lines, err := e.apply(text{lines: first, finalNL: true}, f.blocks[1:])
	if err != nil {
		return changeset.Intent{}, err
	}
	return changeset.Intent{Op: changeset.OpAdd, Path: f.path, Content: lines.bytes(), Line: f.line}, nil
}

// splitLines splits on "\n", drops one "\r" before it (CRLF input), a
// leading byte order mark, and the empty line after a final "\n".
func splitLines(input []byte) []string {
	s := string(bytes.TrimPrefix(input, []byte("\ufeff")))
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// refuse builds an Invalid refusal located at a 1-based input line.
func refuse(line int, hint, format string, args ...any) *refusal.Error {
	return refusal.New(refusal.Invalid, hint, "search-replace line %d: "+format, append([]any{line}, args...)...)
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// show quotes a line of the input for an error text.
func show(line string) string {
	if len(line) > 80 {
		line = line[:77] + "..."
	}
	return changeset.Quote(line)
}
