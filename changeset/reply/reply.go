package reply

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// Format is the Draft.Format of a reply.
const Format = "reply"

// MaxInput is the default limit on the size of a reply, in bytes.
const MaxInput = 16 << 20

// Block is one fenced code block of a reply, as CommonMark reads it.
type Block struct {
	Line    int    // 1-based line of the opening fence
	Fence   string // the opening fence's run, e.g. "```" or "~~~~"
	Info    string // the info string after the fence, without surrounding spaces
	Content []byte // the lines between the fences, indentation stripped, each with its line ending (an unclosed block's last line may lack one)
	Closed  bool   // false when the input ended before a closing fence
}

// Lang is the first word of the info string ("yaml" in "yaml path=x"), or
// "" when there is none.
func (b Block) Lang() string {
	f := strings.Fields(b.Info)
	if len(f) == 0 || strings.Contains(f[0], "=") {
		return ""
	}
	return f[0]
}

// ParseLimit reads a reply and returns one OpWrite intent for each fenced
// block that names a path, in input order. A limit <= 0 means MaxInput. A
// reply without such a block yields a draft with no intents and no error.
func ParseLimit(input []byte, limit int) (*changeset.Draft, error) {
	blocks, err := BlocksLimit(input, limit)
	if err != nil {
		return nil, err
	}
	d := &changeset.Draft{Format: Format}
	for _, b := range blocks {
		in, ok, err := intentOf(b)
		if err != nil {
			return nil, err
		}
		if ok {
			d.Intents = append(d.Intents, in)
		}
	}
	return d, nil
}

