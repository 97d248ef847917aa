package gitstage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage/convert"
	"github.com/nika-dev/nika/refusal"
)

// Git converts a file between the working tree and the commit (line
// endings, an encoding, ident, clean/smudge filters: package convert).
// nika does what git does: the blob in the proposal is what `git add`
// would store, and the bytes on disk after the apply are what `git
// checkout` writes for that blob. Each side of a converted path carries
// its disk form (changeset.Disk): the witness of the bytes on disk, and
// the conversion as data, which the registry records (Record.Checkout),
// the preview names and the apply checks again (CheckConversions).

// convEntry is what Entry learned of a converted file of the base.
type convEntry struct {
	plan convert.Plan
	blob []byte // the blob's bytes (git's form)
	disk []byte // the bytes on disk
}

// newConverter builds the repository's converter over the attributes of
// a tree: tree returns a directory's .gitattributes.
func (r *Repo) newConverter(tree func(dir string) ([]byte, bool)) *convert.Converter {
	var system, global []byte
	if v, _ := os.LookupEnv("GIT_ATTR_NOSYSTEM"); v == "" || !parseBool(v, false) {
		system, _ = os.ReadFile(systemAttributes())
	}
	if f := r.attributesFile(); f != "" {
		global, _ = os.ReadFile(f)
	}
	info, _ := os.ReadFile(filepath.Join(r.CommonDir, "info", "attributes"))
	return convert.New(convert.Options{
		Config:     r.Config,
		Attrs:      convert.NewAttributes(system, global, info, tree),
		Root:       r.Root,
		Env:        os.Environ(),
		NativeCRLF: runtime.GOOS == "windows",
	})
}

// attributesFile is core.attributesFile, else git's default
// $XDG_CONFIG_HOME/git/attributes (~/.config/git/attributes).
func (r *Repo) attributesFile() string {
	if v, ok := r.Config.Get("core.attributesfile"); ok {
		if strings.HasPrefix(v, "~/") {
			if home, _ := os.LookupEnv("HOME"); home != "" {
				return filepath.Join(home, v[2:])
			}
		}
		return v
	}
	if xdg, _ := os.LookupEnv("XDG_CONFIG_HOME"); xdg != "" {
		return filepath.Join(xdg, "git", "attributes")
	}
	if home, _ := os.LookupEnv("HOME"); home != "" {
		return filepath.Join(home, ".config", "git", "attributes")
	}
	return ""
}

// treeAttributes reads .gitattributes files from the base's tree.
func (b *Base) treeAttributes(dir string) ([]byte, bool) {
	p := ".gitattributes"
	if dir != "" {
		p = dir + "/.gitattributes"
	}
	if te, err := b.treeEntry(p); err == nil && te != nil && te.Mode != filemode.Dir {
		if data, err := b.r.ReadBlob(te.Hash); err == nil {
			return data, true
		}
	}
	return nil, false
}

func (b *Base) converter() *convert.Converter {
	if b.conv == nil {
		b.conv = b.r.newConverter(b.treeAttributes)
	}
	return b.conv
}

// Close ends the filter processes the base started.
func (b *Base) Close() error {
	if b.conv == nil {
		return nil
	}
	return b.conv.Close()
}

// ConversionOf is a plan as the changeset's data.
func ConversionOf(pl convert.Plan) changeset.Conversion {
	c := changeset.Conversion{EOLFrom: pl.EOLFrom, Encoding: pl.Encoding, Ident: pl.Ident}
	switch pl.Action {
	case convert.TextCRLF:
		c.EOL = "crlf"
	case convert.AutoCRLF:
		c.EOL, c.Auto = "crlf", true
	case convert.TextInput:
		c.EOL = "lf"
	case convert.AutoInput:
		c.EOL, c.Auto = "lf", true
	}
	if d := pl.Filter; d != nil {
		c.Filter, c.Required = d.Name, d.Required
		c.FilterProcess, c.FilterClean, c.FilterSmudge = d.Process, d.Clean, d.Smudge
	}
	return c
}

