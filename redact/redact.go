package redact

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// Redaction is one secret removed from a part of the bundle.
type Redaction struct {
	// Where names the part: "question", "facts", "dialogue", "diagnostics",
	// or "file PATH".
	Where string `json:"where"`
	Line  int    `json:"line"`
	Kind  string `json:"kind"`
}

// Kinds of nika's own rule; the detector's kinds are its rule ids
// (aws-access-token, gitlab-pat, slack-webhook-url, …).
const (
	KindSecretField = "secret-field"
	KindURLPassword = "url-password"
)

var (
	detectorOnce sync.Once
	detector     *detect.Detector
	detectorMu   sync.Mutex
)

// secretDetector is the gitleaks detector with its default rules, built
// once (about 30 ms). Its logger is silenced: a log line can hold the
// very secret it found.
func secretDetector() *detect.Detector {
	detectorOnce.Do(func() {
		logging.Logger = zerolog.Nop()
		d, err := detect.NewDetectorDefaultConfig()
		if err != nil {
			panic("the secret detector's default rules do not load: " + err.Error())
		}
		d.MaxDecodeDepth = 2 // base64/hex/percent-encoded secrets too
		detector = d
	})
	return detector
}

type span struct {
	start, end int
	kind       string
}

// Redact removes the secrets from text and says, per secret, its kind and
// line (Where is left empty for the caller). A session sends the files it
// was told about with every question, so the result for a text is kept
// (a few dozen of them): the detector costs about 15 ms for 32 KiB of a
// workflow, and up to a quarter of a second for 32 KiB dense with secrets.
func Text(text string) (string, []Redaction) {
	if text == "" {
		return text, nil
	}
	if len(text) < 512 {
		return redact(text)
	}
	key := sha256.Sum256([]byte(text))
	cacheMu.Lock()
	if c, ok := cache[key]; ok {
		cacheMu.Unlock()
		return c.out, append([]Redaction(nil), c.rs...)
	}
	cacheMu.Unlock()
	out, rs := redact(text)
	cacheMu.Lock()
	if len(cache) >= maxCache {
		for k := range cache {
			delete(cache, k)
			break
		}
	}
	cache[key] = cached{out, rs}
	cacheMu.Unlock()
	return out, append([]Redaction(nil), rs...)
}

type cached struct {
	out string
	rs  []Redaction
}

const maxCache = 32

var (
	cacheMu sync.Mutex
	cache   = map[[32]byte]cached{}
)

