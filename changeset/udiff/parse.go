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

// ParseLimit reads a unified diff and returns one intent per file section,
// in input order. A limit <= 0 means MaxInput. An input without any file
// section is refused, as git apply refuses it: an empty diff proposes
// nothing that anyone could review.
func ParseLimit(input []byte, limit int) (*changeset.Draft, error) {
	if limit <= 0 {
		limit = MaxInput
	}
	if len(input) > limit {
		return nil, &refusal.Error{Class: refusal.TooLarge, Hint: "split the input, or raise the input limit",
			Fix: refusal.RaiseInputLimit, Subject: strconv.Itoa(limit),
			Text: fmt.Sprintf("the diff is %s, over the limit of %s", size(len(input)), size(limit))}
	}
	// The hunks keep slices of the input: own a copy, so that an Edit
	// applied later gives the same bytes whatever the caller does with
	// its buffer.
	p := &parser{lines: splitLines(bytes.Clone(input))}
	var sections []*section
	for p.i < len(p.lines) {
		t := p.header(p.i)
		switch {
		case strings.HasPrefix(t, "diff --git "):
			s, err := p.gitSection()
			if err != nil {
				return nil, err
			}
			sections = append(sections, s)
		case strings.HasPrefix(t, "diff --cc ") || strings.HasPrefix(t, "diff --combined "):
			return nil, refuse(refusal.Unsupported, p.i+1, "diff a single parent: git diff A B, not a merge's combined diff",
				"a combined diff of a merge cannot be applied")
		case p.isPlainHeader(p.i):
			s, err := p.plainSection()
			if err != nil {
				return nil, err
			}
			sections = append(sections, s)
		case strayHunk(t):
			return nil, refuse(refusal.Invalid, p.i+1, "start each file with its --- and +++ lines",
				"this hunk belongs to no file: no --- and +++ lines come before it")
		case strings.HasPrefix(t, "Binary files ") && strings.HasSuffix(t, " differ"):
			return nil, refuse(refusal.Unsupported, p.i+1, binaryHint, "a binary file changes here (%s), and nika proposes text only", t)
		default:
			p.i++ // prose
		}
	}
	if len(sections) == 0 {
		return nil, refuse(refusal.Invalid, 1, "give the diff of at least one file, as git diff writes it",
			"the input holds no diff: no file section (a diff --git line, or --- and +++ lines)")
	}
	zero := detectZero(sections)
	d := &changeset.Draft{Format: Format}
	for _, s := range sections {
		in, err := s.intent(zero)
		if err != nil {
			return nil, err
		}
		d.Intents = append(d.Intents, in)
	}
	return d, nil
}

// strayHunk reports a hunk header outside any file section.
func strayHunk(t string) bool {
	if !strings.HasPrefix(t, "@@ ") {
		return false
	}
	var h hunk
	numbered, err := h.parseHeader(t)
	return (numbered && err == nil) || (!numbered && strings.Contains(t[2:], "@@"))
}

// detectZero reports a diff written with no context at all (git diff -U0,
// diff -U0): no numbered hunk has a context line, and one of them edits
// lines in the middle of a file. git apply reads such a diff only with
// --unidiff-zero, where a hunk is not pinned to the start or the end of
// the file for lacking context; nika reads it so without being told (see
// docs/strictness.md).
func detectZero(sections []*section) bool {
	some := false
	for _, s := range sections {
		for _, h := range s.hunks {
			if !h.numbered {
				continue
			}
			if h.context > 0 {
				return false
			}
			if h.oldStart > 0 && h.newStart > 0 {
				some = true
			}
		}
	}
	return some
}

const binaryHint = "commit binary files by hand, outside the proposal"

