package gitstage

import (
	"encoding/hex"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage/convert"
	"github.com/nika-dev/nika/refusal"
)

// CheckoutSide is one side of a converted path as the preview showed it:
// the witness of its bytes on disk and the conversion that makes them.
// The commit holds git's form only; the registry keeps the disk form's
// witness, which the apply checks the disk against (before) and its own
// checkout against (after).
type CheckoutSide struct {
	Path    string               `json:"path"`
	Side    string               `json:"side"` // "before" or "after"
	Witness string               `json:"witness"`
	Conv    changeset.Conversion `json:"conv"`
}

// changeSide is one side of a change with the path it stands at (a
// move's before side stands at its source).
type changeSide struct {
	s    *changeset.Side
	path changeset.Path
	side string // "before" or "after"
}

func sidesOf(c *changeset.Change) [2]changeSide {
	from := c.Path
	if c.Kind == changeset.Move {
		from = c.From
	}
	return [2]changeSide{{c.Before, from, "before"}, {c.After, c.Path, "after"}}
}

// CheckoutOf lists the disk forms of a proposal's sides, in change order.
func CheckoutOf(p *changeset.Proposal) []CheckoutSide {
	var out []CheckoutSide
	for i := range p.Set.Changes {
		for _, x := range sidesOf(&p.Set.Changes[i]) {
			if x.s != nil && x.s.Disk != nil {
				out = append(out, CheckoutSide{Path: string(x.path), Side: x.side, Witness: x.s.Disk.Witness.String(), Conv: x.s.Disk.Conv})
			}
		}
	}
	return out
}

// SameCheckout reports whether two lists record the same disk forms.
func SameCheckout(a, b []CheckoutSide) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// AttachCheckout gives a proposal re-derived from its commit the disk
// forms its record holds (witness and conversion; not the bytes). A side
// that has its disk form already keeps it.
func AttachCheckout(p *changeset.Proposal, rec *Record) error {
	if rec == nil || len(rec.Checkout) == 0 {
		return nil
	}
	type key struct{ path, side string }
	m := map[key]CheckoutSide{}
	for _, s := range rec.Checkout {
		m[key{s.Path, s.Side}] = s
	}
	for i := range p.Set.Changes {
		for _, x := range sidesOf(&p.Set.Changes[i]) {
			if x.s == nil || x.s.Disk != nil {
				continue
			}
			cs, ok := m[key{string(x.path), x.side}]
			if !ok {
				continue
			}
			w, err := parseWitness(cs.Witness)
			if err != nil {
				return refusal.New(refusal.Internal, "discard the proposal and propose it again",
					"the registry record of %s holds a bad witness for %s", rec.ID, changeset.Quote(cs.Path))
			}
			x.s.Disk = &changeset.Disk{Witness: w, Conv: cs.Conv}
		}
	}
	return nil
}

func parseWitness(s string) (changeset.Witness, error) {
	var w changeset.Witness
	const prefix = "blake3:"
	if len(s) != len(prefix)+64 || s[:len(prefix)] != prefix {
		return w, fmt.Errorf("bad witness %q", s)
	}
	b, err := hex.DecodeString(s[len(prefix):])
	if err != nil {
		return w, err
	}
	copy(w[:], b)
	return w, nil
}

// Checkout is git checkout's conversion for an apply: the attributes of
// a commit's tree (the proposal's base, whose .gitattributes the proposal
// cannot change in a way that matters: Base.Convert refuses that) and the
// configuration as it is now.
type Checkout struct {
	b    *Base
	conv *convert.Converter
}

// Checkout opens the conversion over the tree of commit base ("" for an
// unborn HEAD: no .gitattributes but the outer files).
func (r *Repo) Checkout(base string) (*Checkout, error) {
	head := Head{}
	if base != "" {
		head.Commit = plumbing.NewHash(base)
	}
	b, err := r.TreeBase(head)
	if err != nil {
		return nil, err
	}
	return &Checkout{b: b, conv: b.converter()}, nil
}

// Conversion is what git converts p by now.
func (c *Checkout) Conversion(p changeset.Path) changeset.Conversion {
	return ConversionOf(c.conv.Plan(string(p)))
}

// ToWorkTree is what git checkout writes for blob at p.
func (c *Checkout) ToWorkTree(p changeset.Path, blob []byte) ([]byte, error) {
	out, _, err := c.conv.ToWorkTree(c.conv.Plan(string(p)), blob)
	if err != nil {
		return nil, convRefusal(string(p), err)
	}
	return out, nil
}

// Close ends the filter processes it started.
func (c *Checkout) Close() error { return c.conv.Close() }

// FillFilteredDisk gives the filtered sides of a proposal re-derived from
// its commit their bytes on disk again, so that its preview shows them as
// the preview at propose did: git's checkout of the blob through the
// filter the record names, kept only where it gives the witnessed bytes.
// A side it cannot remake stays without bytes; the preview says so, and
// the apply, which remakes them before its first write, refuses.
func (r *Repo) FillFilteredDisk(p *changeset.Proposal) {
	var co *Checkout
	defer func() {
		if co != nil {
			co.Close()
		}
	}()
	for i := range p.Set.Changes {
		for _, x := range sidesOf(&p.Set.Changes[i]) {
			if x.s == nil || x.s.Disk == nil || x.s.Disk.Bytes != nil || x.s.Disk.Conv.Filter == "" {
				continue
			}
			if co == nil {
				var err error
				if co, err = r.Checkout(p.Set.Base); err != nil {
					return
				}
			}
			blob, err := r.SideBytes(x.s)
			if err != nil {
				continue
			}
			if co.Conversion(x.path) != x.s.Disk.Conv {
				continue // the apply's snapshot refuses it
			}
			if b, err := co.ToWorkTree(x.path, blob); err == nil && changeset.WitnessOf(b) == x.s.Disk.Witness {
				x.s.Disk.Bytes = b
			}
		}
	}
}
