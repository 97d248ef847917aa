package changeset

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/nika-dev/nika/refusal"
)

// Path is a validated repo-relative path: slash-separated, clean, and free of
// every form that could reach outside the worktree or into git's own files.
// The zero Path is invalid; build one with ParsePath.
type Path string

// Limits on a path, as git and common filesystems bound them.
const (
	MaxPathBytes      = 4095
	MaxComponentBytes = 255
)

func (p Path) String() string { return string(p) }

// Base is the last component.
func (p Path) Base() string {
	s := string(p)
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Dir is everything before the last component, "" at the root.
func (p Path) Dir() string {
	s := string(p)
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[:i]
	}
	return ""
}

// Components splits the path on '/'.
func (p Path) Components() []string { return strings.Split(string(p), "/") }

// ParsePath is nika's one path rule: every door and every parser reaches
// a path through it (changeset.Resolve calls it for each intent, the hooks
// and the session for the paths they name). It validates a path a proposal
// names and refuses, before anything is staged, every form that could
// reach outside the worktree, into git's own files, or name another file
// than it shows. Every refusal is Invalid or NotAllowed and quotes the
// path; the comparisons under case folding (.git, and with FoldKey the
// hooks and collisions) use FoldName, the name a folding filesystem sees.
func ParsePath(s string) (Path, error) {
	q := quote(s)
	hint := "name a file relative to the repository root, like dir/file.nika.yaml"
	switch {
	case s == "":
		return "", refusal.New(refusal.Invalid, hint, "empty path")
	case !utf8.ValidString(s):
		return "", refusal.New(refusal.Invalid, hint, "path %s is not valid UTF-8", q)
	case len(s) > MaxPathBytes:
		return "", refusal.New(refusal.Invalid, "use a shorter path", "path %s is %d bytes, over the limit of %d", q, len(s), MaxPathBytes)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return "", refusal.New(refusal.Invalid, hint, "path %s contains a control character (%U)", q, r)
		}
	}
	if strings.ContainsRune(s, '\\') {
		return "", refusal.New(refusal.Invalid, "separate directories with /", "path %s contains a backslash", q)
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") {
		return "", refusal.New(refusal.NotAllowed, hint, "path %s is absolute", q)
	}
	if len(s) >= 2 && s[1] == ':' && isASCIILetter(s[0]) {
		return "", refusal.New(refusal.NotAllowed, hint, "path %s starts with a drive letter", q)
	}
	if strings.HasSuffix(s, "/") {
		return "", refusal.New(refusal.Invalid, hint, "path %s names a directory, not a file", q)
	}
	for _, c := range strings.Split(s, "/") {
		switch c {
		case "":
			return "", refusal.New(refusal.Invalid, hint, "path %s has an empty component", q)
		case ".":
			return "", refusal.New(refusal.Invalid, hint, "path %s has a '.' component", q)
		case "..":
			return "", refusal.New(refusal.NotAllowed, hint, "path %s contains '..' and could leave the repository", q)
		}
		if len(c) > MaxComponentBytes {
			return "", refusal.New(refusal.Invalid, "use a shorter name", "path %s has a component of %d bytes, over the limit of %d", q, len(c), MaxComponentBytes)
		}
		// .git first: a disguise of it (an invisible character, a case
		// fold, a trailing dot, a stream, a short name) is named as what
		// it reaches.
		if isGitName(c) {
			return "", refusal.New(refusal.NotAllowed, "nika never writes git's own files", "path %s is inside .git", q)
		}
		if ShortNameOf(c, ".nika") {
			return "", refusal.New(refusal.NotAllowed, "rename the directory", "path %s uses %q, the Windows short name of .nika, where the hooks that judge an apply live", q, c)
		}
		for _, r := range c {
			if Invisible(r) {
				return "", refusal.New(refusal.NotAllowed, "name the file with visible characters only",
					"path %s contains the invisible character %U, which a terminal shows as nothing and a filesystem may drop, so the name could show or act as another", q, r)
			}
		}
		if last := c[len(c)-1]; last == '.' || last == ' ' {
			return "", refusal.New(refusal.Invalid, "rename the file", "path %s has a name that ends in %q, which Windows drops, so it would name another file", q, string(last))
		}
		if strings.Contains(c, ":") {
			return "", refusal.New(refusal.Invalid, hint, "path %s has a ':' in a name, which some filesystems read as a stream", q)
		}
		if isWindowsReserved(c) {
			return "", refusal.New(refusal.NotAllowed, "rename the file", "path %s uses the reserved device name %q", q, c)
		}
	}
	return Path(s), nil
}

// folder is Unicode full case folding (CaseFolding.txt, statuses C and F:
// "ſ" folds to "s", "ß" to "ss", "K" (Kelvin) to "k"). It is stateless
// and safe for concurrent use.
var folder = cases.Fold()

