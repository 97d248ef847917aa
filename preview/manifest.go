package preview

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/nika-dev/nika/changeset"
	"github.com/zeebo/blake3"
)

// ManifestVersion names the canonical format; it is the first line.
const ManifestVersion = "nika-proposal v1"

// Manifest renders the canonical manifest of a proposal: base, tree, goal,
// run request, and for each change (sorted by path) its kind, path, source,
// and before/after mode, blob and witness. Bytes are not included: the blob
// hashes and witnesses bind them.
//
//	nika-proposal v1
//	base <commit hex | unborn>
//	tree <tree hex>
//	goal <JSON string>
//	run <JSON object | none>
//	generation <N>                         (only when N > 0)
//	rebased <proposal id>                  (only for a proposal brought forward)
//	change <kind> <JSON path>
//	from <JSON path>                       (moves only)
//	before <mode> <blob> <witness> | before absent
//	after <mode> <blob> <witness>  | after absent
func Manifest(p *changeset.Proposal) []byte {
	var b bytes.Buffer
	s := &p.Set
	b.WriteString(ManifestVersion + "\n")
	base := s.Base
	if base == "" {
		base = "unborn"
	}
	fmt.Fprintf(&b, "base %s\n", base)
	fmt.Fprintf(&b, "tree %s\n", p.Tree)
	fmt.Fprintf(&b, "goal %s\n", jsonString(s.Goal))
	if s.Run == nil {
		b.WriteString("run none\n")
	} else {
		fmt.Fprintf(&b, "run %s\n", RunJSON(s.Run))
	}
	if s.Generation > 0 {
		fmt.Fprintf(&b, "generation %d\n", s.Generation)
	}
	if s.RebasedFrom != "" {
		fmt.Fprintf(&b, "rebased %s\n", s.RebasedFrom)
	}
	cs := append([]changeset.Change(nil), s.Changes...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })
	for _, c := range cs {
		fmt.Fprintf(&b, "change %s %s\n", c.Kind, jsonString(string(c.Path)))
		if c.Kind == changeset.Move {
			fmt.Fprintf(&b, "from %s\n", jsonString(string(c.From)))
		}
		side(&b, "before", c.Before)
		side(&b, "after", c.After)
	}
	return b.Bytes()
}

func side(b *bytes.Buffer, name string, s *changeset.Side) {
	if s == nil {
		fmt.Fprintf(b, "%s absent\n", name)
		return
	}
	fmt.Fprintf(b, "%s %s %s %s\n", name, s.Mode, s.Blob, s.Witness)
}

// ID is the hex blake3-256 of the manifest.
func ID(p *changeset.Proposal) string {
	sum := blake3.Sum256(Manifest(p))
	return hex.EncodeToString(sum[:])
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// RunJSON renders a run request canonically: keys in a fixed order, vars
// sorted (encoding/json sorts map keys).
func RunJSON(r *changeset.RunRequest) string {
	v := struct {
		Workflow   string            `json:"workflow"`
		Vars       map[string]string `json:"vars"`
		MaxCostUSD float64           `json:"max_cost_usd"`
	}{string(r.Workflow), r.Vars, r.MaxCostUSD}
	if v.Vars == nil {
		v.Vars = map[string]string{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