func redact(text string) (string, []Redaction) {
	spans := detectorSpans(text)
	spans = append(spans, structuralSpans(text)...)
	spans = append(spans, urlSpans(text)...)
	if len(spans) == 0 {
		return text, nil
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var merged []span
	for _, s := range spans {
		if s.start >= s.end {
			continue
		}
		if n := len(merged); n > 0 && s.start < merged[n-1].end {
			if s.end > merged[n-1].end {
				merged[n-1].end = s.end
			}
			continue
		}
		merged = append(merged, s)
	}
	var b strings.Builder
	var out []Redaction
	pos := 0
	for _, s := range merged {
		b.WriteString(text[pos:s.start])
		b.WriteString("[redacted " + s.kind + "]")
		out = append(out, Redaction{Line: 1 + strings.Count(text[:s.start], "\n"), Kind: s.kind})
		pos = s.end
	}
	b.WriteString(text[pos:])
	return b.String(), out
}

// detectorSpans are the detector's findings, located in text. A secret it
// found is redacted wherever it occurs, not only where it was found.
func detectorSpans(text string) []span {
	d := secretDetector()
	detectorMu.Lock() // the detector keeps its findings: one scan at a time
	findings := d.DetectString(text)
	detectorMu.Unlock()
	lineStarts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	var out []span
	for _, f := range findings {
		sec := f.Secret
		if sec == "" || isReference(sec) {
			continue
		}
		if len(sec) >= 8 {
			for i := 0; ; {
				j := strings.Index(text[i:], sec)
				if j < 0 {
					break
				}
				out = append(out, span{i + j, i + j + len(sec), f.RuleID})
				i += j + len(sec)
			}
			continue
		}
		// A short secret: only where it was found.
		if f.StartLine >= 0 && f.StartLine < len(lineStarts) {
			ls := lineStarts[f.StartLine]
			le := len(text)
			if f.StartLine+1 < len(lineStarts) {
				le = lineStarts[f.StartLine+1]
			}
			if k := strings.Index(text[ls:le], sec); k >= 0 {
				out = append(out, span{ls + k, ls + k + len(sec), f.RuleID})
			}
		}
	}
	return out
}

var urlCredRe = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'<>]+:([^\s@/"'<>]+)@`)

func urlSpans(text string) []span {
	var out []span
	for _, m := range urlCredRe.FindAllStringSubmatchIndex(text, -1) {
		if !isReference(text[m[2]:m[3]]) {
			out = append(out, span{m[2], m[3], KindURLPassword})
		}
	}
	return out
}

// secretKey says whether a key names a secret, and whether only weakly
// (the bare word "key", which is as often a name as a secret).
func secretKey(key string) (secret, weak bool) {
	words := keyWords(key)
	if len(words) == 1 && words[0] == "key" {
		return true, true
	}
	for _, w := range words {
		if w == "keys" {
			for _, o := range words {
				switch o {
				case "api", "secret", "private", "access", "ssh", "signing", "encryption":
					return true, false
				}
			}
		}
		switch w {
		case "password", "passwords", "passwd", "pass", "pwd", "secret", "token", "key", "credential", "credentials",
			"auth", "authorization", "private", "passphrase", "apikey", "privatekey", "secretkey", "accesskey":
			return true, false
		}
		switch {
		case strings.Contains(w, "password") || strings.Contains(w, "passwd") || strings.Contains(w, "credential"):
			return true, false
		case strings.Contains(w, "secret") && !strings.Contains(w, "secrets"):
			return true, false
		case strings.Contains(w, "token") && !strings.HasSuffix(w, "tokens") && !strings.Contains(w, "tokeniz"):
			return true, false
		}
	}
	return false, false
}

// ambiguous reports a key that is one word that is as often prose as a
// key: pass, key, auth, private, pwd.
func ambiguous(key string) bool {
	w := keyWords(key)
	if len(w) != 1 {
		return false
	}
	switch w[0] {
	case "pass", "key", "auth", "private", "pwd":
		return true
	}
	return false
}

// keyWords splits a key into lowercase words at separators and at
// camelCase boundaries: "AWS_SECRET_ACCESS_KEY", "apiKey", "x-api-key".
func keyWords(key string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(key)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(cur[len(cur)-1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

var (
	refRe     = regexp.MustCompile(`^(?:\s*(?:\$\{\{[^}]*\}\}|\$\{[A-Za-z_][A-Za-z0-9_]*(?:[:?-][^}]*)?\}|\$[A-Z_][A-Z0-9_]*|\{\{[^}]*\}\})\s*)+$`)
	nameRe    = regexp.MustCompile(`^(?:[.$]?[A-Za-z][A-Za-z_./-]*|[A-Z][A-Z0-9_]*)$`)
	declRe    = regexp.MustCompile(`(?m)^\s*-?\s*["']?(?:source["']?\s*:\s*["']?(?:env|file|vault)\b|env["']?\s*:\s*["']?[A-Z_][A-Z0-9_]*["']?\s*$)`)
	flowDecl  = regexp.MustCompile(`["']?(?:source["']?\s*:\s*["']?(?:env|file|vault)\b|env["']?\s*:\s*["']?[A-Z_][A-Z0-9_]*["']?\s*[,}])`)
	blockHead = regexp.MustCompile(`^[|>][0-9+-]*\s*(?:#.*)?$`)
	secretsRe = regexp.MustCompile(`^secrets\s*:\s*(?:#.*)?$`)
)

// isReference: an expression or a variable that names a secret rather
// than holding it.
func isReference(v string) bool { return refRe.MatchString(v) }

// kept reports a value under a secret key that is no secret: empty, a
// null or a boolean, a reference (alone, or after a scheme word: "Bearer
// ${{ secrets.t }}"), a placeholder (<key>, ***, xxxx), the name of an
// environment variable (ONCALL_WEBHOOK_URL), or, under a weak key, a name.
func kept(v string, weak bool) bool {
	t := strings.TrimSpace(v)
	t = strings.Trim(t, `"'`)
	switch strings.ToLower(t) {
	case "", "null", "~", "true", "false", "yes", "no", "on", "off", "none", "nil", "...", "…":
		return true
	}
	if isReference(t) || placeholderRe.MatchString(t) || envNameRe.MatchString(t) || markerRe.MatchString(t) {
		return true
	}
	if refAnyRe.MatchString(t) {
		rest := strings.TrimSpace(refAnyRe.ReplaceAllString(t, ""))
		if schemeWordRe.MatchString(rest) {
			return true
		}
	}
	return weak && nameRe.MatchString(t)
}

