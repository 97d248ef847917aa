package checker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"
)

// Limits of the strict YAML profile.
const (
	maxDocumentBytes = 1 << 20 // 1 MiB
	maxScalarBytes   = 64 << 10
	maxDepth         = 64
)

// Check audits the exact bytes of one file. The path decides the kind: a
// name ending in .nika.yaml, .nika.yml or .nika is a workflow, a base name
// of exactly nika.yaml is a project file; any other name is judged by the
// type discriminant (a tasks: key means a workflow). Check reads nothing
// but data, so files a workflow names (agent skills, composed children)
// are not judged; use CheckFS for that.
func Check(path string, data []byte) Report {
	return CheckFS(nil, path, data)
}

// CheckFS is Check with read-only access to the files a workflow names
// beside itself: agent skills and composed child workflows are resolved
// relative to the directory of filePath inside fsys, so filePath should be
// slash-separated and relative to the root of fsys (the repository root,
// for the post-apply hook). A file is reported missing only when fsys says
// it does not exist. A nil fsys judges the bytes alone. CheckFS never
// writes.
func CheckFS(fsys fs.FS, filePath string, data []byte) Report {
	c := &checker{path: filePath, data: data, fsys: fsys}
	return c.run(0)
}

// checker holds the state of one audit.
type checker struct {
	path  string
	data  []byte
	fsys  fs.FS
	depth int // composition depth, to stop runaway child chains
	// chain lists the workflows (paths) that compose this one, outermost
	// first: a child that leads back to one of them is a cycle.
	chain    []string
	findings []Finding
	seen     map[string]bool
	// tasksNode is the value of the root tasks: key, whose repeated keys
	// are task ids and get their own code.
	tasksNode *yaml.Node
	// bom is set when the bytes start with a byte-order mark, which the
	// parser does not see: columns of line 1 shift by that one character.
	bom bool
	// src is the bytes the parser read; lineStarts indexes its lines.
	src        []byte
	lineStarts []int
	// cels holds the expressions parsed so far (parseCEL).
	cels map[string]celParsed
}

func (c *checker) run(depth int) Report {
	c.depth = depth
	kind := kindFromPath(c.path)
	rep := Report{Path: c.path, Kind: kind}
	root := c.parse()
	if kind == "" {
		kind = KindProject
		if root != nil && root.Kind == yaml.MappingNode && mapGet(root, "tasks") != nil {
			kind = KindWorkflow
		}
		rep.Kind = kind
	}
	if root != nil {
		if kind == KindWorkflow {
			w := c.checkWorkflow(root)
			if w != nil {
				rep.Effects = w.effects()
			}
		} else {
			c.checkProject(root)
		}
	}
	rep.Findings = c.sorted()
	return rep
}

func kindFromPath(p string) string {
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	switch {
	case base == "nika.yaml":
		return KindProject
	case strings.HasSuffix(base, ".nika.yaml"), strings.HasSuffix(base, ".nika.yml"), strings.HasSuffix(base, ".nika"):
		return KindWorkflow
	}
	return ""
}

// add records a finding about node n (nil means the start of the file).
func (c *checker) add(code string, n *yaml.Node, fix string, format string, args ...any) {
	line, col := 1, 1
	if n != nil && n.Line > 0 {
		line, col = n.Line, n.Column
	}
	c.addAt(code, line, col, fix, format, args...)
}

func (c *checker) addAt(code string, line, col int, fix string, format string, args ...any) {
	info, ok := catalog[code]
	if !ok {
		info = codeInfo{category: "validation_error", severity: SeverityError}
	}
	msg := fmt.Sprintf(format, args...)
	key := fmt.Sprintf("%s|%d|%d|%s", code, line, col, msg)
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.findings = append(c.findings, Finding{
		Code: code, Category: info.category, Severity: info.severity,
		Message: msg, Line: line, Col: col, Fix: fix,
	})
}

// warn records a finding with warning severity whatever the catalog says.
func (c *checker) warn(code string, n *yaml.Node, fix string, format string, args ...any) {
	before := len(c.findings)
	c.add(code, n, fix, format, args...)
	if len(c.findings) > before {
		c.findings[len(c.findings)-1].Severity = SeverityWarning
	}
}