// convRefusal words a conversion's failure as a refusal.
func convRefusal(p string, err error) error {
	q := changeset.Quote(p)
	var se *convert.SafeCRLFError
	var ee *convert.EncodingError
	var fe *convert.FilterError
	switch {
	case errors.As(err, &se):
		return refusal.New(refusal.Unsupported, "give the file one kind of line ending, or set core.safecrlf to warn",
			"%s: %s, and core.safecrlf=true refuses that, as git add would", q, strings.TrimSuffix(se.Error(), " in "+p))
	case errors.As(err, &ee):
		return refusal.New(refusal.Invalid, "write the file in the encoding its working-tree-encoding attribute names",
			"%s: git refuses it: %v", q, ee)
	case errors.As(err, &fe):
		dir := "smudge"
		if fe.Clean {
			dir = "clean"
		}
		return refusal.New(refusal.Unsupported, "fix the filter, or run the git command that needs it to see its error",
			"%s: the required %s filter %s failed (%s), so git would refuse it too", q, dir, fe.Driver, fe.Why)
	}
	return refusal.New(refusal.Internal, "", "%s: %v", q, err)
}

// warnWords is git's text for a warning.
func warnWords(ws []convert.Warning) []string {
	var out []string
	for _, w := range ws {
		switch {
		case w.Filter != nil:
			out = append(out, fmt.Sprintf("error: %v; the bytes pass through unfiltered, as git lets them", w.Filter))
		case w.RoundTrip == convert.CRLFBecomesLF:
			out = append(out, fmt.Sprintf("in the working copy of '%s', CRLF will be replaced by LF the next time Git touches it", w.Path))
		case w.RoundTrip == convert.LFBecomesCRLF:
			out = append(out, fmt.Sprintf("in the working copy of '%s', LF will be replaced by CRLF the next time Git touches it", w.Path))
		}
	}
	return out
}

// cleanEntry checks a converted file of the base: its bytes on disk,
// converted as git add would, must be HEAD's blob (git status's test
// once the stat data no longer vouches). It returns what Entry hands the
// resolver: the bytes a change applies to.
func (b *Base) cleanEntry(p string, te *plumbing.Hash, disk []byte) ([]byte, bool, error) {
	pl := b.converter().Plan(p)
	if pl.Identity() {
		return disk, BlobHash(disk) == *te, nil
	}
	blob, err := b.r.ReadBlob(*te)
	if err != nil {
		return nil, false, err
	}
	clean, _, err := b.converter().ToGit(pl, disk, blob)
	if err != nil {
		var fe *convert.FilterError
		if errors.As(err, &fe) {
			return nil, false, convRefusal(p, err)
		}
		// What git add would refuse is not what HEAD holds.
		return nil, false, nil
	}
	if BlobHash(clean) != *te {
		return nil, false, nil
	}
	if b.conved == nil {
		b.conved = map[string]*convEntry{}
	}
	b.conved[p] = &convEntry{plan: pl, blob: blob, disk: disk}
	// A patch applies to git's form, as git apply --index does; under a
	// filter the form git's form comes from is the working tree's (the
	// blob may be a pointer, or ciphertext), as an edit and git add are.
	if pl.Filters() {
		return disk, true, nil
	}
	return blob, true, nil
}