type parser struct {
	lines [][]byte // each with its "\n", the last one perhaps without
	i     int      // the next line to read, 0-based
	// p0 is git apply's guess, kept for the rest of the diff once made,
	// that the names of diff -u sections carry no prefix.
	p0 bool
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
	git              bool   // a diff --git section
	oldName, newName string // from ---/+++, after prefix stripping; "" if absent
	devNullOld       bool   // --- /dev/null (or, in diff -u output, dated at the epoch)
	devNullNew       bool   // +++ /dev/null (or dated at the epoch)
	hdrOld, hdrNew   string // from the diff --git header
	headerErr        error  // the diff --git header could not be split
	renameFrom       string
	renameTo         string
	rename           bool
	copyFrom         string
	copyTo           string
	copy             bool
	isNew, isDelete  bool
	newMode          string // from new file mode
	oldMode, chMode  string // from old mode / new mode
	indexOld         string // abbreviated old blob id from the index line
	hunks            []*hunk
}

func (p *parser) gitSection() (*section, error) {
	s := &section{line: p.i + 1, git: true}
	rest := strings.TrimPrefix(p.header(p.i), "diff --git ")
	// A header git cannot split either (a rename between names with
	// spaces, or without prefixes) leaves the names to the lines below.
	a, b, noPrefix, headerErr := gitHeaderNames(rest)
	s.hdrOld, s.hdrNew, s.headerErr = a, b, headerErr
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
			s.oldMode = strings.TrimSpace(strings.TrimPrefix(t, "old mode "))
		case strings.HasPrefix(t, "new mode "):
			s.chMode = strings.TrimSpace(strings.TrimPrefix(t, "new mode "))
		case strings.HasPrefix(t, "deleted file mode "):
			s.isDelete = true
		case strings.HasPrefix(t, "new file mode "):
			s.isNew = true
			s.newMode = strings.TrimSpace(strings.TrimPrefix(t, "new file mode "))
		case strings.HasPrefix(t, "rename from "), strings.HasPrefix(t, "rename old "):
			v, err := quotedArg("rename from ", "rename old ")
			if err != nil {
				return nil, err
			}
			s.rename, s.renameFrom = true, v
		case strings.HasPrefix(t, "rename to "), strings.HasPrefix(t, "rename new "):
			v, err := quotedArg("rename to ", "rename new ")
			if err != nil {
				return nil, err
			}
			s.rename, s.renameTo = true, v
		case strings.HasPrefix(t, "copy from "):
			v, err := quotedArg("copy from ")
			if err != nil {
				return nil, err
			}
			s.copy, s.copyFrom = true, v
		case strings.HasPrefix(t, "copy to "):
			v, err := quotedArg("copy to ")
			if err != nil {
				return nil, err
			}
			s.copy, s.copyTo = true, v
		case strings.HasPrefix(t, "similarity index "), strings.HasPrefix(t, "dissimilarity index "):
		case strings.HasPrefix(t, "index "):
			v := strings.TrimPrefix(t, "index ")
			if i := strings.IndexByte(v, ' '); i >= 0 {
				v = v[:i]
			}
			s.indexOld, _, _ = strings.Cut(v, "..")
		case t == "GIT binary patch" || (strings.HasPrefix(t, "Binary files ") && strings.HasSuffix(t, " differ")):
			return nil, refuse(refusal.Unsupported, line, binaryHint,
				"%s is a binary patch, and nika proposes text only", show(firstNonEmpty(b, a)))
		case p.isPlainHeader(p.i):
			if err := p.gitNames(s, !noPrefix); err != nil {
				return nil, err
			}
			return s, p.hunks(s)
		case isHunkHeader(t):
			return s, p.hunks(s)
		default:
			return s, nil
		}
		p.i++
	}
	return s, nil
}

func (p *parser) plainSection() (*section, error) {
	s := &section{line: p.i + 1}
	if err := p.plainNames(s); err != nil {
		return nil, err
	}
	if err := p.hunks(s); err != nil {
		return nil, err
	}
	if len(s.hunks) == 0 {
		return nil, refuse(refusal.Invalid, s.line, "follow the --- and +++ lines with @@ hunks",
			"the file %s has --- and +++ lines but no hunk", show(firstNonEmpty(s.newName, s.oldName)))
	}
	return s, nil
}