var (
	placeholderRe = regexp.MustCompile(`^(?:<[^<>]*>|\*+|[xX]{3,}|\.\.\.+)$`)
	markerRe      = regexp.MustCompile(`^\[redacted [a-z0-9-]+\]$`)
	envNameRe     = regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$`)
	refAnyRe      = regexp.MustCompile(`\$\{\{[^}]*\}\}|\$\{[A-Za-z_][A-Za-z0-9_]*\}`)
	schemeWordRe  = regexp.MustCompile(`^(?:[A-Za-z]{1,12})?$`)
	// proseSecretRe: in a sentence, the word after "password:" is taken
	// for a secret only when it does not read as a word.
	proseSecretRe = regexp.MustCompile(`[0-9_+/=!@#$%^&*]`)
)

// structuralSpans finds the values under keys that name a secret.
func structuralSpans(text string) []span {
	lines := splitLines(text)
	var out []span
	consumed := -1 // lines up to this index are inside a block already redacted
	secretsIndent, childIndent := -1, -1
	for i, ln := range lines {
		if i <= consumed {
			continue
		}
		indent := leadingSpace(text[ln.start:ln.end])
		body := text[ln.start+indent : ln.end]
		if strings.TrimSpace(body) == "" {
			continue
		}
		if secretsIndent >= 0 && indent <= secretsIndent {
			secretsIndent, childIndent = -1, -1
		}
		// Nika's secrets: block. Each entry (a direct child) is a
		// declaration (kept) or an inline literal, which the spec forbids
		// and nika redacts.
		if secretsIndent >= 0 && childIndent < 0 {
			childIndent = indent
		}
		inSecrets := secretsIndent >= 0 && indent == childIndent
		if secretsRe.MatchString(body) {
			secretsIndent, childIndent = indent, -1
		}
		sp, end := scanLine(text, lines, i, inSecrets)
		out = append(out, sp...)
		if end > consumed {
			consumed = end
		}
	}
	return out
}

type lineRange struct{ start, end int } // end excludes the newline

func splitLines(text string) []lineRange {
	var out []lineRange
	s := 0
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			e := i
			if e > s && text[e-1] == '\r' {
				e--
			}
			out = append(out, lineRange{s, e})
			s = i + 1
		}
	}
	if s < len(text) {
		out = append(out, lineRange{s, len(text)})
	}
	return out
}

func leadingSpace(s string) int {
	n := 0
	for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return n
}

func isKeyByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// scanLine finds secret keys on line i and the spans of their values. It
// returns the last line index it consumed (a block or a flow collection
// that runs over later lines), or i.
func scanLine(text string, lines []lineRange, i int, inSecrets bool) ([]span, int) {
	ln := lines[i]
	line := text[ln.start:ln.end]
	var out []span
	last := i
	// the key position at the line's start, past list markers and export
	p := leadingSpace(line)
	for strings.HasPrefix(line[p:], "- ") {
		p += 2 + leadingSpace(line[p+2:])
	}
	if strings.HasPrefix(line[p:], "export ") {
		p += 7 + leadingSpace(line[p+7:])
	}
	keyStart := p
	flowDepth := 0
	for p < len(line) {
		c := line[p]
		atKey, inProse := p == keyStart, false
		if !atKey {
			prev := line[p-1]
			atKey = prev == '{' || prev == ',' || prev == ';'
			if !atKey && (prev == ' ' || prev == '\t' || prev == '(') {
				atKey, inProse = true, flowDepth == 0
			}
		}
		if c == '{' || c == '[' {
			flowDepth++
		}
		if (c == '}' || c == ']') && flowDepth > 0 {
			flowDepth--
		}
		if !atKey {
			p++
			continue
		}
		key, sepEnd, ok := readKey(line, p)
		if !ok {
			p++
			continue
		}
		secret, weak := secretKey(key)
		if secret && inProse && ambiguous(key) {
			// "in one pass: add", "the unset key: a": in a sentence, a
			// bare pass, key, auth, private or pwd is a word, not a key.
			secret = false
		}
		if inSecrets && p == keyStart && leadingSpace(line) > 0 {
			secret = true // an entry of Nika's secrets: block
		}
		if !secret {
			p = sepEnd
			continue
		}
		v := sepEnd + leadingSpace(line[sepEnd:])
		if strings.HasPrefix(line[v:], "[redacted ") {
			// a marker of an earlier pass
			if e := strings.IndexByte(line[v:], ']'); e > 0 {
				p = v + e + 1
				continue
			}
		}
		if weak && v < len(line) && (line[v] == '{' || line[v] == '[') || weak && (v >= len(line) || line[v] == '#') {
			// a bare "key" that holds a map or a list is structure (a
			// schema, a table), not a secret: its lines are scanned as
			// any others.
			p = sepEnd
			continue
		}
		switch {
		case v >= len(line) || (line[v] == '#' && v > sepEnd):
			// a nested block on the lines that follow
			sp, end := blockSpans(text, lines, i, keyStart, weak)
			out = append(out, sp...)
			if end > last {
				last = end
			}
			return out, last
		case blockHead.MatchString(line[v:]):
			sp, end := scalarBlockSpans(text, lines, i, keyStart)
			out = append(out, sp...)
			if end > last {
				last = end
			}
			return out, last
		case line[v] == '{' || line[v] == '[':
			sp, endLine, endOff := flowSpans(text, lines, i, v, weak)
			out = append(out, sp...)
			if endLine > i {
				return out, endLine
			}
			p = endOff
			continue
		case line[v] == '"' || line[v] == '\'':
			q := line[v]
			e := v + 1
			for e < len(line) && line[e] != q {
				if q == '"' && line[e] == '\\' {
					e++
				}
				e++
			}
			if e > len(line) {
				e = len(line)
			}
			if !kept(line[v+1:e], weak) {
				out = append(out, span{ln.start + v + 1, ln.start + e, KindSecretField})
			}
			p = e + 1
			continue
		case inProse:
			e := v
			for e < len(line) && line[e] != ' ' && line[e] != '\t' {
				e++
			}
			val := strings.TrimRight(line[v:e], ".,;)")
			if proseSecretRe.MatchString(val) && !kept(val, weak) {
				out = append(out, span{ln.start + v, ln.start + v + len(val), KindSecretField})
			}
			p = e
			continue
		default:
			e := v
			for e < len(line) {
				if line[e] == '#' && e > v && (line[e-1] == ' ' || line[e-1] == '\t') {
					break
				}
				if flowDepth > 0 && (line[e] == ',' || line[e] == '}' || line[e] == ']') {
					break
				}
				e++
			}
			val := strings.TrimRight(line[v:e], " \t")
			if !kept(val, weak) {
				out = append(out, span{ln.start + v, ln.start + v + len(val), KindSecretField})
			}
			p = e
			continue
		}
	}
	return out, last
}

// readKey reads a key at p (bare, or quoted) and its separator (":" then
// a space, the end, a quote or a bracket; or "=" not followed by "=").
// It returns the key and the offset after the separator.
func readKey(line string, p int) (string, int, bool) {
	var key string
	e := p
	if line[p] == '"' || line[p] == '\'' {
		q := line[p]
		e = p + 1
		for e < len(line) && line[e] != q {
			e++
		}
		if e >= len(line) {
			return "", 0, false
		}
		key = line[p+1 : e]
		e++
	} else {
		for e < len(line) && isKeyByte(line[e]) {
			e++
		}
		key = line[p:e]
	}
	if key == "" || len(key) > 128 {
		return "", 0, false
	}
	s := e
	for s < len(line) && (line[s] == ' ' || line[s] == '\t') {
		s++
	}
	if s >= len(line) {
		return "", 0, false
	}
	switch line[s] {
	case ':':
		n := s + 1
		if n < len(line) && line[n] != ' ' && line[n] != '\t' && line[n] != '"' && line[n] != '\'' && line[n] != '{' && line[n] != '[' {
			return "", 0, false
		}
		return key, n, true
	case '=':
		n := s + 1
		if n < len(line) && line[n] == '=' {
			return "", 0, false
		}
		return key, n, true
	}
	return "", 0, false
}