// BlocksLimit lists every fenced block of input. An unclosed block runs to
// the end of the input and is listed with Closed false. A limit <= 0 means
// MaxInput. The only error is TooLarge.
func BlocksLimit(input []byte, limit int) ([]Block, error) {
	if err := checkSize(input, limit); err != nil {
		return nil, err
	}
	lines := splitLines(input)
	var blocks []Block
	for i := 0; i < len(lines); i++ {
		f, ok := openingFence(lines[i])
		if !ok {
			continue
		}
		b := Block{Line: i + 1, Fence: strings.Repeat(string(f.char), f.n), Info: f.info, Content: []byte{}}
		for i++; i < len(lines); i++ {
			if isClosingFence(lines[i], f) {
				b.Closed = true
				break
			}
			b.Content = append(b.Content, stripIndent(lines[i], f.indent)...)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

func checkSize(input []byte, limit int) error {
	if limit <= 0 {
		limit = MaxInput
	}
	if len(input) > limit {
		return &refusal.Error{Class: refusal.TooLarge, Hint: "split the input, or raise the input limit",
			Fix: refusal.RaiseInputLimit, Subject: strconv.Itoa(limit),
			Text: fmt.Sprintf("the reply is %s, over the limit of %s", size(len(input)), size(limit))}
	}
	return nil
}

// size renders a byte count for a human: exact bytes, and MiB when large.
func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// intentOf reads the path a block names, if any.
func intentOf(b Block) (changeset.Intent, bool, error) {
	infoPath, hasInfo, err := infoPath(b.Info, b.Line)
	if err != nil {
		return changeset.Intent{}, false, err
	}
	content := b.Content
	markPath, hasMark, rest, err := markerPath(content, b.Line+1)
	if err != nil {
		return changeset.Intent{}, false, err
	}
	var p string
	switch {
	case hasInfo && hasMark && infoPath != markPath:
		return changeset.Intent{}, false, refuse(b.Line+1, "name one path per block, in the info string or on the first line",
			"the block names two paths, %s in its info string and %s on its first line",
			changeset.Quote(infoPath), changeset.Quote(markPath))
	case hasInfo:
		p = infoPath
	case hasMark:
		p = markPath
	default:
		return changeset.Intent{}, false, nil
	}
	if hasMark {
		content = rest
	}
	if !b.Closed {
		return changeset.Intent{}, false, refuse(b.Line, "end the block with a line of "+b.Fence+" (a fence at least as long as the one that opened it)",
			"the block for %s opened here is never closed", changeset.Quote(p))
	}
	if kind := patchKind(b.Lang(), content); kind != "" && !isPatchFile(p) {
		return changeset.Intent{}, false, refuse(b.Line, "give the whole new file in the block, or send the "+kind+" on its own, without a path",
			"the block for %s holds %s, not the file's content", changeset.Quote(p), kind)
	}
	return changeset.Intent{Op: changeset.OpWrite, Path: p, Content: content, Line: b.Line}, true, nil
}

// patchKind names the other format a block's content is written in, if
// any: writing a diff over a file as its content is never what was meant.
func patchKind(lang string, content []byte) string {
	switch {
	case lang == "diff" || lang == "patch" || lang == "udiff":
		return "a diff"
	case bytes.HasPrefix(content, []byte("*** Begin Patch")):
		return "an apply_patch payload"
	case heredocPatch(content):
		return "an apply_patch payload"
	case bytes.HasPrefix(content, []byte("diff --git ")):
		return "a diff"
	}
	return ""
}

// heredocPatch reports content that opens a heredoc (`<<'EOF'`,
// `cd DIR && apply_patch <<EOF`) whose first line is "*** Begin Patch".
func heredocPatch(content []byte) bool {
	first, rest, _ := bytes.Cut(content, []byte("\n"))
	second, _, _ := bytes.Cut(rest, []byte("\n"))
	return bytes.Contains(first, []byte("<<")) && string(bytes.TrimSpace(second)) == "*** Begin Patch"
}

// isPatchFile reports a path whose content may well be a diff.
func isPatchFile(p string) bool {
	return strings.HasSuffix(p, ".diff") || strings.HasSuffix(p, ".patch")
}

func refuse(line int, hint, format string, args ...any) *refusal.Error {
	return refusal.New(refusal.Invalid, hint, "%s line %d: %s", Format, line, fmt.Sprintf(format, args...))
}

// infoPath finds a path=<p> attribute in an info string.
func infoPath(info string, line int) (string, bool, error) {
	var found []string
	for _, w := range words(info) {
		v, ok := strings.CutPrefix(w, "path=")
		if !ok {
			continue
		}
		p, err := unquote(v)
		if err != nil {
			return "", false, refuse(line, `close the quote, like path="a b.txt"`, "the block's path= has %v", err)
		}
		if err := checkPath(p, "the block's path=", line); err != nil {
			return "", false, err
		}
		found = append(found, p)
	}
	if len(found) == 0 {
		return "", false, nil
	}
	for _, p := range found[1:] {
		if p != found[0] {
			return "", false, refuse(line, "name one path per block", "the block names two paths, %s and %s",
				changeset.Quote(found[0]), changeset.Quote(p))
		}
	}
	return found[0], true, nil
}

// markerPath reads a first line "# path: <p>" of a block's content and
// returns the path and the content after that line.
func markerPath(content []byte, line int) (p string, ok bool, rest []byte, err error) {
	first, rest, _ := bytes.Cut(content, []byte("\n"))
	s := strings.TrimRight(string(first), " \t\r")
	s, ok = strings.CutPrefix(s, "#")
	if !ok {
		return "", false, nil, nil
	}
	s, ok = strings.CutPrefix(strings.TrimLeft(s, " \t"), "path:")
	if !ok {
		return "", false, nil, nil
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		if s, err = unquote(s); err != nil {
			return "", false, nil, refuse(line, `close the quote, like # path: "a b.txt"`, "the block's # path: line has %v", err)
		}
	}
	if err := checkPath(s, "the block's # path: line", line); err != nil {
		return "", false, nil, err
	}
	if rest == nil {
		rest = []byte{}
	}
	return s, true, rest, nil
}

// checkPath refuses what only the parser can see in a path: nothing at all,
// or a NUL byte, which no later layer could quote faithfully.
func checkPath(p, where string, line int) error {
	switch {
	case p == "":
		return refuse(line, "write the file's path, like path=daily.nika.yaml", "%s names no path", where)
	case strings.IndexByte(p, 0) >= 0:
		return refuse(line, "name the file with printable characters", "%s names the path %s, which contains a NUL byte", where, changeset.Quote(p))
	}
	return nil
}

// words splits an info string on spaces and tabs, keeping a double-quoted
// run (with its backslash escapes) inside one word.
func words(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			break
		}
		start := i
		quoted := false
		for i < len(s) {
			c := s[i]
			if quoted {
				if c == '\\' && i+1 < len(s) {
					i += 2
					continue
				}
				if c == '"' {
					quoted = false
				}
			} else if c == ' ' || c == '\t' {
				break
			} else if c == '"' {
				quoted = true
			}
			i++
		}
		out = append(out, s[start:i])
	}
	return out
}

// unquote returns v itself, or the text of a double-quoted v with \" and \\
// unescaped (any other backslash stays as it is).
func unquote(v string) (string, error) {
	if !strings.HasPrefix(v, `"`) {
		return v, nil
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v) && (v[i+1] == '"' || v[i+1] == '\\'):
			b.WriteByte(v[i+1])
			i++
		case c == '"':
			if i != len(v)-1 {
				return "", fmt.Errorf("text after its closing quote")
			}
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("an unclosed quote")
}

// splitLines splits input after each "\n"; the last line may lack one.
func splitLines(input []byte) [][]byte {
	var lines [][]byte
	for len(input) > 0 {
		i := bytes.IndexByte(input, '\n')
		if i < 0 {
			lines = append(lines, input)
			break
		}
		lines = append(lines, input[:i+1])
		input = input[i+1:]
	}
	return lines
}

type fence struct {
	indent int  // spaces before the fence
	char   byte // '`' or '~'
	n      int  // length of the run
	info   string
}

// text is a line without its line ending ("\n" or "\r\n").
func text(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

func fenceRun(t []byte) (indent int, c byte, n int, ok bool) {
	for indent < len(t) && t[indent] == ' ' {
		indent++
	}
	if indent > 3 || indent == len(t) || (t[indent] != '`' && t[indent] != '~') {
		return 0, 0, 0, false
	}
	c = t[indent]
	for indent+n < len(t) && t[indent+n] == c {
		n++
	}
	return indent, c, n, n >= 3
}

func openingFence(line []byte) (fence, bool) {
	t := text(line)
	indent, c, n, ok := fenceRun(t)
	if !ok {
		return fence{}, false
	}
	info := t[indent+n:]
	if c == '`' && bytes.IndexByte(info, '`') >= 0 {
		return fence{}, false // inline code, not a fence
	}
	return fence{indent: indent, char: c, n: n, info: strings.Trim(string(info), " \t")}, true
}

func isClosingFence(line []byte, f fence) bool {
	t := text(line)
	indent, c, n, ok := fenceRun(t)
	if !ok || c != f.char || n < f.n {
		return false
	}
	return len(bytes.Trim(t[indent+n:], " \t")) == 0
}

// stripIndent removes up to n leading spaces, as CommonMark does for the
// content of a fence indented by n.
func stripIndent(line []byte, n int) []byte {
	i := 0
	for i < n && i < len(line) && line[i] == ' ' {
		i++
	}
	return line[i:]
}
