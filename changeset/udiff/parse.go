package udiff

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// Format is the Draft.Format of a unified diff.
const Format = "diff"

// MaxInput is the default limit on the size of a diff, in bytes.
const MaxInput = 16 << 20

// Parse reads a diff of at most MaxInput bytes. See ParseLimit.
func Parse(input []byte) (*changeset.Draft, error) {
	return ParseLimit(input, MaxInput)
}

// ParseLimit reads a unified diff and returns one intent per file section,
// in input order. A limit <= 0 means MaxInput. A diff without any file
// section yields a draft with no intents and no error.
func ParseLimit(input []byte, limit int) (*changeset.Draft, error) {
	if limit <= 0 {
		limit = MaxInput
	}
	if len(input) > limit {
		return nil, refusal.New(refusal.TooLarge, "split the proposal or pass --max-input",
			"the diff is %s, over the limit of %s", size(len(input)), size(limit))
	}
	// The hunks keep slices of the input: own a copy, so that an Edit
	// applied later gives the same bytes whatever the caller does with
	// its buffer.
	p := &parser{lines: splitLines(bytes.Clone(input))}
	d := &changeset.Draft{Format: Format}
	for p.i < len(p.lines) {
		t := p.header(p.i)
		switch {
		case strings.HasPrefix(t, "diff --git "):
			in, err := p.gitSection()
			if err != nil {
				return nil, err
			}
			d.Intents = append(d.Intents, in)
		case strings.HasPrefix(t, "diff --cc ") || strings.HasPrefix(t, "diff --combined "):
			return nil, refuse(refusal.Unsupported, p.i+1, "diff a single parent: git diff A B, not a merge's combined diff",
				"a combined diff of a merge cannot be applied")
		case p.isPlainHeader(p.i):
			in, err := p.plainSection()
			if err != nil {
				return nil, err
			}
			d.Intents = append(d.Intents, in)
		case strings.HasPrefix(t, "@@ -"):
			return nil, refuse(refusal.Invalid, p.i+1, "start each file with its --- and +++ lines",
				"this hunk belongs to no file: no --- and +++ lines come before it")
		case strings.HasPrefix(t, "Binary files ") && strings.HasSuffix(t, " differ"):
			return nil, refuse(refusal.Unsupported, p.i+1, binaryHint, "a binary file changes here (%s), and nika proposes text only", t)
		default:
			p.i++ // prose
		}
	}
	return d, nil
}

const binaryHint = "commit binary files by hand, outside the proposal"

type parser struct {
	lines [][]byte // each with its "\n", the last one perhaps without
	i     int      // the next line to read, 0-based
}

// header is line i as a header: without its line ending and a "\r".
func (p *parser) header(i int) string {
	if i >= len(p.lines) {
		return ""
	}
	l := bytes.TrimSuffix(p.lines[i], []byte("\n"))
	return string(bytes.TrimSuffix(l, []byte("\r")))
}

func (p *parser) isPlainHeader(i int) bool {
	return strings.HasPrefix(p.header(i), "--- ") && strings.HasPrefix(p.header(i+1), "+++ ")
}

// section is what a file section's headers say.
type section struct {
	line             int    // 1-based line where the section starts
	oldName, newName string // from ---/+++, after prefix stripping; "" if absent
	devNullOld       bool   // --- /dev/null
	devNullNew       bool   // +++ /dev/null
	hdrOld, hdrNew   string // from the diff --git header
	renameFrom       string
	renameTo         string
	rename           bool
	isNew, isDelete  bool
	newMode          string // from new file mode
	oldMode, chMode  string // from old mode / new mode
	indexOld         string // abbreviated old blob id from the index line
	hunks            []*hunk
}