// FoldName is the name that a case-insensitive or normalizing filesystem
// sees for one path component, the key under which two names are the same
// file somewhere: NTFS drops an alternate data stream suffix
// (":stream:$TYPE") and trailing dots and spaces; HFS+ and APFS ignore
// default-ignorable code points and compare under normalization; NTFS,
// APFS, HFS+ and Linux casefold directories compare case-insensitively.
// FoldName applies all of them: the stream cut, the invisible code points
// dropped, NFC, Unicode full case folding, NFC again, and the trailing dots
// and spaces dropped. It folds more than any one filesystem does, which is
// the safe side for a refusal.
func FoldName(c string) string {
	if ascii(c) {
		// Plain ASCII: NFC is the identity and full case folding is
		// lower case, so only those need doing (the common path, and
		// free of allocations for a name already in lower case).
		if strings.ContainsFunc(c, func(r rune) bool { return r >= 'A' && r <= 'Z' }) {
			c = strings.ToLower(c)
		}
		return strings.TrimRight(c, ". ")
	}
	if i := strings.IndexByte(c, ':'); i >= 0 {
		c = c[:i]
	}
	if strings.IndexFunc(c, Invisible) >= 0 {
		c = strings.Map(func(r rune) rune {
			if Invisible(r) {
				return -1
			}
			return r
		}, c)
	}
	c = norm.NFC.String(folder.String(norm.NFC.String(c)))
	return strings.TrimRight(c, ". ")
}

// ascii reports a name of ASCII bytes with no ':' (no stream suffix).
func ascii(c string) bool {
	for i := 0; i < len(c); i++ {
		if c[i] >= 0x80 || c[i] == ':' {
			return false
		}
	}
	return true
}

// FoldKey is FoldName of every component of a slash path, joined by "/":
// two paths with the same key are the same file on some filesystem.
func FoldKey(p string) string {
	if !strings.Contains(p, "/") {
		return FoldName(p)
	}
	cs := strings.Split(p, "/")
	for i, c := range cs {
		cs[i] = FoldName(c)
	}
	return strings.Join(cs, "/")
}

// isGitName reports whether a path component would be taken as ".git" on
// some filesystem (git's is_hfs_dotgit and is_ntfs_dotgit, widened): any
// case fold, invisible code points, NTFS trailing dots, spaces and streams,
// and the 8.3 short names of .git.
func isGitName(c string) bool {
	return FoldName(c) == ".git" || ShortNameOf(c, ".git")
}

// ShortNameOf reports whether component c (folded) is a Windows 8.3 short
// name that the long name long may be given: the name without its dots,
// cut to six characters, then "~N" for any N from 1 ("GIT~1", "git~12",
// "NIKA~3"), or, after four collisions, its first two characters, four hex
// digits of a hash and "~N" ("GI7EBA~1"). Windows picks N, and the hash,
// when the long name is created, so any of them may name it.
func ShortNameOf(c, long string) bool {
	n := FoldName(c)
	stem, num, ok := strings.Cut(n, "~")
	if !ok || num == "" || num[0] < '1' || num[0] > '9' || strings.Trim(num, "0123456789") != "" {
		return false
	}
	base := strings.ReplaceAll(FoldName(long), ".", "")
	if len(base) > 6 {
		base = base[:6]
	}
	if stem == base {
		return true
	}
	return len(base) >= 2 && len(stem) == 6 && stem[:2] == base[:2] && strings.Trim(stem[2:], "0123456789abcdef") == ""
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// isWindowsReserved reports DOS device names, with or without an extension.
func isWindowsReserved(c string) bool {
	stem := strings.ToUpper(c)
	if i := strings.IndexByte(stem, '.'); i >= 0 {
		stem = stem[:i]
	}
	stem = strings.TrimRight(stem, " ")
	switch stem {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if n, ok := strings.CutPrefix(stem, "COM"); ok && isPortDigit(n) {
		return true
	}
	if n, ok := strings.CutPrefix(stem, "LPT"); ok && isPortDigit(n) {
		return true
	}
	return false
}

// isPortDigit reports the digits Windows accepts after COM and LPT: 1 to 9
// and the superscripts ¹, ² and ³.
func isPortDigit(s string) bool {
	switch s {
	case "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u00b9", "\u00b2", "\u00b3":
		return true
	}
	return false
}

// quote renders a path for a human: printable as is, escaped otherwise.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || Invisible(r):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += n
		if b.Len() > 200 {
			b.WriteString("…")
			break
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hex2(c byte) string {
	const h = "0123456789abcdef"
	return string([]byte{h[c>>4], h[c&15]})
}

// Quote renders a path for error texts.
func Quote(s string) string { return quote(s) }
