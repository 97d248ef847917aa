package convert

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Config is the part of git's configuration conversions read.
type Config interface {
	Get(key string) (string, bool)
}

// Options are a repository's conversion settings.
type Options struct {
	Config Config
	Attrs  *Attributes
	Root   string   // the working tree's top, where filters run
	Env    []string // the filters' environment
	// NativeCRLF is git's EOL_NATIVE: CRLF on Windows, LF elsewhere.
	NativeCRLF bool
}

// Converter converts bytes for one repository, for one command: a
// long-running filter started for one file serves the next, and Close
// ends them.
type Converter struct {
	opt       Options
	autocrlf  string // "true", "input" or "false"
	eol       string // core.eol: "lf", "crlf", "native" or ""
	safecrlf  string // "true", "warn" or "false"
	roundtrip map[string]bool
	mu        sync.Mutex
	procs     map[string]*process
	procErr   map[string]error
}

// New reads the conversion settings from the configuration.
func New(opt Options) *Converter {
	c := &Converter{opt: opt, procs: map[string]*process{}, procErr: map[string]error{}, roundtrip: map[string]bool{}}
	get := func(k string) (string, bool) {
		if opt.Config == nil {
			return "", false
		}
		return opt.Config.Get(k)
	}
	c.autocrlf = "false"
	if v, ok := get("core.autocrlf"); ok {
		if strings.EqualFold(v, "input") {
			c.autocrlf = "input"
		} else if gitBool(v) {
			c.autocrlf = "true"
		}
	}
	if v, ok := get("core.eol"); ok {
		switch strings.ToLower(v) {
		case "lf", "crlf", "native":
			c.eol = strings.ToLower(v)
		}
	}
	c.safecrlf = "warn"
	if v, ok := get("core.safecrlf"); ok {
		switch {
		case strings.EqualFold(v, "warn"):
		case gitBool(v):
			c.safecrlf = "true"
		default:
			c.safecrlf = "false"
		}
	}
	rt := "SHIFT-JIS"
	if v, ok := get("core.checkroundtripencoding"); ok {
		rt = v
	}
	for _, e := range strings.FieldsFunc(rt, func(r rune) bool { return r == ',' || r == ' ' }) {
		c.roundtrip[strings.ToUpper(e)] = true
	}
	return c
}

func gitBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "":
		return true
	case "false", "no", "off":
		return false
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return err == nil && n != 0
}

// SafeCRLF is core.safecrlf: "true" refuses, "warn" warns, "false".
func (c *Converter) SafeCRLF() string { return c.safecrlf }

// Plan is what git does to one path between the working tree and git, as
// data. Two plans that are equal convert alike.
type Plan struct {
	Path   string
	Action Action
	// EOLFrom names what decided the line endings, for a human:
	// "core.autocrlf=true", "eol=crlf", "text=auto", "text with
	// core.eol=crlf", …; "" when Action is Binary.
	EOLFrom  string
	Ident    bool
	Encoding string // working-tree-encoding, upper case; "" for none
	// FilterName is the filter attribute's value ("" for none); Filter
	// its driver, nil when the configuration defines none (the bytes
	// pass through, as in git).
	FilterName string
	Filter     *Driver
}

// Identity reports that nothing converts this path in either direction.
func (p Plan) Identity() bool {
	return p.Action == Binary && !p.Ident && p.Encoding == "" && p.Filter == nil
}

// Filters reports that a filter program converts this path.
func (p Plan) Filters() bool { return p.Filter != nil }

// textEOLIsCRLF is git's text_eol_is_crlf, with what decided it.
func (c *Converter) textEOLIsCRLF() (bool, string) {
	switch c.autocrlf {
	case "true":
		return true, "core.autocrlf=true"
	case "input":
		return false, "core.autocrlf=input"
	}
	switch c.eol {
	case "crlf":
		return true, "core.eol=crlf"
	case "lf":
		return false, "core.eol=lf"
	}
	if c.opt.NativeCRLF {
		return true, "the native CRLF"
	}
	return false, ""
}