// gitNames reads the --- and +++ lines of a git section at p.i: each name
// loses its first component when strip is true (git apply -p1).
func (p *parser) gitNames(s *section, strip bool) error {
	oldRaw, err := gitFileName(strings.TrimPrefix(p.header(p.i), "--- "))
	if err != nil {
		return refuse(refusal.Invalid, p.i+1, "quote names as git does", "the --- line %v", err)
	}
	newRaw, err := gitFileName(strings.TrimPrefix(p.header(p.i+1), "+++ "))
	if err != nil {
		return refuse(refusal.Invalid, p.i+2, "quote names as git does", "the +++ line %v", err)
	}
	p.i += 2
	s.devNullOld, s.devNullNew = isDevNull(oldRaw), isDevNull(newRaw)
	if !s.devNullOld {
		s.oldName = oldRaw
		if strip {
			s.oldName = stripOne(oldRaw)
		}
	}
	if !s.devNullNew {
		s.newName = newRaw
		if strip {
			s.newName = stripOne(newRaw)
		}
	}
	if s.devNullOld && s.devNullNew {
		return refuse(refusal.Invalid, p.i, "name the file on the --- or the +++ line", "both the --- and the +++ line name no file")
	}
	return nil
}

// plainNames reads the --- and +++ lines of diff -u output at p.i, the
// way git apply reads them: a name ends at a timestamp (after a tab, or
// after spaces that a mail program made of the tab) or else at a tab; a
// side dated at the epoch is absent; the two names name one file, the
// +++ one unless the --- one is a prefix of it (f.txt and f.txt.new).
// git strips one leading component unless neither name has one; nika
// keeps it also when both names start with the same directory (src/a.go
// and src/a.go), or when the one name starts with a directory other than
// git's a/ and b/, where git apply needs -p0 to agree (docs/strictness.md).
func (p *parser) plainNames(s *section) error {
	first, second := strings.TrimPrefix(p.header(p.i), "--- "), strings.TrimPrefix(p.header(p.i+1), "+++ ")
	oldRaw, err := plainFileName(first)
	if err != nil {
		return refuse(refusal.Invalid, p.i+1, "quote names as git does", "the --- line %v", err)
	}
	newRaw, err := plainFileName(second)
	if err != nil {
		return refuse(refusal.Invalid, p.i+2, "quote names as git does", "the +++ line %v", err)
	}
	p.i += 2
	oldNull, newNull := isDevNull(first), isDevNull(second)
	if oldNull && newNull {
		return refuse(refusal.Invalid, p.i, "name the file on the --- or the +++ line", "both the --- and the +++ line name no file")
	}
	if !p.p0 {
		// git apply's guess_p_value: a name without a slash has no prefix.
		guess := func(null bool, raw string) int {
			if null || raw == "" {
				return -1
			}
			if !strings.Contains(raw, "/") {
				return 0
			}
			return -1
		}
		a, b := guess(oldNull, oldRaw), guess(newNull, newRaw)
		if a < 0 {
			a = b
		}
		p.p0 = a == 0 && a == b
	}
	strip := !p.p0
	if strip {
		prefix := func(c string) bool { return c == "a" || c == "b" }
		switch {
		case !oldNull && !newNull:
			c1, c2 := firstComponent(oldRaw), firstComponent(newRaw)
			strip = c1 != c2 || prefix(c1)
		case oldNull:
			strip = prefix(firstComponent(newRaw))
		default:
			strip = prefix(firstComponent(oldRaw))
		}
	}
	name := func(raw string) string {
		if strip {
			return stripAll(raw)
		}
		return raw
	}
	switch {
	case oldNull:
		s.devNullOld, s.newName = true, name(newRaw)
	case newNull:
		s.devNullNew, s.oldName = true, name(oldRaw)
	default:
		o, n := name(oldRaw), name(newRaw)
		if n == "" || (o != "" && len(o) < len(n) && strings.HasPrefix(n, o)) {
			n = o
		}
		switch {
		case hasEpoch(first):
			s.devNullOld, s.newName = true, n
		case hasEpoch(second):
			s.devNullNew, s.oldName = true, n
		default:
			s.oldName, s.newName = n, n
		}
	}
	return nil
}