func (c *checker) sorted() []Finding {
	out := append([]Finding(nil), c.findings...)
	if c.bom {
		for i := range out {
			if out[i].Line == 1 && out[i].Code != "NIKA-YAML-011" {
				out[i].Col++
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
	if out == nil {
		out = []Finding{}
	}
	return out
}

var (
	yamlLineRe      = regexp.MustCompile(`line (\d+)`)
	unknownAnchorRe = regexp.MustCompile(`unknown anchor '([^']*)' referenced`)
)

// posOf is the line and column (1-based, in characters) of the first
// occurrence of needle in the source, or 1:1.
func (c *checker) posOf(needle string) (int, int) {
	i := bytes.Index(c.src, []byte(needle))
	if i < 0 {
		return 1, 1
	}
	line := 1 + bytes.Count(c.src[:i], []byte("\n"))
	start := bytes.LastIndexByte(c.src[:i], '\n') + 1
	return line, 1 + utf8.RuneCount(c.src[start:i])
}

// nfc refuses source bytes that are not in Unicode Normalization Form C:
// « NFC obligatoire (jamais une normalisation silencieuse) », so that two
// encodings of one text never hash differently. Text already in NFC,
// combining marks included, is legal.
func (c *checker) nfc(data []byte) {
	if !utf8.Valid(data) || norm.NFC.IsNormal(data) {
		return
	}
	n, _ := norm.NFC.Span(data, true)
	// Point at the start of the character that composes differently.
	for n > 0 && !utf8.RuneStart(data[n]) {
		n--
	}
	line := 1 + bytes.Count(data[:n], []byte("\n"))
	start := bytes.LastIndexByte(data[:n], '\n') + 1
	col := 1 + utf8.RuneCount(data[start:n])
	r, _ := utf8.DecodeRune(data[n:])
	c.addAt("NIKA-YAML-011", line, col, "save the file in Unicode NFC (most editors: normalize to NFC)", "the text is not in Unicode NFC at U+%04X; the profile never normalizes silently", r)
}

// parse decodes the bytes into one YAML document and applies the strict
// profile. It returns the root node of the document (a mapping for any
// well-formed Nika file), or nil when there is nothing to judge further.
func (c *checker) parse() *yaml.Node {
	data := c.data
	if len(data) > maxDocumentBytes {
		c.addAt("NIKA-YAML-010", 1, 1, "split the file into composed workflows", "the document is %d bytes, over the 1 MiB cap", len(data))
	}
	if bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}) {
		c.addAt("NIKA-YAML-011", 1, 1, "save the file as UTF-8 without a byte-order mark", "the file starts with a byte-order mark")
		data = data[3:]
		c.bom = true
	}
	c.src = data
	c.nfc(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := safeDecode(dec, &doc)
	if errors.Is(err, io.EOF) {
		c.addAt("NIKA-PARSE-002", 1, 1, "start the file with a nika: <name> line", "the file is empty")
		return nil
	}
	if err != nil {
		if m := unknownAnchorRe.FindStringSubmatch(err.Error()); m != nil {
			// An alias is refused for what it is, whether or not its
			// anchor exists: the decoder stops at one with no anchor.
			line, col := c.posOf("*" + m[1])
			c.addAt("NIKA-YAML-002", line, col, "repeat the value explicitly", "alias *%s is not allowed (and no anchor &%s precedes it)", m[1], m[1])
			return nil
		}
		line := 1
		if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
			if n, e := strconv.Atoi(m[1]); e == nil && n > 0 {
				line = n
			}
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		c.addAt("NIKA-PARSE-001", line, 1, "", "the YAML does not parse: %s", msg)
		return nil
	}
	var extra yaml.Node
	if e := safeDecode(dec, &extra); e == nil {
		c.add("NIKA-PARSE-019", &extra, "keep one document per file", "the file holds more than one YAML document")
	} else if !errors.Is(e, io.EOF) {
		line := 1
		if m := yamlLineRe.FindStringSubmatch(e.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		c.addAt("NIKA-PARSE-001", line, 1, "", "the YAML does not parse: %s", strings.TrimPrefix(e.Error(), "yaml: "))
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			c.addAt("NIKA-PARSE-002", 1, 1, "start the file with a nika: <name> line", "the file holds no value")
			return nil
		}
		root = root.Content[0]
	}
	if root.Kind == yaml.MappingNode {
		c.tasksNode = mapGet(root, "tasks")
	}
	c.profile(root, 1, false)
	// An alias needs an anchor before it (the decoder refuses one that
	// names none), and both need their sigil in the source: without an
	// & and a *, there is no alias to replace.
	if bytes.IndexByte(data, '&') >= 0 && bytes.IndexByte(data, '*') >= 0 {
		derefAliases(root, map[*yaml.Node]bool{})
	}
	return root
}

// derefAliases replaces each alias in the tree by the node it names, once
// the profile has refused it (NIKA-YAML-002): the rest of the audit judges
// the value a reader would expand, so an alias gets its own code and no
// second, generic one for its shape. A self-referring alias stays as is.
func derefAliases(n *yaml.Node, onPath map[*yaml.Node]bool) {
	if n == nil || onPath[n] {
		return
	}
	onPath[n] = true
	defer delete(onPath, n)
	for i, ch := range n.Content {
		if ch.Kind == yaml.AliasNode && ch.Alias != nil && !onPath[ch.Alias] {
			n.Content[i] = ch.Alias
			ch = ch.Alias
		}
		derefAliases(ch, onPath)
	}
}

// safeDecode shields the audit from a panic inside the YAML library: a
// hostile input must produce a finding, never a crash.
func safeDecode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the decoder failed: %v", r)
		}
	}()
	return dec.Decode(n)
}

