package changeset

import (
	"strings"
	"unicode"
	"unicode/utf8"

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

// ParsePath validates a path a proposal names. Every refusal is Invalid or
// NotAllowed and quotes the path.
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
		if isGitName(c) {
			return "", refusal.New(refusal.NotAllowed, "nika never writes git's own files", "path %s is inside .git", q)
		}
		if isShortNikaName(c) {
			return "", refusal.New(refusal.NotAllowed, "rename the directory", "path %s uses %q, the Windows short name of .nika, where the hooks that judge an apply live", q, c)
		}
		if r, ok := invisible(c); ok {
			return "", refusal.New(refusal.Invalid, "name the file with visible characters", "path %s contains the invisible character %U, which some filesystems drop", q, r)
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

// MustPath is ParsePath for constants in tests and tables; it panics on error.
func MustPath(s string) Path {
	p, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

// isGitName reports whether a path component would be taken as ".git" by
// git itself on some filesystem: any case, HFS+ ignorable code points, NTFS
// trailing dots and spaces, and the 8.3 short name GIT~1.
func isGitName(c string) bool {
	// An NTFS stream suffix (".git::$INDEX_ALLOCATION") names the same
	// directory on Windows.
	if i := strings.IndexByte(c, ':'); i >= 0 {
		c = c[:i]
	}
	var b strings.Builder
	for _, r := range c {
		if isIgnorable(r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	n := strings.TrimRight(b.String(), ". ")
	return n == ".git" || n == "git~1"
}

// isIgnorable lists the code points HFS+ drops when comparing names, which
// git treats as invisible in ".git" (see git's is_hfs_dotgit).
func isIgnorable(r rune) bool {
	switch r {
	case 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
		0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff, 0x200b:
		return true
	}
	return false
}

// isShortNikaName reports NIKA~1 to NIKA~9, the 8.3 names Windows may give
// .nika: a path through one reaches .nika/hooks past the policy's check,
// as git~1 reaches .git.
func isShortNikaName(c string) bool {
	n := strings.ToLower(c)
	return len(n) == 6 && strings.HasPrefix(n, "nika~") && n[5] >= '1' && n[5] <= '9'
}

// invisible finds a code point that HFS+ ignores in names or that reorders
// text (bidirectional controls): a name holding one can look like, or be
// stored as, another name.
func invisible(c string) (rune, bool) {
	for _, r := range c {
		if isIgnorable(r) || (r >= 0x2066 && r <= 0x2069) {
			return r, true
		}
	}
	return 0, false
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
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isIgnorable(r):
			b.WriteString(`\u`)
			b.WriteString(uHex(r))
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

func uHex(r rune) string {
	const h = "0123456789abcdef"
	return string([]byte{h[(r>>12)&15], h[(r>>8)&15], h[(r>>4)&15], h[r&15]})
}

// Quote renders a path for error texts.
func Quote(s string) string { return quote(s) }