// firstComponent is the part of a name before its first slash, "" when it
// has none.
func firstComponent(s string) string {
	c, _, ok := strings.Cut(s, "/")
	if !ok {
		return ""
	}
	return c
}

// stripAll drops the first component of a name, and a name without one
// entirely, as git apply -p1 does.
func stripAll(s string) string {
	if _, rest, ok := strings.Cut(s, "/"); ok {
		return rest
	}
	return ""
}

// hunks reads the hunks of a section, starting at p.i.
func (p *parser) hunks(s *section) error {
	name := show(firstNonEmpty(s.newName, s.oldName, s.copyTo, s.renameTo, s.hdrNew))
	for isHunkHeader(p.header(p.i)) {
		h, err := p.hunk(len(s.hunks)+1, name)
		if err != nil {
			return err
		}
		s.hunks = append(s.hunks, h)
		if !h.numbered {
			// Blank lines between the hunks that models write.
			j := p.i
			for j < len(p.lines) && p.header(j) == "" {
				j++
			}
			if isHunkHeader(p.header(j)) {
				p.i = j
			}
		}
	}
	return nil
}

// intent turns a parsed section into its intent, refusing what nika does
// not carry.
func (s *section) intent(zero bool) (changeset.Intent, error) {
	oldPath := firstNonEmpty(s.copyFrom, s.renameFrom, s.oldName, s.hdrOld)
	newPath := firstNonEmpty(s.copyTo, s.renameTo, s.newName, s.hdrNew)
	if s.headerErr != nil && (oldPath == "" || newPath == "") {
		return changeset.Intent{}, refuse(refusal.Invalid, s.line, "write the header as diff --git a/<path> b/<path>", "the diff --git header %v", s.headerErr)
	}
	isNew := s.isNew || s.devNullOld
	isDelete := s.isDelete || s.devNullNew
	if (newPath == "" && !isDelete) || (oldPath == "" && !isNew) {
		return changeset.Intent{}, refuse(refusal.Invalid, s.line, "name the file on the --- and +++ lines", "the section names no file")
	}
	name := show(firstNonEmpty(newPath, oldPath))
	ed := func() *edit { return &edit{name: name, hunks: s.hunks, zero: zero} }
	switch {
	case s.oldMode != "" && s.chMode != "" && s.oldMode != s.chMode:
		return changeset.Intent{}, refuse(refusal.Unsupported, s.line, "change the mode by hand with git update-index --chmod, outside the proposal",
			"the diff changes the mode of %s from %s to %s, and nika does not change file modes", name, s.oldMode, s.chMode)
	case isNew && s.newMode != "" && s.newMode != "100644":
		return changeset.Intent{}, refuse(refusal.Unsupported, s.line, "propose it as a regular file (mode 100644)",
			"the diff creates %s with mode %s, and nika creates regular files only", name, s.newMode)
	case s.copy && s.chMode != "" && s.chMode != "100644":
		return changeset.Intent{}, refuse(refusal.Unsupported, s.line, "propose the copy as a regular file (mode 100644)",
			"the diff copies %s with mode %s, and nika creates regular files only", name, s.chMode)
	case isNew && isDelete:
		return changeset.Intent{}, refuse(refusal.Invalid, s.line, "a section either creates or deletes its file", "the diff both creates and deletes %s", name)
	case isNew:
		for _, h := range s.hunks {
			if len(h.old) > 0 {
				return changeset.Intent{}, refuse(refusal.Invalid, h.line, "a new file's hunk holds only + lines, at @@ -0,0",
					"hunk %d of %s removes or keeps lines of a file that does not exist yet", h.n, name)
			}
		}
		content, err := applyHunks(nil, s.hunks, name, zero)
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
		return changeset.Intent{Op: changeset.OpDelete, Path: oldPath, Line: s.line, Edit: del}, nil
	case s.copy:
		if s.copyFrom == "" || s.copyTo == "" {
			return changeset.Intent{}, refuse(refusal.Invalid, s.line, "give both copy from and copy to", "the copy of %s names only one side", name)
		}
		in := changeset.Intent{Op: changeset.OpCopy, Path: s.copyFrom, To: s.copyTo, Line: s.line}
		if len(s.hunks) > 0 {
			in.Edit = ed()
		}
		return in, nil
	case s.rename:
		if s.renameFrom == "" || s.renameTo == "" {
			return changeset.Intent{}, refuse(refusal.Invalid, s.line, "give both rename from and rename to", "the rename of %s names only one side", name)
		}
		in := changeset.Intent{Op: changeset.OpMove, Path: s.renameFrom, To: s.renameTo, Line: s.line}
		if len(s.hunks) > 0 {
			in.Edit = ed()
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
	if !s.git && len(s.hunks) == 1 && len(s.hunks[0].old) == 0 {
		// One hunk that only adds lines, and no word on whether the file
		// is new (diff -u, without the diff --git line that would say
		// new file mode): git apply creates the file when it is missing,
		// and applies the hunk to it otherwise (so a @@ -0,0 hunk fills
		// an empty file, and refuses one with content).
		return changeset.Intent{Op: changeset.OpWrite, Path: newPath, Edit: ed(), Line: s.line}, nil
	}
	return changeset.Intent{Op: changeset.OpEdit, Path: newPath, Edit: ed(), Line: s.line}, nil
}

// gitFileName reads the name of a ---/+++ line of a git section: a quoted
// name, or everything up to the first tab (git ends a name that holds a
// space with a tab).
func gitFileName(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		name, _, err := cUnquote(s)
		return name, err
	}
	name, _, _ := strings.Cut(s, "\t")
	return name, nil
}

// plainFileName reads the name of a ---/+++ line of diff -u output: a
// quoted name, or the text before its timestamp, or else everything up to
// the first tab (git apply's find_name_traditional).
func plainFileName(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		name, _, err := cUnquote(s)
		return name, err
	}
	if n := timestampLen(s); n > 0 {
		return s[:len(s)-n], nil
	}
	name, _, _ := strings.Cut(s, "\t")
	return name, nil
}