func (p *parser) gitSection() (changeset.Intent, error) {
	s := &section{line: p.i + 1}
	rest := strings.TrimPrefix(p.header(p.i), "diff --git ")
	// A header git cannot split either (a rename between names with
	// spaces, or without prefixes) leaves the names to the lines below.
	a, b, noPrefix, headerErr := gitHeaderNames(rest)
	s.hdrOld, s.hdrNew = a, b
	p.i++
	for p.i < len(p.lines) {
		t := p.header(p.i)
		line := p.i + 1
		// quotedArg reads the name after the first of prefixes that t has.
		quotedArg := func(prefixes ...string) (string, error) {
			for _, prefix := range prefixes {
				if rest, ok := strings.CutPrefix(t, prefix); ok {
					v, err := unquoteName(rest)
					if err != nil {
						return "", refuse(refusal.Invalid, line, "quote names as git does", "the %q line %v", strings.TrimSpace(prefix), err)
					}
					return v, nil
				}
			}
			return "", nil
		}
		switch {
		case strings.HasPrefix(t, "old mode "):
			s.oldMode = strings.TrimPrefix(t, "old mode ")
		case strings.HasPrefix(t, "new mode "):
			s.chMode = strings.TrimPrefix(t, "new mode ")
		case strings.HasPrefix(t, "deleted file mode "):
			s.isDelete = true
		case strings.HasPrefix(t, "new file mode "):
			s.isNew = true
			s.newMode = strings.TrimPrefix(t, "new file mode ")
		case strings.HasPrefix(t, "rename from "), strings.HasPrefix(t, "rename old "):
			v, err := quotedArg("rename from ", "rename old ")
			if err != nil {
				return changeset.Intent{}, err
			}
			s.rename, s.renameFrom = true, v
		case strings.HasPrefix(t, "rename to "), strings.HasPrefix(t, "rename new "):
			v, err := quotedArg("rename to ", "rename new ")
			if err != nil {
				return changeset.Intent{}, err
			}
			s.rename, s.renameTo = true, v
		case strings.HasPrefix(t, "copy from "), strings.HasPrefix(t, "copy to "):
			return changeset.Intent{}, refuse(refusal.Unsupported, line, "propose the copy as a new file with its whole content",
				"the diff copies a file, and nika cannot stage a copy from a diff")
		case strings.HasPrefix(t, "similarity index "), strings.HasPrefix(t, "dissimilarity index "):
		case strings.HasPrefix(t, "index "):
			v := strings.TrimPrefix(t, "index ")
			if i := strings.IndexByte(v, ' '); i >= 0 {
				v = v[:i]
			}
			s.indexOld, _, _ = strings.Cut(v, "..")
		case t == "GIT binary patch" || (strings.HasPrefix(t, "Binary files ") && strings.HasSuffix(t, " differ")):
			return changeset.Intent{}, refuse(refusal.Unsupported, line, binaryHint,
				"%s is a binary patch, and nika proposes text only", show(firstNonEmpty(b, a)))
		case p.isPlainHeader(p.i):
			if err := p.names(s, true, !noPrefix); err != nil {
				return changeset.Intent{}, err
			}
			if err := p.hunks(s); err != nil {
				return changeset.Intent{}, err
			}
			return s.intent(headerErr)
		default:
			return s.intent(headerErr)
		}
		p.i++
	}
	return s.intent(headerErr)
}

func (p *parser) plainSection() (changeset.Intent, error) {
	s := &section{line: p.i + 1}
	if err := p.names(s, false, false); err != nil {
		return changeset.Intent{}, err
	}
	if err := p.hunks(s); err != nil {
		return changeset.Intent{}, err
	}
	if len(s.hunks) == 0 {
		return changeset.Intent{}, refuse(refusal.Invalid, s.line, "follow the --- and +++ lines with @@ hunks",
			"the file %s has --- and +++ lines but no hunk", show(firstNonEmpty(s.newName, s.oldName)))
	}
	return s.intent(nil)
}