// Plan resolves the attributes and configuration for path p, as git's
// convert_attrs does. It runs nothing.
func (c *Converter) Plan(p string) Plan {
	pl := Plan{Path: p}
	var a map[string]Attr
	if c.opt.Attrs != nil {
		a = c.opt.Attrs.Lookup(p)
	}
	const (
		undefined = iota
		text
		auto
		binary
		input
	)
	check := func(v Attr) int {
		switch {
		case v.State == Set:
			return text
		case v.State == Unset:
			return binary
		case v.IsValue("input"):
			return input
		case v.IsValue("auto"):
			return auto
		}
		return undefined
	}
	act, from := check(a["text"]), a["text"].String("text")
	if act == undefined {
		act, from = check(a["crlf"]), a["crlf"].String("crlf")
	}
	pl.Ident = a["ident"].State == Set
	if fa := a["filter"]; fa.State == Value {
		pl.FilterName = fa.Value
		pl.Filter = c.driver(fa.Value)
	}
	action := Binary
	switch act {
	case binary:
		from = ""
	case input:
		action = TextInput
	}
	if act != binary {
		eol := a["eol"]
		switch {
		case act == auto && eol.IsValue("lf"):
			action, from, act = AutoInput, "text=auto eol=lf", -1
		case act == auto && eol.IsValue("crlf"):
			action, from, act = AutoCRLF, "text=auto eol=crlf", -1
		case eol.IsValue("lf"):
			action, from = TextInput, joinFrom(from, "eol=lf")
			act = -1
		case eol.IsValue("crlf"):
			action, from = TextCRLF, joinFrom(from, "eol=crlf")
			act = -1
		}
		if act == text || act == auto {
			crlf, why := c.textEOLIsCRLF()
			switch {
			case act == text && crlf:
				action = TextCRLF
			case act == text:
				action = TextInput
			case crlf:
				action = AutoCRLF
			default:
				action = AutoInput
			}
			if why != "" {
				from += " with " + why
			}
		}
		if act == undefined {
			switch c.autocrlf {
			case "true":
				action, from = AutoCRLF, "core.autocrlf=true"
			case "input":
				action, from = AutoInput, "core.autocrlf=input"
			}
		}
	}
	pl.Action, pl.EOLFrom = action, from
	if action == Binary {
		pl.EOLFrom = ""
	}
	pl.Encoding = encodingName(a["working-tree-encoding"])
	return pl
}

func joinFrom(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

func (c *Converter) driver(name string) *Driver {
	get := func(k string) (string, bool) {
		if c.opt.Config == nil {
			return "", false
		}
		return c.opt.Config.Get("filter." + name + "." + k)
	}
	d := &Driver{Name: name}
	any := false
	for _, k := range []struct {
		key string
		dst *string
	}{{"clean", &d.Clean}, {"smudge", &d.Smudge}, {"process", &d.Process}} {
		if v, ok := get(k.key); ok {
			*k.dst, any = v, true
		}
	}
	if v, ok := get("required"); ok {
		d.Required, any = gitBool(v), true
	}
	if !any {
		return nil
	}
	return d
}

// Warning is something git would print on its way and go on: a
// round trip that core.safecrlf=warn reports, or a filter that failed
// without being required (the bytes passed through).
type Warning struct {
	Path      string
	RoundTrip RoundTrip    // set for a safecrlf warning
	Filter    *FilterError // set for a filter that failed
}

// SafeCRLFError is core.safecrlf=true refusing a conversion that would
// not round-trip.
type SafeCRLFError struct {
	Path      string
	RoundTrip RoundTrip
}

func (e *SafeCRLFError) Error() string {
	if e.RoundTrip == CRLFBecomesLF {
		return "CRLF would be replaced by LF in " + e.Path
	}
	return "LF would be replaced by CRLF in " + e.Path
}

// ToGit is what `git add` stores for the working-tree bytes src at the
// plan's path: the clean filter, then the encoding, then line endings
// (with core.safecrlf's round-trip check), then ident. index is the blob
// the index holds at the path (nil for none), which text=auto reads.
func (c *Converter) ToGit(pl Plan, src, index []byte) ([]byte, []Warning, error) {
	var warns []Warning
	out, w, err := c.filter(pl, src, true)
	if err != nil {
		return nil, nil, err
	}
	if w != nil {
		warns = append(warns, *w)
	}
	if out, err = encodeToGit(pl.Path, out, pl.Encoding, c.roundtrip[pl.Encoding]); err != nil {
		return nil, nil, err
	}
	out, rt := crlfToGit(out, index, pl.Action)
	if w, err := c.safe(pl.Path, rt); err != nil {
		return nil, nil, err
	} else if w != nil {
		warns = append(warns, *w)
	}
	return identToGit(out, pl.Ident), warns, nil
}

// Normalize is what nika stores for bytes in git's form that a change
// produced (a patch applied to the blob, as git apply --index does): the
// line endings git normalizes are normalized, and core.safecrlf judges
// only bytes that carry CRLF (LF-only text is git's form already). No
// filter and no encoding runs: the bytes are past them.
func (c *Converter) Normalize(pl Plan, b, index []byte) ([]byte, []Warning, error) {
	out, rt := crlfToGit(b, index, pl.Action)
	if gather(b).crlf == 0 {
		rt = RoundTripOK
	}
	w, err := c.safe(pl.Path, rt)
	if err != nil {
		return nil, nil, err
	}
	var warns []Warning
	if w != nil {
		warns = append(warns, *w)
	}
	return identToGit(out, pl.Ident), warns, nil
}

func (c *Converter) safe(p string, rt RoundTrip) (*Warning, error) {
	if rt == RoundTripOK {
		return nil, nil
	}
	switch c.safecrlf {
	case "true":
		return nil, &SafeCRLFError{Path: p, RoundTrip: rt}
	case "warn":
		return &Warning{Path: p, RoundTrip: rt}, nil
	}
	return nil, nil
}

// ToWorkTree is what `git checkout` writes for the blob b at the plan's
// path: ident, then line endings, then the encoding, then the smudge
// filter.
func (c *Converter) ToWorkTree(pl Plan, b []byte) ([]byte, []Warning, error) {
	out := identToWorkTree(b, pl.Ident)
	out = crlfToWorkTree(out, pl.Action)
	out, err := encodeToWorkTree(pl.Path, out, pl.Encoding)
	if err != nil {
		return nil, nil, err
	}
	out, w, err := c.filter(pl, out, false)
	if err != nil {
		return nil, nil, err
	}
	if w != nil {
		return out, []Warning{*w}, nil
	}
	return out, nil, nil
}

// filter runs the plan's driver in one direction. A driver with no
// command for it passes the bytes through unless it is required; a
// failure is an error when required, a warning (and the bytes unchanged)
// otherwise, as in git.
func (c *Converter) filter(pl Plan, src []byte, toGit bool) ([]byte, *Warning, error) {
	d := pl.Filter
	if d == nil {
		return src, nil, nil
	}
	cmd, kind := d.Command(toGit)
	fe := &FilterError{Path: pl.Path, Driver: d.Name, Command: cmd, Clean: toGit, Required: d.Required}
	fail := func(why string) ([]byte, *Warning, error) {
		fe.Why = why
		if d.Required {
			return nil, nil, fe
		}
		return src, &Warning{Path: pl.Path, Filter: fe}, nil
	}
	switch kind {
	case "":
		if d.Required {
			return fail("the driver has no command for it")
		}
		return src, nil, nil
	case "process":
		p, err := c.proc(d)
		if err != nil {
			return fail(err.Error())
		}
		command := "smudge"
		if toGit {
			command = "clean"
		}
		c.mu.Lock()
		out, ok, err := p.run(command, pl.Path, src)
		c.mu.Unlock()
		switch {
		case err != nil:
			return fail(err.Error())
		case !ok && d.Required:
			return fail("the filter process has no " + command + " capability")
		case !ok:
			return src, nil, nil
		}
		return out, nil, nil
	}
	out, why := runSingle(cmd, pl.Path, c.opt.Root, c.opt.Env, src)
	if why != "" {
		return fail(why)
	}
	return out, nil, nil
}

func (c *Converter) proc(d *Driver) (*process, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.procs[d.Name]; p != nil {
		return p, nil
	}
	if err := c.procErr[d.Name]; err != nil {
		return nil, err
	}
	p, err := startProcess(d.Process, c.opt.Root, c.opt.Env)
	if err != nil {
		err = fmt.Errorf("cannot start the filter process: %v", err)
		c.procErr[d.Name] = err
		return nil, err
	}
	c.procs[d.Name] = p
	return p, nil
}

// Close ends the long-running filter processes.
func (c *Converter) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for name, p := range c.procs {
		if err := p.close(); err != nil && first == nil {
			first = fmt.Errorf("filter process %s: %v", name, err)
		}
		delete(c.procs, name)
	}
	return first
}

