// Package hostpath is the one scrubber of host paths that every door of
// nika uses before a text reaches machine output: the --json of every verb,
// the stdio protocol, the session's refusals (a reasoner's or a runner's
// error text), and the hooks' output that is recorded into a git note (and
// from there reaches nika log --json and every clone the notes are pushed
// to).
//
// Why a package of its own: law 7 says machine output never holds an
// absolute path of the host. A path of the host tells a reader who the
// user is (/home/ada), how the machine is laid out, and where the project
// lives; it also makes outputs differ between machines for the same
// project. The rule is the same at every door, so it lives once, in a leaf
// that imports nothing of nika:
//
//   - a path under the work tree becomes relative to it (the root itself
//     is ".");
//   - a path under the home directory becomes <home>/…;
//   - a path under a temporary directory (TMPDIR, /tmp, a directory the
//     caller names as temporary) becomes <tmp>/…;
//   - in free text (Text), any other absolute path becomes <path>, and so
//     does every directory on PATH.
//
// Known rewrites only the places this machine is known to have (the work
// tree, its git directories, home, the temporary directories), and so is
// safe on any bytes, a preview included: a file that does not hold one of
// them is not changed. Text also rewrites every other absolute path, for
// texts that came from a program (an error message, a hook's output, a
// reasoner's stderr), where a path can be anything.
package hostpath

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Scrubber rewrites host paths. The zero value rewrites only absolute
// paths in Text.
type Scrubber struct {
	known []place // longest prefix first
	path  []place // the directories on PATH, for Text
}

type place struct {
	prefix string
	// repl replaces the prefix; rel means "relative to the work tree":
	// the prefix followed by a slash is removed, the prefix alone is ".".
	repl string
	rel  bool
}

// Options name the places beyond the work tree. Empty fields are read
// from the environment (HOME, TMPDIR and os.TempDir(), PATH).
type Options struct {
	// Also are more directories inside the work tree's repository (a git
	// directory elsewhere, a common directory): they become relative to
	// the root where they lie under it, and <path> otherwise.
	Also []string
	// Temp are more temporary directories (a hook's private directory).
	Temp []string
	// Home overrides HOME.
	Home string
	// Path are more directories that a program was told to search (a
	// hook's PATH), beside those of PATH.
	Path []string
}

// New builds the scrubber for a work tree root ("" for none).
func New(root string, opt Options) Scrubber {
	var s Scrubber
	add := func(list *[]place, p string, repl string, rel bool) {
		for _, v := range variants(p) {
			*list = append(*list, place{prefix: v, repl: repl, rel: rel})
		}
	}
	if root != "" {
		add(&s.known, root, "", true)
		for _, a := range opt.Also {
			for _, v := range variants(a) {
				for _, r := range variants(root) {
					if rel, err := filepath.Rel(r, v); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
						s.known = append(s.known, place{prefix: v, repl: filepath.ToSlash(rel)})
					} else {
						s.known = append(s.known, place{prefix: v, repl: "<path>"})
					}
				}
			}
		}
	}
	home := opt.Home
	if home == "" {
		home = os.Getenv("HOME")
	}
	add(&s.known, home, "<home>", false)
	temps := append([]string{os.Getenv("TMPDIR"), os.TempDir(), "/tmp", "/var/tmp"}, opt.Temp...)
	for _, t := range temps {
		add(&s.known, t, "<tmp>", false)
	}
	for _, d := range append(filepath.SplitList(os.Getenv("PATH")), opt.Path...) {
		add(&s.path, d, "<path>", false)
	}
	sortPlaces(s.known)
	sortPlaces(s.path)
	return s
}

// variants are the spellings of an absolute directory: as given, cleaned,
// and with its symlinks resolved (/tmp may be /private/tmp). "/" and
// relative paths give none: they are no place of their own.
func variants(p string) []string {
	if p == "" || !filepath.IsAbs(p) {
		return nil
	}
	var out []string
	for _, v := range []string{p, filepath.Clean(p)} {
		out = append(out, v)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		out = append(out, r)
	}
	var keep []string
	seen := map[string]bool{}
	for _, v := range out {
		v = strings.TrimRight(v, "/")
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		keep = append(keep, v)
	}
	return keep
}

func sortPlaces(ps []place) {
	sort.SliceStable(ps, func(i, j int) bool { return len(ps[i].prefix) > len(ps[j].prefix) })
}

// Known rewrites the known places of this machine: the work tree, its git
// directories, home and the temporary directories.
func (s Scrubber) Known(text string) string {
	return rewrite(text, s.known)
}

// absRe finds an absolute path of at least two components in free text.
// It does not start inside a word, a URL (scheme://host/path) or a
// placeholder this package wrote (<tmp>/x).
var absRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.~+@%/<>-])(/[A-Za-z0-9_.~+@%-][A-Za-z0-9_.~+@%,=-]*(?:/[A-Za-z0-9_.~+@%,=-]+)+/?)`)

// Text rewrites the known places, every directory on PATH, and then every
// other absolute path, for a text that came from a program.
func (s Scrubber) Text(text string) string {
	text = rewrite(text, s.known)
	text = rewrite(text, s.path)
	if !strings.Contains(text, "/") {
		return text
	}
	return absRe.ReplaceAllStringFunc(text, func(m string) string {
		i := strings.IndexByte(m, '/')
		return m[:i] + "<path>"
	})
}

// pathByte reports whether c can continue a path name.
func pathByte(c byte) bool {
	return c == '/' || c == '.' || c == '_' || c == '-' || c == '~' || c == '+' || c == '@' || c == '%' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

// rewrite replaces each place where it stands as a whole path prefix: not
// inside a longer name (/tmpfoo, /x/tmp), and followed by a slash or by a
// byte that ends a path.
func rewrite(text string, places []place) string {
	for _, p := range places {
		if !strings.Contains(text, p.prefix) {
			continue
		}
		var b strings.Builder
		rest := text
		for {
			i := strings.Index(rest, p.prefix)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			end := i + len(p.prefix)
			before := byte(0)
			if i > 0 {
				before = rest[i-1]
			}
			after := byte(0)
			if end < len(rest) {
				after = rest[end]
			}
			if (before != 0 && pathByte(before) && before != '/') || before == '/' || (after != 0 && after != '/' && pathByte(after)) {
				b.WriteString(rest[:end])
				rest = rest[end:]
				continue
			}
			b.WriteString(rest[:i])
			switch {
			case p.rel && after == '/':
				// root/x → x
				end++
			case p.rel:
				b.WriteString(".")
			default:
				b.WriteString(p.repl)
			}
			rest = rest[end:]
		}
		text = b.String()
	}
	return text
}
