package applypatch

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// Format is the Draft.Format of a parsed patch; the resolver names it in
// its refusals ("patch line 7: …").
const Format = "patch"

const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File:"
	deleteMarker = "*** Delete File:"
	updateMarker = "*** Update File:"
	moveMarker   = "*** Move to:"
	eofMarker    = "*** End of File"
)

const (
	hintOperation = "start each operation with *** Add File: <path>, *** Delete File: <path> or *** Update File: <path>"
	hintBounds    = "send only the patch, from *** Begin Patch to *** End Patch"
	hintChunkLine = "prefix context lines with a space, removed lines with - and added lines with +"
)

// Looks reports whether input looks like an apply_patch payload: its first
// line that is not blank, a markdown fence or a heredoc opener is
// "*** Begin Patch". It is cheap and never fails.
func Looks(input []byte) bool {
	if !bytes.Contains(input, []byte(beginMarker)) {
		return false
	}
	lines := splitLines(input)
	w := skipOpeners(lines)
	return w.begin < len(lines) && strings.TrimSpace(lines[w.begin]) == beginMarker
}

// MaxInput is the default limit on the size of an input, in bytes.
const MaxInput = 16 << 20

// ParseLimit reads an apply_patch payload into a draft of intents:
//
//	*** Add File: p      → OpAdd, Content = the '+' lines, each ending in "\n"
//	*** Delete File: p   → OpDelete
//	*** Update File: p   → OpEdit with an Edit holding its chunks
//	  *** Move to: q     → OpMove from p to q (with the Edit, if any chunk)
//
// A limit <= 0 means MaxInput; a longer input is refused as TooLarge. Every
// other refusal is a *refusal.Error of class Invalid whose text starts
// with "patch line N:", N being the 1-based line of the input.
func ParseLimit(input []byte, limit int) (*changeset.Draft, error) {
	if limit <= 0 {
		limit = MaxInput
	}
	if len(input) > limit {
		return nil, &refusal.Error{Class: refusal.TooLarge, Hint: "split the input, or raise the input limit",
			Fix: refusal.RaiseInputLimit, Subject: strconv.Itoa(limit),
			Text: fmt.Sprintf("the patch is %s, over the limit of %s", size(len(input)), size(limit))}
	}
	lines := splitLines(input)
	w := skipOpeners(lines)
	if w.err != nil {
		return nil, w.err
	}
	begin, end, err := bounds(lines, w)
	if err != nil {
		return nil, err
	}
	p := &parser{lines: lines, i: begin + 1, end: end}
	d := &changeset.Draft{Format: Format}
	for {
		p.skipBlank()
		if p.i >= p.end {
			break
		}
		in, err := p.operation()
		if err != nil {
			return nil, err
		}
		d.Intents = append(d.Intents, in)
	}
	if len(d.Intents) == 0 {
		return nil, refuse(begin+1, "add at least one *** Add File:, *** Delete File: or *** Update File: operation",
			"the patch holds no operation")
	}
	if w.dir != "" {
		// The wrapper's cd: every path is under its directory.
		for i := range d.Intents {
			in := &d.Intents[i]
			in.Dir = w.dir
			in.Path = under(w.dir, in.Path)
			if in.To != "" {
				in.To = under(w.dir, in.To)
			}
		}
	}
	return d, nil
}