// names reads the --- and +++ lines at p.i. In a git section (git true) each
// name loses its first component when strip is true; in diff -u output the
// prefixes are guessed (see the package doc).
func (p *parser) names(s *section, git, strip bool) error {
	oldRaw, oldEpoch, err := fileName(strings.TrimPrefix(p.header(p.i), "--- "))
	if err != nil {
		return refuse(refusal.Invalid, p.i+1, "quote names as git does", "the --- line %v", err)
	}
	newRaw, newEpoch, err := fileName(strings.TrimPrefix(p.header(p.i+1), "+++ "))
	if err != nil {
		return refuse(refusal.Invalid, p.i+2, "quote names as git does", "the +++ line %v", err)
	}
	p.i += 2
	s.devNullOld = oldRaw == "/dev/null" || (!git && oldEpoch)
	s.devNullNew = newRaw == "/dev/null" || (!git && newEpoch)
	switch {
	case git && strip:
		s.oldName, s.newName = stripOne(oldRaw), stripOne(newRaw)
	case git:
		s.oldName, s.newName = oldRaw, newRaw
	case oldRaw == "/dev/null":
		s.newName = stripPrefix(newRaw, "b/")
	case newRaw == "/dev/null":
		s.oldName = stripPrefix(oldRaw, "a/")
	case strings.HasPrefix(oldRaw, "a/") && strings.HasPrefix(newRaw, "b/"):
		s.oldName, s.newName = oldRaw[2:], newRaw[2:]
	case oldRaw != newRaw && strings.Contains(oldRaw, "/") && stripOne(oldRaw) == stripOne(newRaw):
		s.oldName, s.newName = stripOne(oldRaw), stripOne(newRaw)
	case s.devNullNew:
		s.oldName, s.newName = oldRaw, oldRaw
	default:
		s.oldName, s.newName = newRaw, newRaw
	}
	if oldRaw == "/dev/null" {
		s.oldName = ""
	}
	if newRaw == "/dev/null" {
		s.newName = ""
	}
	if s.devNullOld && s.devNullNew {
		return refuse(refusal.Invalid, p.i, "name the file on the --- or the +++ line", "both the --- and the +++ line name no file")
	}
	return nil
}

// hunks reads the hunks of a section, starting at p.i.
func (p *parser) hunks(s *section) error {
	name := show(firstNonEmpty(s.newName, s.oldName, s.hdrNew))
	for strings.HasPrefix(p.header(p.i), "@@ ") {
		h, err := p.hunk(len(s.hunks)+1, name)
		if err != nil {
			return err
		}
		if n := len(s.hunks); n > 0 {
			prev := s.hunks[n-1]
			if prev.noNewlineAtEnd() {
				return refuse(refusal.Invalid, prev.end, "keep the \\ No newline marker for the last line of the file",
					"hunk %d of %s marks a line without newline, but hunk %d follows it", prev.n, name, h.n)
			}
			if h.start() < prev.start()+len(prev.old) {
				return refuse(refusal.Invalid, h.line, "list hunks in file order without overlap",
					"hunk %d of %s starts at line %d, inside or before hunk %d (lines %d to %d)",
					h.n, name, h.oldStart, prev.n, prev.oldStart, prev.oldStart+prev.oldCount-1)
			}
		}
		s.hunks = append(s.hunks, h)
	}
	return nil
}