var coreTags = map[string]bool{
	"!!str": true, "!!int": true, "!!float": true, "!!bool": true, "!!null": true, "!!map": true, "!!seq": true,
}

var nonFiniteRe = regexp.MustCompile(`^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$`)

// profile walks the tree and reports what the strict YAML profile refuses.
// depth counts collections: the root collection is level 1.
func (c *checker) profile(n *yaml.Node, depth int, _ bool) {
	if n == nil {
		return
	}
	if n.Anchor != "" {
		c.add("NIKA-YAML-001", n, "write the value out where it is used", "anchor &%s is not allowed", n.Anchor)
	}
	if n.Style&yaml.TaggedStyle != 0 && !coreTags[n.Tag] {
		c.add("NIKA-YAML-006", n, "remove the tag", "tag %s is outside the YAML core schema", n.Tag)
	}
	switch n.Kind {
	case yaml.AliasNode:
		c.add("NIKA-YAML-002", n, "repeat the value explicitly", "alias *%s is not allowed", n.Value)
		return
	case yaml.ScalarNode:
		if len(n.Value) > maxScalarBytes {
			c.add("NIKA-YAML-005", n, "move the payload into a file the workflow reads", "a scalar of %d bytes is over the 64 KiB cap", len(n.Value))
		}
		if n.Tag == "!!float" && nonFiniteRe.MatchString(n.Value) {
			c.add("NIKA-YAML-008", n, "use a finite number, or quote the text", "%s is not a finite number", n.Value)
		}
		return
	case yaml.MappingNode, yaml.SequenceNode:
		if depth > maxDepth {
			c.add("NIKA-YAML-009", n, "flatten the structure", "the document nests deeper than %d levels", maxDepth)
			return
		}
	}
	if n.Kind == yaml.MappingNode {
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && (k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0)) {
				c.add("NIKA-YAML-003", k, "write the merged keys out by hand", "merge key << is not allowed")
			} else if k.Kind != yaml.ScalarNode || (k.Tag != "!!str" && k.Tag != "") {
				if k.Kind != yaml.AliasNode {
					c.add("NIKA-YAML-007", k, "quote the key", "mapping key %q is not a string", k.Value)
				}
			}
			if k.Kind == yaml.ScalarNode {
				if _, dup := seen[k.Value]; dup {
					c.dupKey(n, k)
				} else {
					seen[k.Value] = k
				}
			}
			if k.Anchor != "" || k.Kind == yaml.AliasNode {
				c.profile(k, depth+1, true)
			}
			c.profile(v, depth+1, false)
		}
		return
	}
	for _, ch := range n.Content {
		c.profile(ch, depth+1, false)
	}
}

// dupKey reports a repeated key. A repeated task id is reported by the
// workflow pass with its own code, so the profile leaves it alone.
func (c *checker) dupKey(parent, k *yaml.Node) {
	if c.isTasksMap(parent) {
		return
	}
	c.add("NIKA-YAML-004", k, "keep one occurrence of the key", "key %q is repeated in this mapping", k.Value)
}

func (c *checker) isTasksMap(n *yaml.Node) bool {
	return c.tasksNode != nil && c.tasksNode == n
}

// islandPos returns a position node for the island that starts at byte
// offset off of the value of scalar n: the (k+1)-th "${{" of the source
// from the scalar's start, where k openers precede it in the value. It
// falls back to the scalar's own position.
func (c *checker) islandPos(n *yaml.Node, off int) *yaml.Node {
	if n == nil || n.Line < 1 || c.src == nil || off < 0 || off > len(n.Value) {
		return n
	}
	if c.lineStarts == nil {
		c.lineStarts = []int{0}
		for i, b := range c.src {
			if b == '\n' {
				c.lineStarts = append(c.lineStarts, i+1)
			}
		}
	}
	if n.Line > len(c.lineStarts) {
		return n
	}
	start := c.lineStarts[n.Line-1]
	for col := 1; col < n.Column && start < len(c.src) && c.src[start] != '\n'; col++ {
		_, size := utf8.DecodeRune(c.src[start:])
		start += size
	}
	k := strings.Count(n.Value[:off], "${{")
	pos := start
	for i := 0; ; i++ {
		j := bytes.Index(c.src[pos:], []byte("${{"))
		if j < 0 {
			return n
		}
		pos += j
		if i == k {
			break
		}
		pos += 3
	}
	line := sort.SearchInts(c.lineStarts, pos+1)
	if line < 1 || line-n.Line > strings.Count(n.Value, "\n")+2 {
		return n
	}
	col := 1 + utf8.RuneCount(c.src[c.lineStarts[line-1]:pos])
	return &yaml.Node{Kind: yaml.ScalarNode, Line: line, Column: col}
}