// Convert gives each change the forms git gives it: a side of a
// converted path holds the blob's bytes (git's form) and its disk form.
// A new after-state is what git stores for it: under a filter the bytes
// are the working tree's and go through git add's whole conversion; else
// they are git's form (a patch applied to the blob, as git apply --index
// does), whose line endings git normalizes (core.safecrlf judging bytes
// that carry CRLF), unless the patch applied to the working tree's form
// (Change.FromWorkTree: its lines carried the disk's CRLF, as git apply
// without --index reads them), which git add's conversion takes too. The disk form is git checkout's conversion of the
// blob. A change whose blob comes out as the base's is dropped and its
// path returned in unchanged. A proposal that changes a .gitattributes
// file in a way that converts another of its paths otherwise is refused.
// The filter processes started are ended when it returns.
func (b *Base) Convert(cs []changeset.Change) (kept []changeset.Change, unchanged []changeset.Path, err error) {
	defer b.Close()
	if err := b.checkAttributeChanges(cs); err != nil {
		return nil, nil, err
	}
	conv := b.converter()
	for i := range cs {
		c := &cs[i]
		if c.Before != nil {
			from := c.Path
			if c.Kind == changeset.Move {
				from = c.From
			}
			if ce := b.conved[string(from)]; ce != nil {
				c.Before = &changeset.Side{Blob: c.Before.Blob, Mode: c.Before.Mode, Bytes: ce.blob, Witness: changeset.WitnessOf(ce.blob),
					Disk: &changeset.Disk{Witness: changeset.WitnessOf(ce.disk), Bytes: ce.disk, Conv: ConversionOf(ce.plan)}}
			}
		}
		if c.After == nil {
			continue
		}
		pl := conv.Plan(string(c.Path))
		if pl.Identity() {
			continue
		}
		var index []byte
		if c.Before != nil && c.Kind != changeset.Move {
			index = c.Before.Bytes
		}
		var blob []byte
		var warns []convert.Warning
		if pl.Filters() || c.FromWorkTree {
			blob, warns, err = conv.ToGit(pl, c.After.Bytes, index)
		} else {
			blob, warns, err = conv.Normalize(pl, c.After.Bytes, index)
		}
		if err != nil {
			return nil, nil, convRefusal(string(c.Path), err)
		}
		disk, w2, err := conv.ToWorkTree(pl, blob)
		if err != nil {
			return nil, nil, convRefusal(string(c.Path), err)
		}
		c.After = changeset.NewSide(blob, c.After.Mode, "")
		c.After.Disk = &changeset.Disk{Witness: changeset.WitnessOf(disk), Bytes: disk, Conv: ConversionOf(pl), Warnings: warnWords(append(warns, w2...))}
	}
	for _, c := range cs {
		if c.Kind == changeset.Update && bytes.Equal(c.Before.Bytes, c.After.Bytes) && c.Before.Mode == c.After.Mode {
			unchanged = append(unchanged, c.Path)
			continue
		}
		kept = append(kept, c)
	}
	return kept, unchanged, nil
}

// checkAttributeChanges refuses a set that changes a .gitattributes file
// and also writes a path that the new attributes would convert otherwise
// than the old: git would convert that path by the attributes in the
// middle of its own checkout, and nika converts by the base's.
func (b *Base) checkAttributeChanges(cs []changeset.Change) error {
	changed := map[string][]byte{} // dir -> new .gitattributes (nil: removed)
	for _, c := range cs {
		for _, p := range []changeset.Path{c.Path, c.From} {
			if p != "" && p.Base() == ".gitattributes" {
				var after []byte
				if p == c.Path && c.After != nil {
					after = c.After.Bytes
				}
				changed[p.Dir()] = after
			}
		}
	}
	if len(changed) == 0 {
		return nil
	}
	next := b.r.newConverter(func(dir string) ([]byte, bool) {
		if data, ok := changed[dir]; ok {
			return data, data != nil
		}
		return b.treeAttributes(dir)
	})
	conv := b.converter()
	for _, c := range cs {
		if c.After == nil || c.Path.Base() == ".gitattributes" {
			continue
		}
		if ConversionOf(conv.Plan(string(c.Path))) != ConversionOf(next.Plan(string(c.Path))) {
			return refusal.New(refusal.Unsupported, "propose the .gitattributes change on its own first, then the files it governs",
				"the proposal changes .gitattributes in a way that changes how git converts %s, which it also writes", changeset.Quote(string(c.Path)))
		}
	}
	return nil
}

// systemAttributes is git's $(prefix)/etc/gitattributes as Debian's, most
// Linux distributions' and the BSDs' git are built (/etc/gitattributes).
// The prefix of another build (Homebrew's, Git for Windows') is not known
// without asking git itself; there no system file is read.
func systemAttributes() string {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return ""
	}
	return "/etc/gitattributes"
}

// DiskForms gives each after-side that has no disk form yet and whose
// path git converts the bytes git's checkout writes for its blob (a
// derived proposal's part of a file: its bytes are git's form, made from
// the hunks kept). The filter processes started are ended when it
// returns.
func (b *Base) DiskForms(cs []changeset.Change) error {
	defer b.Close()
	for i := range cs {
		c := &cs[i]
		if c.After == nil || c.After.Disk != nil {
			continue
		}
		pl := b.converter().Plan(string(c.Path))
		if pl.Identity() {
			continue
		}
		disk, warns, err := b.converter().ToWorkTree(pl, c.After.Bytes)
		if err != nil {
			return convRefusal(string(c.Path), err)
		}
		after := *c.After
		after.Disk = &changeset.Disk{Witness: changeset.WitnessOf(disk), Bytes: disk, Conv: ConversionOf(pl), Warnings: warnWords(warns)}
		c.After = &after
	}
	return nil
}