// intent turns a parsed section into its intent, refusing what nika does
// not carry.
func (s *section) intent(headerErr error) (changeset.Intent, error) {
	oldPath := firstNonEmpty(s.renameFrom, s.oldName, s.hdrOld)
	newPath := firstNonEmpty(s.renameTo, s.newName, s.hdrNew)
	if headerErr != nil && (oldPath == "" || newPath == "") {
		return changeset.Intent{}, refuse(refusal.Invalid, s.line, "write the header as diff --git a/<path> b/<path>", "the diff --git header %v", headerErr)
	}
	isNew := s.isNew || s.devNullOld
	isDelete := s.isDelete || s.devNullNew
	if (newPath == "" && !isDelete) || (oldPath == "" && !isNew) {
		return changeset.Intent{}, refuse(refusal.Invalid, s.line, "name the file on the --- and +++ lines", "the section names no file")
	}
	name := show(firstNonEmpty(newPath, oldPath))
	switch {
	case s.oldMode != "" && s.chMode != "" && s.oldMode != s.chMode:
		return changeset.Intent{}, refuse(refusal.Unsupported, s.line, "change the mode by hand with git update-index --chmod, outside the proposal",
			"the diff changes the mode of %s from %s to %s, and nika does not change file modes", name, s.oldMode, s.chMode)
	case isNew && s.newMode != "" && s.newMode != "100644":
		return changeset.Intent{}, refuse(refusal.Unsupported, s.line, "propose it as a regular file (mode 100644)",
			"the diff creates %s with mode %s, and nika creates regular files only", name, s.newMode)
	case isNew && isDelete:
		return changeset.Intent{}, refuse(refusal.Invalid, s.line, "a section either creates or deletes its file", "the diff both creates and deletes %s", name)
	case isNew:
		for _, h := range s.hunks {
			if len(h.old) > 0 {
				return changeset.Intent{}, refuse(refusal.Invalid, h.line, "a new file's hunk holds only + lines, at @@ -0,0",
					"hunk %d of %s removes or keeps lines of a file that does not exist yet", h.n, name)
			}
		}
		content, err := applyHunks(nil, s.hunks, name)
		if err != nil {
			return changeset.Intent{}, err
		}
		return changeset.Intent{Op: changeset.OpAdd, Path: newPath, Content: content, Line: s.line}, nil
	case isDelete:
		del := &deletion{name: name, line: s.line}
		for _, h := range s.hunks {
			if len(h.new) > 0 {
				return changeset.Intent{}, refuse(refusal.Invalid, h.line, "a deleted file's hunk holds only - lines, at +0,0",
					"hunk %d of %s keeps or adds lines to a file it deletes", h.n, name)
			}
			for _, l := range h.old {
				del.old = append(del.old, l...)
			}
			del.lines += len(h.old)
		}
		if len(s.hunks) > 0 {
			del.whole = true
		} else if isBlobID(s.indexOld) {
			del.blob = s.indexOld
		}
		in := changeset.Intent{Op: changeset.OpDelete, Path: oldPath, Line: s.line}
		if del.whole || del.blob != "" {
			in.Edit = del
		}
		return in, nil
	case s.rename:
		if s.renameFrom == "" || s.renameTo == "" {
			return changeset.Intent{}, refuse(refusal.Invalid, s.line, "give both rename from and rename to", "the rename of %s names only one side", name)
		}
		in := changeset.Intent{Op: changeset.OpMove, Path: s.renameFrom, To: s.renameTo, Line: s.line}
		if len(s.hunks) > 0 {
			in.Edit = &edit{name: name, hunks: s.hunks}
		}
		return in, nil
	case len(s.hunks) == 0:
		return changeset.Intent{}, refuse(refusal.Invalid, s.line, "give the file's hunks, or drop the section",
			"the section for %s changes nothing", name)
	}
	if oldPath != newPath {
		return changeset.Intent{}, refuse(refusal.Invalid, s.line, "rename with rename from and rename to lines",
			"the section names %s and %s but is not a rename", show(oldPath), show(newPath))
	}
	return changeset.Intent{Op: changeset.OpEdit, Path: newPath, Edit: &edit{name: name, hunks: s.hunks}, Line: s.line}, nil
}

// fileName reads the name of a ---/+++ line: a quoted name, or everything up
// to the first tab (a timestamp follows it in diff -u output, and git ends a
// name that holds a space with a tab). epoch reports a diff -N timestamp at
// the epoch, which stands for an absent file.
func fileName(s string) (name string, epoch bool, err error) {
	if strings.HasPrefix(s, `"`) {
		name, rest, err := cUnquote(s)
		if err != nil {
			return "", false, err
		}
		return name, isEpoch(strings.TrimLeft(rest, " \t")), nil
	}
	name, ts, _ := strings.Cut(s, "\t")
	return name, isEpoch(ts), nil
}

func isEpoch(ts string) bool {
	return strings.HasPrefix(ts, "1970-01-01 00:00:00") || strings.HasPrefix(ts, "1969-12-31 ") ||
		strings.HasPrefix(ts, "Thu Jan  1 00:00:00 1970")
}

// unquoteName reads a name that may be quoted, with nothing after it.
func unquoteName(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	name, rest, err := cUnquote(s)
	if err != nil {
		return "", err
	}
	if rest != "" {
		return "", fmt.Errorf("has text after its quoted name")
	}
	return name, nil
}