// hasIdent is git's count_ident: a $Id$ or $Id:…$ on one line.
func hasIdent(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '$' || i+3 >= len(b) || b[i+1] != 'I' || b[i+2] != 'd' {
			continue
		}
		switch b[i+3] {
		case '$':
			return true
		case ':':
			rest := b[i+4:]
			j := bytes.IndexByte(rest, '$')
			if j >= 0 && bytes.IndexByte(rest[:j], '\n') < 0 {
				return true
			}
		}
	}
	return false
}

// identToGit collapses $Id: …$ to $Id$.
func identToGit(b []byte, on bool) []byte {
	if !on || !hasIdent(b) {
		return b
	}
	var out []byte
	src := b
	for {
		d := bytes.IndexByte(src, '$')
		if d < 0 {
			break
		}
		out = append(out, src[:d+1]...)
		src = src[d+1:]
		if len(src) > 3 && bytes.HasPrefix(src, []byte("Id:")) {
			e := bytes.IndexByte(src[3:], '$')
			if e < 0 {
				break
			}
			if bytes.IndexByte(src[3:3+e], '\n') >= 0 {
				continue
			}
			out = append(out, "Id$"...)
			src = src[3+e+1:]
		}
	}
	return append(out, src...)
}

// identToWorkTree expands $Id$ to $Id: <blob id> $.
func identToWorkTree(b []byte, on bool) []byte {
	if !on || !hasIdent(b) {
		return b
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	oid := hex.EncodeToString(h.Sum(nil))
	var out []byte
	src := b
	for {
		d := bytes.IndexByte(src, '$')
		if d < 0 {
			break
		}
		out = append(out, src[:d+1]...)
		src = src[d+1:]
		if len(src) < 3 || src[0] != 'I' || src[1] != 'd' {
			continue
		}
		switch src[2] {
		case '$':
			src = src[3:]
		case ':':
			e := bytes.IndexByte(src[3:], '$')
			if e < 0 {
				return append(out, src...)
			}
			if bytes.IndexByte(src[3:3+e], '\n') >= 0 {
				continue
			}
			src = src[3+e+1:]
		default:
			continue
		}
		out = append(out, "Id: "+oid+" $"...)
	}
	return append(out, src...)
}