// under joins a patch's path under the wrapper's directory. An absolute
// path stays as it is, for the path rule to refuse.
func under(dir, p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return dir + "/" + p
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

// heredocOpener finds `<<EOF`, `<<'EOF'`, `<< "EOF"` or `<<-EOF` in a line.
var heredocOpener = regexp.MustCompile(`<<-?\s*(?:'([A-Za-z_][A-Za-z0-9_]*)'|"([A-Za-z_][A-Za-z0-9_]*)"|([A-Za-z_][A-Za-z0-9_]*))`)

// bareHeredoc is a line that is only a heredoc opener: `<<EOF`, `<<'EOF'`.
var bareHeredoc = regexp.MustCompile(`^<<-?\s*(?:'[A-Za-z_][A-Za-z0-9_]*'|"[A-Za-z_][A-Za-z0-9_]*"|[A-Za-z_][A-Za-z0-9_]*)$`)

func isFence(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}

// wrapper is what surrounds a patch: where it begins, the heredoc's
// delimiter, and the directory a `cd DIR &&` before apply_patch changes
// into.
type wrapper struct {
	begin int    // the first line that is not a wrapper line
	delim string // the heredoc's delimiter, if any
	dir   string // the cd's directory, "" for none
	err   error  // a wrapper that nika cannot follow
}

// skipOpeners skips the wrapper lines a patch may be sent in: blank lines,
// markdown fences, and a heredoc opener, bare (`<<'EOF'`) or feeding
// apply_patch, after one or more `cd DIR &&`.
func skipOpeners(lines []string) wrapper {
	var w wrapper
	for ; w.begin < len(lines); w.begin++ {
		t := strings.TrimSpace(lines[w.begin])
		switch {
		case t == "", isFence(t):
			continue
		case w.delim == "" && bareHeredoc.MatchString(t):
			m := heredocOpener.FindStringSubmatch(t)
			w.delim = m[1] + m[2] + m[3]
			continue
		case w.delim == "" && !strings.Contains(t, beginMarker) && (strings.Contains(t, "apply_patch") || strings.Contains(t, "applypatch")):
			if m := heredocOpener.FindStringSubmatch(t); m != nil {
				w.delim = m[1] + m[2] + m[3]
				dir, err := cdPrefix(t)
				if err != nil && w.err == nil {
					class := refusal.Invalid
					if err.cause != nil {
						class = refusal.ClassOf(err.cause) // the path rule's
					}
					w.err = &refusal.Error{Class: class, Hint: err.hint, Text: fmt.Sprintf("patch line %d: %s", w.begin+1, err.text), Err: err.cause}
				}
				w.dir = dir
				continue
			}
		}
		break
	}
	return w
}

// wrapperError is a wrapper line that nika cannot follow.
type wrapperError struct {
	text, hint string
	cause      error // the path rule's refusal, for its class
}

// cdPrefix reads the `cd DIR &&` (or `cd DIR;`) commands that come before
// apply_patch on its command line, and returns their directory, joined.
// A cd that nika cannot resolve to one directory of the project (a
// variable, a glob, the home directory, a subshell) is refused: ignoring
// it would put the files somewhere else than the command says.
func cdPrefix(line string) (string, *wrapperError) {
	const hint = "give paths from the repository root, or cd into a plain directory of the project: cd DIR && apply_patch <<'EOF'"
	var dirs []string
	rest := strings.TrimSpace(line)
	for {
		word, ok := cutWord(rest, "cd")
		if !ok {
			break
		}
		dir, after, err := shellWord(word)
		if err != "" {
			return "", &wrapperError{text: fmt.Sprintf("the wrapper's cd %s, and nika cannot tell which directory it means", err), hint: hint}
		}
		after = strings.TrimSpace(after)
		switch {
		case strings.HasPrefix(after, "&&"):
			after = after[2:]
		case strings.HasPrefix(after, ";"):
			after = after[1:]
		default:
			return "", &wrapperError{text: fmt.Sprintf("the wrapper's cd %s is not followed by && or ;", show(dir)), hint: hint}
		}
		dirs = append(dirs, dir)
		rest = strings.TrimSpace(after)
	}
	// No other change of directory before the command.
	before := rest
	if i := strings.Index(before, "apply"); i >= 0 {
		before = before[:i]
	}
	for _, f := range strings.FieldsFunc(before, func(r rune) bool { return r == ' ' || r == '\t' || r == '(' || r == ';' || r == '&' || r == '|' }) {
		switch f {
		case "cd", "pushd", "popd", "chdir":
			return "", &wrapperError{text: fmt.Sprintf("the wrapper runs %s in a way nika does not follow: %s", f, show(strings.TrimSpace(line))), hint: hint}
		}
	}
	if len(dirs) == 0 {
		return "", nil
	}
	var parts []string
	for _, d := range dirs {
		for strings.HasPrefix(d, "./") {
			d = strings.TrimLeft(d[2:], "/")
		}
		d = strings.TrimRight(d, "/")
		if d == "" {
			d = "."
		}
		parts = append(parts, d)
	}
	dir := strings.Join(parts, "/")
	if _, err := changeset.ParsePath(dir); err != nil {
		var e *refusal.Error
		text := err.Error()
		if errors.As(err, &e) {
			text = e.Text
		}
		return "", &wrapperError{text: "the wrapper's cd: " + text, hint: hint, cause: err}
	}
	return dir, nil
}

// cutWord returns what follows the command word cmd at the start of s.
func cutWord(s, cmd string) (string, bool) {
	rest, ok := strings.CutPrefix(s, cmd)
	if !ok {
		return "", false
	}
	if rest == "" {
		return "", true
	}
	if rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	return rest, true
}

// shellWord reads one shell word at the start of s, and refuses one whose
// meaning depends on the shell: an expansion, a glob, the home directory,
// an option, or no word at all.
func shellWord(s string) (word, rest, problem string) {
	s = strings.TrimLeft(s, " \t")
	switch {
	case s == "" || strings.HasPrefix(s, "&&") || strings.HasPrefix(s, ";"):
		return "", "", "names no directory (it would go to the home directory)"
	case s[0] == '\'':
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", "has an unclosed quote"
		}
		word, rest = s[1:1+end], s[2+end:]
	case s[0] == '"':
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return "", "", "has an unclosed quote"
		}
		word, rest = s[1:1+end], s[2+end:]
		if strings.ContainsAny(word, "$`\\") {
			return "", "", fmt.Sprintf("names %s, which the shell expands", show(word))
		}
	default:
		end := strings.IndexAny(s, " \t;&|")
		if end < 0 {
			end = len(s)
		}
		word, rest = s[:end], s[end:]
		if strings.ContainsAny(word, "$`\\*?[]{}'\"()<>") || strings.HasPrefix(word, "~") {
			return "", "", fmt.Sprintf("names %s, which the shell expands", show(word))
		}
	}
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != ';' && rest[0] != '&' {
		return "", "", fmt.Sprintf("names %s, which the shell expands", show(word+rest))
	}
	if strings.HasPrefix(word, "-") {
		return "", "", fmt.Sprintf("names %s, which cd reads as an option", show(word))
	}
	if word == "" {
		return "", "", "names no directory"
	}
	return word, rest, ""
}

