package preview

import (
	"fmt"
	"strings"

	"github.com/nika-dev/nika/changeset"
)

// A path that git converts between the working tree and the commit (line
// endings, an encoding, ident, a filter) has two forms: the commit's, which
// the diff above shows as git show would, and the disk's, which git's
// checkout writes and the human will find. The preview names the
// conversion and the disk form's witness on the change's rows, with what
// git would warn about; a filter is a program from the repository's
// configuration, so its command lines are shown before consent. Under a
// filter the disk form is other bytes than the commit's (a pointer, a
// ciphertext): its diff follows the commit's.

// checkoutRows writes the rows of a converted change: the witnesses of
// the bytes on disk, and what converts them.
func (p *printer) checkoutRows(c changeset.Change) {
	b, a := c.Before, c.After
	if (b == nil || b.Disk == nil) && (a == nil || a.Disk == nil) {
		return
	}
	wb, wa := "absent", "absent"
	if b != nil {
		wb = b.OnDisk().String()
	}
	if a != nil {
		wa = a.OnDisk().String()
	}
	p.linef("", "  %-6s  %-10s  %s → %s", "", "on disk", wb, wa)
	s := a
	if s == nil || s.Disk == nil {
		s = b
	}
	for _, w := range convLines(s) {
		p.linef("", "  %-6s  %-10s  %s", "", "", w)
	}
	for _, sd := range []*changeset.Side{b, a} {
		if sd != nil && sd.Disk != nil {
			for _, w := range sd.Disk.Warnings {
				p.linef(cYellow, "  %-6s  %-10s  warning: %s", "", "", safe(w))
			}
		}
	}
}

// convLines words a side's conversion, one line per kind.
func convLines(s *changeset.Side) []string {
	if s == nil || s.Disk == nil {
		return nil
	}
	c := s.Disk.Conv
	var out []string
	switch {
	case c.EOL == "crlf" && s.Disk.Witness != s.Witness && c.Encoding == "" && c.Filter == "" && !c.Ident:
		out = append(out, fmt.Sprintf("line endings: CRLF on disk, LF in the commit (%s)", safe(c.EOLFrom)))
	case c.EOL == "crlf" && c.Auto && s.Disk.Witness == s.Witness:
		out = append(out, fmt.Sprintf("line endings: as in the commit, which git leaves alone (binary, or CRLF already) (%s)", safe(c.EOLFrom)))
	case c.EOL == "crlf":
		out = append(out, fmt.Sprintf("line endings: CRLF on disk (%s)", safe(c.EOLFrom)))
	case c.EOL == "lf":
		out = append(out, fmt.Sprintf("line endings: LF on disk and in the commit, git add normalizes CRLF (%s)", safe(c.EOLFrom)))
	}
	if c.Encoding != "" {
		out = append(out, fmt.Sprintf("encoding: %s on disk, UTF-8 in the commit (working-tree-encoding)", safe(c.Encoding)))
	}
	if c.Ident {
		out = append(out, "ident: $Id$ expanded on disk to the blob id")
	}
	if c.Filter != "" {
		req := ""
		if c.Required {
			req = ", required"
		}
		if c.FilterProcess != "" {
			out = append(out, fmt.Sprintf("filter: %s (%s)%s: a program from git's configuration (filter.%s.process)", safe(c.Filter), safe(c.FilterProcess), req, safe(c.Filter)))
		} else {
			var cmds []string
			if c.FilterClean != "" {
				cmds = append(cmds, "clean: "+safe(c.FilterClean))
			}
			if c.FilterSmudge != "" {
				cmds = append(cmds, "smudge: "+safe(c.FilterSmudge))
			}
			out = append(out, fmt.Sprintf("filter: %s (%s)%s: programs from git's configuration (filter.%s)", safe(c.Filter), strings.Join(cmds, " · "), req, safe(c.Filter)))
		}
	}
	return out
}

// diskBody writes the diff of a filtered change's disk forms, when the
// proposal holds them.
func (p *printer) diskBody(c changeset.Change) error {
	a, b := c.After, c.Before
	filtered := func(s *changeset.Side) bool { return s != nil && s.Disk != nil && s.Disk.Conv.Filter != "" }
	if !filtered(a) && !filtered(b) {
		return nil
	}
	var before, after []byte
	switch {
	case a != nil && (a.Disk == nil || a.Disk.Bytes == nil), b != nil && (b.Disk == nil || b.Disk.Bytes == nil):
		p.line("", `\ on disk: the filter's bytes are named by the witness above (not held by this preview)`)
		return nil
	}
	if b != nil {
		before = b.Disk.Bytes
	}
	if a != nil {
		after = a.Disk.Bytes
	}
	if isBinary(before) || isBinary(after) {
		p.linef("", `\ on disk: binary (%d → %d bytes), named by the witness above`, len(before), len(after))
		return nil
	}
	p.line(cBold, "on disk, as git's checkout writes it through the filter:")
	var hs []hunk
	var err error
	switch {
	case b == nil:
		hs = whole(after, opInsert)
	case a == nil:
		hs = whole(before, opDelete)
	default:
		if hs, err = unified(before, after); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrInconsistent, changeset.Quote(string(c.Path)), err)
		}
	}
	from, to := "a/"+safe(string(c.Path))+" (on disk)", "b/"+safe(string(c.Path))+" (on disk)"
	if b == nil {
		from = "/dev/null"
	}
	if a == nil {
		to = "/dev/null"
	}
	return p.hunks(c, hs, from, to, false)
}

// isBinary is git's guess: a NUL byte in the first 8000.
func isBinary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
	}
	return strings.IndexByte(string(b), 0) >= 0
}
