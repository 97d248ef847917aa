package gitstage

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/nika-dev/nika/changeset"
)

// attributes answers which git attributes apply to a path, reading only the
// .gitattributes files on that path's directories (from HEAD) and
// .git/info/attributes. nika reads them to refuse paths whose bytes git
// would convert (filters, eol), never to run a filter.
type attributes struct {
	b     *Base
	files map[string][]attrLine // dir -> lines of dir/.gitattributes
	info  []attrLine
}

type attrLine struct {
	dir     string // the directory of the attributes file, "" for root
	pattern string
	attrs   [][2]string
}

func newAttributes(r *Repo, b *Base) *attributes {
	a := &attributes{b: b, files: map[string][]attrLine{}}
	if data, err := os.ReadFile(filepath.Join(r.CommonDir, "info", "attributes")); err == nil {
		a.info = parseAttrs("", data)
	}
	return a
}

func (a *attributes) load(dir string) []attrLine {
	if ls, ok := a.files[dir]; ok {
		return ls
	}
	var ls []attrLine
	p := ".gitattributes"
	if dir != "" {
		p = dir + "/.gitattributes"
	}
	if te, err := a.b.treeEntry(p); err == nil && te != nil && te.Mode != filemode.Dir {
		if data, err := a.b.r.ReadBlob(te.Hash); err == nil {
			ls = parseAttrs(dir, data)
		}
	}
	a.files[dir] = ls
	return ls
}

func parseAttrs(dir string, data []byte) []attrLine {
	var out []attrLine
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "[attr]") {
			continue
		}
		l := attrLine{dir: dir, pattern: fields[0]}
		for _, f := range fields[1:] {
			switch {
			case f == "binary":
				l.attrs = append(l.attrs, [2]string{"text", "false"}, [2]string{"diff", "false"})
			case strings.HasPrefix(f, "-"):
				l.attrs = append(l.attrs, [2]string{f[1:], "false"})
			case strings.HasPrefix(f, "!"):
				l.attrs = append(l.attrs, [2]string{f[1:], "unset"})
			case strings.Contains(f, "="):
				k, v, _ := strings.Cut(f, "=")
				l.attrs = append(l.attrs, [2]string{k, v})
			default:
				l.attrs = append(l.attrs, [2]string{f, "true"})
			}
		}
		out = append(out, l)
	}
	return out
}

func (l attrLine) matches(p string) bool {
	rel := p
	if l.dir != "" {
		if !strings.HasPrefix(p, l.dir+"/") {
			return false
		}
		rel = p[len(l.dir)+1:]
	}
	pat := strings.TrimPrefix(l.pattern, "/")
	if !strings.Contains(strings.TrimSuffix(l.pattern, "/"), "/") {
		base := rel
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			base = rel[i+1:]
		}
		return changeset.MatchGlob(pat, base)
	}
	return changeset.MatchGlob(pat, rel)
}

// lookup returns the attributes that apply to p (later, deeper and
// info/attributes lines win).
func (a *attributes) lookup(p string) map[string]string {
	out := map[string]string{}
	dirs := []string{""}
	comps := strings.Split(p, "/")
	for i := 1; i < len(comps); i++ {
		dirs = append(dirs, strings.Join(comps[:i], "/"))
	}
	apply := func(ls []attrLine) {
		for _, l := range ls {
			if l.matches(p) {
				for _, kv := range l.attrs {
					out[kv[0]] = kv[1]
				}
			}
		}
	}
	for _, d := range dirs {
		apply(a.load(d))
	}
	apply(a.info)
	return out
}