// bounds finds the "*** Begin Patch" and "*** End Patch" lines, allowing only
// wrapper lines around them: after the patch, blank lines, fences, and the
// heredoc's terminator with the closing of a `"$(cat <<'EOF'` substitution.
func bounds(lines []string, w wrapper) (begin, end int, err error) {
	begin, delim := w.begin, w.delim
	if begin >= len(lines) {
		return 0, 0, refuse(max(1, len(lines)), hintBounds, "the input holds no *** Begin Patch")
	}
	if strings.TrimSpace(lines[begin]) != beginMarker {
		for j := begin + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == beginMarker {
				return 0, 0, refuse(begin+1, hintBounds, "text before *** Begin Patch (at line %d): %s", j+1, show(lines[begin]))
			}
		}
		return 0, 0, refuse(begin+1, hintBounds, "the input does not start with *** Begin Patch: %s", show(lines[begin]))
	}
	end = len(lines) - 1
	for ; end > begin; end-- {
		t := strings.TrimSpace(lines[end])
		if t == "" || isFence(t) || (delim != "" && (t == delim || strings.Trim(t, `)"'`) == "")) {
			continue
		}
		break
	}
	if end > begin && strings.TrimSpace(lines[end]) == endMarker {
		return begin, end, nil
	}
	for j := end - 1; j > begin; j-- {
		if strings.TrimSpace(lines[j]) == endMarker {
			return 0, 0, refuse(j+2, hintBounds, "text after *** End Patch (at line %d): %s", j+1, show(lines[j+1]))
		}
	}
	return 0, 0, refuse(end+1, "end the patch with a line *** End Patch", "the patch has no *** End Patch")
}

type parser struct {
	lines []string
	i     int // the next line to read, 0-based
	end   int // the *** End Patch line, 0-based
}

func (p *parser) skipBlank() {
	for p.i < p.end && strings.TrimSpace(p.lines[p.i]) == "" {
		p.i++
	}
}

// marker reports whether a line is one of the "***" operation markers, with
// whitespace around it; it returns the trimmed line.
func marker(line string) (string, bool) {
	t := strings.TrimSpace(line)
	for _, m := range []string{addMarker, deleteMarker, updateMarker, moveMarker, eofMarker, beginMarker, endMarker} {
		if strings.HasPrefix(t, m) {
			return t, true
		}
	}
	return t, false
}

// isOpStart reports whether a line starts the next operation: a marker
// written at the start of the line (an indented "*** …" line may be context).
func isOpStart(line string) bool {
	return strings.HasPrefix(line, "***")
}

func (p *parser) path(rest string, line int, m string) (string, error) {
	path := strings.TrimSpace(rest)
	if path == "" {
		return "", refuse(line, "write the file's path after "+m, "%s names no path", m)
	}
	return path, nil
}