// blockSpans redacts the block nested under the key on line i (the lines
// that follow with more indentation), unless it is a Nika secret
// declaration. It returns the last line of the block.
func blockSpans(text string, lines []lineRange, i, keyCol int, weak bool) ([]span, int) {
	end := i
	for j := i + 1; j < len(lines); j++ {
		l := text[lines[j].start:lines[j].end]
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := leadingSpace(l)
		if ind <= keyCol && !(ind == keyCol && strings.HasPrefix(l[ind:], "- ")) {
			break
		}
		end = j
	}
	if end == i {
		// JSON: the value may open on the next line.
		if i+1 < len(lines) {
			l := text[lines[i+1].start:lines[i+1].end]
			t := leadingSpace(l)
			if t < len(l) && (l[t] == '{' || l[t] == '[') {
				sp, endLine, _ := flowSpans(text, lines, i+1, t, weak)
				return sp, endLine
			}
		}
		return nil, i
	}
	block := text[lines[i+1].start:lines[end].end]
	if declRe.MatchString(block) {
		return nil, i // a declaration: its lines are scanned as any others
	}
	var out []span
	for j := i + 1; j <= end; j++ {
		ln := lines[j]
		l := text[ln.start:ln.end]
		p := leadingSpace(l)
		for strings.HasPrefix(l[p:], "- ") {
			p += 2 + leadingSpace(l[p+2:])
		}
		v := p
		if _, sepEnd, ok := readKey(l, p); ok {
			v = sepEnd + leadingSpace(l[sepEnd:])
		}
		val := strings.TrimRight(l[v:], " \t")
		if !kept(val, false) && !blockHead.MatchString(val) {
			out = append(out, span{ln.start + v, ln.start + v + len(val), KindSecretField})
		}
	}
	return out, end
}

// scalarBlockSpans redacts a block scalar (| or >) under the key on line
// i: every line that follows with more indentation.
func scalarBlockSpans(text string, lines []lineRange, i, keyCol int) ([]span, int) {
	var out []span
	end := i
	for j := i + 1; j < len(lines); j++ {
		l := text[lines[j].start:lines[j].end]
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := leadingSpace(l)
		if ind <= keyCol {
			break
		}
		out = append(out, span{lines[j].start + ind, lines[j].end, KindSecretField})
		end = j
	}
	return out, end
}

// flowSpans redacts the values of a flow collection ({…} or […], JSON or
// YAML) that opens at offset v of line i, unless it is a Nika secret
// declaration. It returns the line and the offset (in that line) where
// the collection closes.
func flowSpans(text string, lines []lineRange, i, v int, weak bool) ([]span, int, int) {
	start := lines[i].start + v
	depth := 0
	e := start
	for ; e < len(text); e++ {
		c := text[e]
		if c == '"' || c == '\'' {
			q := c
			for e++; e < len(text) && text[e] != q; e++ {
				if q == '"' && text[e] == '\\' {
					e++
				}
			}
			continue
		}
		if c == '{' || c == '[' {
			depth++
		}
		if c == '}' || c == ']' {
			depth--
			if depth == 0 {
				e++
				break
			}
		}
	}
	if e > len(text) {
		e = len(text)
	}
	region := text[start:e]
	endLine := i
	for endLine+1 < len(lines) && lines[endLine+1].start < e {
		endLine++
	}
	endOff := e - lines[endLine].start
	if flowDecl.MatchString(region) {
		return nil, endLine, endOff
	}
	var out []span
	// tokens: quoted strings and bare runs; a token followed by ':' is a
	// key and is kept.
	for k := start; k < e; {
		c := text[k]
		if strings.HasPrefix(text[k:e], "[redacted ") {
			if m := strings.IndexByte(text[k:e], ']'); m > 0 {
				k += m + 1 // a marker of an earlier pass
				continue
			}
		}
		switch {
		case c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r':
			k++
			continue
		}
		ts, te := k, k
		if c == '"' || c == '\'' {
			q := c
			te = k + 1
			for te < e && text[te] != q {
				if q == '"' && text[te] == '\\' {
					te++
				}
				te++
			}
			te++
			if te > e {
				te = e
			}
		} else {
			for te < e && !strings.ContainsRune("{}[],\n", rune(text[te])) && !(text[te] == ':' && te+1 < e && (text[te+1] == ' ' || text[te+1] == '"')) {
				te++
			}
		}
		n := te
		for n < e && (text[n] == ' ' || text[n] == '\t') {
			n++
		}
		isKey := n < e && text[n] == ':'
		val := strings.TrimRight(text[ts:te], " \t")
		if !isKey && !kept(val, false) {
			inner := strings.Trim(val, `"'`)
			off := strings.Index(val, inner)
			out = append(out, span{ts + off, ts + off + len(inner), KindSecretField})
		}
		k = te
		if k == ts {
			k++
		}
	}
	return out, endLine, endOff
}

// Summary says, for a human, what was redacted and where: "file
// flows/a.nika.yaml line 3 (gitlab-pat), question line 1 (secret-field)".
func Summary(rs []Redaction) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s line %d (%s)", r.Where, r.Line, r.Kind))
	}
	return strings.Join(parts, ", ")
}