// gitHeaderNames splits the names of a "diff --git" header. noPrefix
// reports a header whose two names are equal, as --no-prefix writes them.
func gitHeaderNames(s string) (a, b string, noPrefix bool, err error) {
	if strings.HasPrefix(s, `"`) {
		a, rest, err := cUnquote(s)
		if err != nil {
			return "", "", false, err
		}
		rest, ok := strings.CutPrefix(rest, " ")
		if !ok {
			return "", "", false, fmt.Errorf("has no second name")
		}
		if b, err = unquoteName(rest); err != nil {
			return "", "", false, err
		}
		return headerPair(a, b)
	}
	if i := strings.Index(s, ` "`); i >= 0 && strings.HasSuffix(s, `"`) {
		if b, err := unquoteName(s[i+1:]); err == nil {
			return headerPair(s[:i], b)
		}
	}
	// Unquoted: find the space where both names agree once the prefixes
	// are gone, as git does.
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && (s[:i] == s[i+1:] || (strings.Contains(s[:i], "/") && stripOne(s[:i]) == stripOne(s[i+1:]))) {
			return headerPair(s[:i], s[i+1:])
		}
	}
	if i := strings.Index(s, " b/"); i >= 0 && strings.HasPrefix(s, "a/") {
		return headerPair(s[:i], s[i+1:])
	}
	return "", "", false, fmt.Errorf("has no two names")
}

func headerPair(a, b string) (string, string, bool, error) {
	if a == b {
		return a, b, true, nil
	}
	return stripOne(a), stripOne(b), false, nil
}

// stripOne drops the first component of a name (git apply -p1).
func stripOne(s string) string {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func stripPrefix(s, prefix string) string {
	if t, ok := strings.CutPrefix(s, prefix); ok && t != "" {
		return t
	}
	return s
}

// cUnquote decodes git's C-style quoted name at the start of s and returns
// the rest of s after the closing quote.
func cUnquote(s string) (string, string, error) {
	var b []byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return string(b), s[i+1:], nil
		case '\\':
			i++
			if i >= len(s) {
				return "", "", fmt.Errorf("has an unclosed quote")
			}
			switch e := s[i]; e {
			case 'a':
				b = append(b, '\a')
			case 'b':
				b = append(b, '\b')
			case 't':
				b = append(b, '\t')
			case 'n':
				b = append(b, '\n')
			case 'v':
				b = append(b, '\v')
			case 'f':
				b = append(b, '\f')
			case 'r':
				b = append(b, '\r')
			case '"', '\\':
				b = append(b, e)
			case '0', '1', '2', '3':
				if i+2 >= len(s) || !isOctal(s[i+1]) || !isOctal(s[i+2]) {
					return "", "", fmt.Errorf("has a bad octal escape")
				}
				v, _ := strconv.ParseUint(s[i:i+3], 8, 8)
				b = append(b, byte(v))
				i += 2
			default:
				return "", "", fmt.Errorf("has an unknown escape \\%c", e)
			}
		default:
			b = append(b, c)
		}
	}
	return "", "", fmt.Errorf("has an unclosed quote")
}

// isBlobID reports an abbreviated object id that can witness bytes: 4 to 64
// hex digits, not git's all-zero "no object".
func isBlobID(s string) bool {
	if len(s) < 4 || len(s) > 64 || strings.Trim(s, "0") == "" {
		return false
	}
	return strings.Trim(strings.ToLower(s), "0123456789abcdef") == ""
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// show renders a path for an error text: as is when it is plain, quoted
// otherwise.
func show(p string) string {
	q := changeset.Quote(p)
	if q == `"`+p+`"` && p != "" && !strings.ContainsAny(p, " \t") {
		return p
	}
	return q
}

func refuse(class refusal.Class, line int, hint, format string, args ...any) *refusal.Error {
	return refusal.New(class, hint, "%s line %d: %s", Format, line, fmt.Sprintf(format, args...))
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
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