func (p *parser) operation() (changeset.Intent, error) {
	line := p.i + 1
	t := strings.TrimSpace(p.lines[p.i])
	p.i++
	switch {
	case strings.HasPrefix(t, addMarker):
		path, err := p.path(t[len(addMarker):], line, addMarker)
		if err != nil {
			return changeset.Intent{}, err
		}
		content, err := p.added(path)
		if err != nil {
			return changeset.Intent{}, err
		}
		return changeset.Intent{Op: changeset.OpAdd, Path: path, Content: content, Line: line}, nil
	case strings.HasPrefix(t, deleteMarker):
		path, err := p.path(t[len(deleteMarker):], line, deleteMarker)
		if err != nil {
			return changeset.Intent{}, err
		}
		p.skipBlank()
		if p.i < p.end && !isOpStart(strings.TrimSpace(p.lines[p.i])) {
			return changeset.Intent{}, refuse(p.i+1, "a deletion has no lines; remove them", "unexpected line after the deletion of %s: %s", changeset.Quote(path), show(p.lines[p.i]))
		}
		return changeset.Intent{Op: changeset.OpDelete, Path: path, Line: line}, nil
	case strings.HasPrefix(t, updateMarker):
		return p.update(t[len(updateMarker):], line)
	case strings.HasPrefix(t, moveMarker):
		return changeset.Intent{}, refuse(line, "put *** Move to: right after the *** Update File: line it renames", "*** Move to: follows no *** Update File:")
	case strings.HasPrefix(t, eofMarker):
		return changeset.Intent{}, refuse(line, "put *** End of File right after the last line of a chunk", "*** End of File follows no chunk")
	case strings.HasPrefix(t, beginMarker):
		return changeset.Intent{}, refuse(line, "send one patch at a time", "a second *** Begin Patch inside the patch")
	case strings.HasPrefix(t, endMarker):
		return changeset.Intent{}, refuse(line+1, hintBounds, "text after *** End Patch (at line %d): %s", line, show(p.lines[line]))
	case strings.HasPrefix(t, "***"):
		return changeset.Intent{}, refuse(line, hintOperation, "%s is not an operation", show(t))
	}
	return changeset.Intent{}, refuse(line, hintOperation, "expected an operation, got %s", show(p.lines[line-1]))
}

// added reads the '+' lines of an added file. A blank line between '+' lines
// is taken as an empty line of the file; blank lines after the last one
// separate operations.
func (p *parser) added(path string) ([]byte, error) {
	var b strings.Builder
	for p.i < p.end {
		l := p.lines[p.i]
		switch {
		case strings.HasPrefix(l, "+"):
			b.WriteString(l[1:])
			b.WriteByte('\n')
			p.i++
			continue
		case strings.TrimSpace(l) == "":
			j := p.i
			for j < p.end && strings.TrimSpace(p.lines[j]) == "" {
				j++
			}
			if j < p.end && strings.HasPrefix(p.lines[j], "+") {
				for ; p.i < j; p.i++ {
					b.WriteByte('\n')
				}
				continue
			}
			p.i = j
			return []byte(b.String()), nil
		}
		if _, ok := marker(l); ok {
			return []byte(b.String()), nil
		}
		return nil, refuse(p.i+1, "prefix every line of a new file with +", "a line of the new file %s does not start with +: %s", changeset.Quote(path), show(l))
	}
	return []byte(b.String()), nil
}