// isDevNull reports a name line that names no file: "/dev/null", then
// whitespace or nothing.
func isDevNull(s string) bool {
	rest, ok := strings.CutPrefix(s, "/dev/null")
	return ok && (rest == "" || isSpace(rest[0]))
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// timestampLen is the length of the timestamp that ends a diff -u name
// line, with the tab or the spaces before it, or 0 when there is none. It
// reads what git apply's diff_timestamp_len reads: a date (YYYY-MM-DD or
// YY-MM-DD), optionally a time (hh:mm:ss, with a fraction), optionally a
// zone (+hhmm or +hh:mm).
func timestampLen(line string) int {
	end := len(line)
	if end == 0 || !isDigit(line[end-1]) {
		return 0
	}
	if n := zoneLen(line[:end]); n > 0 {
		end -= n
	}
	if n := timeLen(line[:end]); n > 0 {
		end -= n
	} else if n := fractionalTimeLen(line[:end]); n > 0 {
		end -= n
	}
	n := dateLen(line[:end])
	if n == 0 {
		return 0
	}
	end -= n
	switch {
	case end == 0:
		return 0
	case line[end-1] == '\t':
		return len(line) - (end - 1)
	case line[end-1] != ' ':
		return 0
	}
	for end > 0 && line[end-1] == ' ' { // whitespace damage: spaces for the tab
		end--
	}
	return len(line) - end
}

// zoneLen reads " +0900" or " +09:00" at the end of s.
func zoneLen(s string) int {
	if n := len(s); n >= 6 && s[n-6] == ' ' && (s[n-5] == '+' || s[n-5] == '-') && allDigits(s[n-4:]) {
		return 6
	}
	if n := len(s); n >= 7 && s[n-7] == ' ' && (s[n-6] == '+' || s[n-6] == '-') &&
		isDigit(s[n-5]) && isDigit(s[n-4]) && s[n-3] == ':' && isDigit(s[n-2]) && isDigit(s[n-1]) {
		return 7
	}
	return 0
}

// timeLen reads " hh:mm:ss" at the end of s.
func timeLen(s string) int {
	n := len(s)
	if n < 9 {
		return 0
	}
	t := s[n-9:]
	if t[0] != ' ' || !isDigit(t[1]) || !isDigit(t[2]) || t[3] != ':' || !isDigit(t[4]) || !isDigit(t[5]) || t[6] != ':' || !isDigit(t[7]) || !isDigit(t[8]) {
		return 0
	}
	return 9
}

// fractionalTimeLen reads " hh:mm:ss.fffffffff" at the end of s.
func fractionalTimeLen(s string) int {
	i := len(s)
	if i == 0 || !isDigit(s[i-1]) {
		return 0
	}
	for i > 0 && isDigit(s[i-1]) {
		i--
	}
	if i == 0 || s[i-1] != '.' {
		return 0
	}
	n := timeLen(s[:i-1])
	if n == 0 {
		return 0
	}
	return len(s) - (i - 1) + n
}

// dateLen reads "YY-MM-DD" or "YYYY-MM-DD" at the end of s.
func dateLen(s string) int {
	n := len(s)
	if n < 8 {
		return 0
	}
	d := s[n-8:]
	if !isDigit(d[0]) || !isDigit(d[1]) || d[2] != '-' || !isDigit(d[3]) || !isDigit(d[4]) || d[5] != '-' || !isDigit(d[6]) || !isDigit(d[7]) {
		return 0
	}
	if n >= 10 && isDigit(s[n-9]) && isDigit(s[n-10]) {
		return 10
	}
	return 8
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// hasEpoch reports a diff -N side: the timestamp after the line's last tab
// is the Unix epoch in its own zone, west of UTC (1969-12-31) or east of
// it (1970-01-01 09:00:00 +0900), as git apply's has_epoch_timestamp
// reads it: whole seconds zero, zone +hhmm or +hh:mm.
func hasEpoch(line string) bool {
	i := strings.LastIndexByte(line, '\t')
	if i < 0 {
		return false
	}
	ts := line[i+1:]
	var epochHour int
	switch {
	case strings.HasPrefix(ts, "1969-12-31 "):
		epochHour = 24
	case strings.HasPrefix(ts, "1970-01-01 "):
		epochHour = 0
	default:
		return false
	}
	ts = ts[len("1970-01-01 "):]
	// hh:mm:00(.0+)? (+|-)hh:?mm
	if len(ts) < 8 || !isDigit(ts[0]) || ts[0] > '2' || !isDigit(ts[1]) || ts[2] != ':' ||
		!isDigit(ts[3]) || ts[3] > '5' || !isDigit(ts[4]) || ts[5:8] != ":00" {
		return false
	}
	hour := int(ts[0]-'0')*10 + int(ts[1]-'0')
	minute := int(ts[3]-'0')*10 + int(ts[4]-'0')
	rest := ts[8:]
	if strings.HasPrefix(rest, ".") {
		j := 1
		for j < len(rest) && rest[j] == '0' {
			j++
		}
		if j == 1 {
			return false
		}
		rest = rest[j:]
	}
	if len(rest) < 6 || rest[0] != ' ' || (rest[1] != '+' && rest[1] != '-') {
		return false
	}
	z := rest[2:]
	var zh, zm int
	switch {
	case len(z) == 4 && allDigits(z) && z[0] <= '2' && z[2] <= '5':
		zh, zm = int(z[0]-'0')*10+int(z[1]-'0'), int(z[2]-'0')*10+int(z[3]-'0')
	case len(z) == 5 && z[2] == ':' && allDigits(z[:2]) && allDigits(z[3:]) && z[0] <= '2' && z[3] <= '5':
		zh, zm = int(z[0]-'0')*10+int(z[1]-'0'), int(z[3]-'0')*10+int(z[4]-'0')
	default:
		return false
	}
	offset := zh*60 + zm
	if rest[1] == '-' {
		offset = -offset
	}
	return hour*60+minute-offset == epochHour*60
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
