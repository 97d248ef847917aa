package consent

import (
	"fmt"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/refusal"
)

// checkSnapshot is the consent snapshot: what git's configuration makes
// the apply run and convert must be what the preview showed, or the apply
// refuses with nothing written. Today it covers git's checkout
// conversion of every path the apply writes: the line endings, the
// encoding, ident, and the filter with the command lines it resolves to
// (a filter is a program from the repository's configuration, shown
// before consent and run only as shown). It runs no program: it compares
// configuration. Issue 26 extends it to the hooks.
func checkSnapshot(r *gitstage.Repo, rec *gitstage.Record, p *changeset.Proposal) error {
	if err := gitstage.AttachCheckout(p, rec); err != nil {
		return err
	}
	co, err := r.Checkout(p.Set.Base)
	if err != nil {
		return err
	}
	defer co.Close()
	for _, c := range p.Set.Changes {
		if c.After == nil {
			continue
		}
		var shown changeset.Conversion
		if c.After.Disk != nil {
			shown = c.After.Disk.Conv
		}
		if now := co.Conversion(c.Path); now != shown {
			return (&refusal.Error{Class: refusal.StaleRevision, Err: &cause{state: Stale, path: string(c.Path)},
				Text: fmt.Sprintf("git's configuration changed since this preview: it now converts %s by %s, and the preview showed %s · nothing was applied",
					changeset.Quote(string(c.Path)), convWords(now), convWords(shown)),
				Hint: "rebuild the preview"}).WithFix(refusal.Repropose, p.ID)
		}
	}
	return nil
}

// convWords names a conversion for the refusal's text.
func convWords(c changeset.Conversion) string {
	if !c.Converts() {
		return "nothing"
	}
	var parts []string
	if c.EOL != "" {
		parts = append(parts, fmt.Sprintf("%s line endings (%s)", strings.ToUpper(c.EOL), c.EOLFrom))
	}
	if c.Encoding != "" {
		parts = append(parts, "the encoding "+c.Encoding)
	}
	if c.Ident {
		parts = append(parts, "ident")
	}
	if c.Filter != "" {
		f := "the filter " + c.Filter
		switch {
		case c.FilterProcess != "":
			f += fmt.Sprintf(" (process %q)", c.FilterProcess)
		default:
			f += fmt.Sprintf(" (clean %q, smudge %q)", c.FilterClean, c.FilterSmudge)
		}
		parts = append(parts, f)
	}
	return strings.Join(parts, ", ")
}