// unifiedHeader matches a unified diff hunk header, which models sometimes
// write in place of "@@": its numbers are ignored, its trailing text is the
// context line.
var unifiedHeader = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$`)

func (p *parser) update(rest string, line int) (changeset.Intent, error) {
	path, err := p.path(rest, line, updateMarker)
	if err != nil {
		return changeset.Intent{}, err
	}
	in := changeset.Intent{Op: changeset.OpEdit, Path: path, Line: line}
	p.skipBlank()
	if p.i < p.end {
		if t := strings.TrimSpace(p.lines[p.i]); strings.HasPrefix(t, moveMarker) {
			to, err := p.path(t[len(moveMarker):], p.i+1, moveMarker)
			if err != nil {
				return in, err
			}
			in.Op, in.To = changeset.OpMove, to
			p.i++
		}
	}
	e := &edit{path: path}
	for {
		p.skipBlank()
		if p.i >= p.end {
			break
		}
		// Between chunks, a marker ends the update, even when indented.
		l := p.lines[p.i]
		t, isMarker := marker(l)
		if strings.HasPrefix(t, eofMarker) {
			return in, refuse(p.i+1, "put *** End of File right after the last line of a chunk", "*** End of File follows no chunk of %s", changeset.Quote(path))
		}
		if isMarker || isOpStart(l) {
			break
		}
		c, err := p.chunk(path, len(e.chunks)+1)
		if err != nil {
			return in, err
		}
		e.chunks = append(e.chunks, c)
	}
	if len(e.chunks) == 0 {
		if in.Op == changeset.OpMove {
			return in, nil // a pure rename: the bytes move unchanged
		}
		return in, refuse(line, "add @@ chunks with the lines to change, or drop the update", "the update of %s has no chunk", changeset.Quote(path))
	}
	in.Edit = e
	return in, nil
}

// chunk reads one chunk: its "@@" lines (at least one after the first
// chunk), then ' ', '-' and '+' lines, then an optional "*** End of File".
// Several "@@ <context>" lines in a row narrow the place step by step
// ("@@ class Base" then "@@ def method():").
func (p *parser) chunk(path string, n int) (chunk, error) {
	c := chunk{n: n, line: p.i + 1}
	ats := 0
	for ; p.i < p.end; p.i++ {
		head := strings.TrimRight(p.lines[p.i], " \t")
		if head != "@@" && !strings.HasPrefix(head, "@@ ") && !strings.HasPrefix(head, "@@\t") {
			break
		}
		ats++
		ctx := head[min(len(head), 3):]
		if m := unifiedHeader.FindStringSubmatch(head); m != nil {
			ctx = m[1]
		}
		if strings.TrimSpace(ctx) != "" {
			c.headers = append(c.headers, header{text: ctx, line: p.i + 1})
		}
	}
	if ats == 0 && n > 1 {
		return c, refuse(p.i+1, "start each chunk after the first with @@", "chunk %d of %s does not start with @@: %s", n, changeset.Quote(path), show(p.lines[p.i]))
	}
	trailingBlank := 0
loop:
	for p.i < p.end {
		l := p.lines[p.i]
		if strings.TrimSpace(l) == "" && !strings.HasPrefix(l, " ") {
			c.lines = append(c.lines, pline{kind: ' '})
			trailingBlank++
			p.i++
			continue
		}
		switch l[0] {
		case ' ', '-', '+':
			c.lines = append(c.lines, pline{kind: l[0], text: l[1:]})
			trailingBlank = 0
			p.i++
			continue
		case '@':
			if strings.HasPrefix(l, "@@") {
				break loop
			}
		case '*':
			t := strings.TrimRight(l, " \t")
			if t == eofMarker {
				if len(c.lines) == trailingBlank {
					return c, refuse(p.i+1, "put *** End of File right after the last line of a chunk", "*** End of File ends the empty chunk %d of %s", n, changeset.Quote(path))
				}
				c.eof = true
				p.i++
				break loop
			}
			if isOpStart(t) {
				break loop
			}
		}
		return c, refuse(p.i+1, hintChunkLine, "chunk %d of %s has a line that starts with none of ' ', '-', '+': %s", n, changeset.Quote(path), show(l))
	}
	// Blank lines at the end of a chunk separate it from what follows, unless
	// *** End of File says they are the last lines of the file.
	if !c.eof {
		c.lines = c.lines[:len(c.lines)-trailingBlank]
	}
	if len(c.lines) == 0 {
		return c, refuse(c.line, "give the chunk its context, removed and added lines, or drop it", "chunk %d of %s is empty", n, changeset.Quote(path))
	}
	if c.eof {
		// After *** End of File only another chunk or operation may follow.
		for p.i < p.end && strings.TrimSpace(p.lines[p.i]) == "" {
			p.i++
		}
		if p.i < p.end {
			l := strings.TrimRight(p.lines[p.i], " \t")
			if _, ok := marker(l); !ok && !strings.HasPrefix(l, "@@") {
				return c, refuse(p.i+1, "start a new chunk with @@, or move the line before *** End of File", "line after *** End of File in %s: %s", changeset.Quote(path), show(l))
			}
		}
	}
	return c, nil
}

// refuse builds an Invalid refusal located at a 1-based input line.
func refuse(line int, hint, format string, args ...any) *refusal.Error {
	return refusal.New(refusal.Invalid, hint, "patch line %d: "+format, append([]any{line}, args...)...)
}

// show quotes a line of the input for an error text.
func show(line string) string {
	if len(line) > 80 {
		line = line[:77] + "..."
	}
	return changeset.Quote(line)
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
