package checker

import (
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// pair is one key and its value in a mapping.
type pair struct {
	k, v *yaml.Node
}

// pairs lists the entries of a mapping in source order (nil for any other
// node).
func pairs(n *yaml.Node) []pair {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]pair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, pair{n.Content[i], n.Content[i+1]})
	}
	return out
}

// mapGet returns the value of the first key named key, or nil.
func mapGet(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i].Kind == yaml.ScalarNode {
			return n.Content[i+1]
		}
	}
	return nil
}

// mapKey returns the key node of the first key named key, or nil.
func mapKey(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i].Kind == yaml.ScalarNode {
			return n.Content[i]
		}
	}
	return nil
}

func isMap(n *yaml.Node) bool    { return n != nil && n.Kind == yaml.MappingNode }
func isSeq(n *yaml.Node) bool    { return n != nil && n.Kind == yaml.SequenceNode }
func isScalar(n *yaml.Node) bool { return n != nil && n.Kind == yaml.ScalarNode }

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func isStr(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!str"
}

func isBool(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!bool"
}

func isInt(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!int"
}

func isNumber(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float")
}

// boolVal reads a boolean scalar.
func boolVal(n *yaml.Node) (bool, bool) {
	if !isBool(n) {
		return false, false
	}
	b, err := strconv.ParseBool(strings.ToLower(n.Value))
	return b, err == nil
}

// intVal reads an integer scalar.
func intVal(n *yaml.Node) (int64, bool) {
	if !isInt(n) {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	return v, err == nil
}

// strs returns the string items of a sequence and whether all items are
// strings.
func strs(n *yaml.Node) ([]string, bool) {
	if !isSeq(n) {
		return nil, false
	}
	out := []string{}
	ok := true
	for _, it := range n.Content {
		if !isStr(it) {
			ok = false
			continue
		}
		out = append(out, it.Value)
	}
	return out, ok
}

// kindName names the YAML shape of a node for messages.
func kindName(n *yaml.Node) string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a map"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.AliasNode:
		return "an alias"
	case n.Tag == "!!null":
		return "null"
	case n.Tag == "!!bool":
		return "a boolean"
	case n.Tag == "!!int":
		return "an integer"
	case n.Tag == "!!float":
		return "a number"
	}
	return "a string"
}

// hasTemplate reports whether a string carries a ${{ island.
func hasTemplate(s string) bool { return strings.Contains(s, "${{") }

func sortStrings(s []string) { sort.Strings(s) }

// uniqSorted sorts and removes duplicates.
func uniqSorted(in []string) []string {
	if len(in) == 0 {
		return []string{}
	}
	s := append([]string(nil), in...)
	sort.Strings(s)
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// closest returns the candidate nearest to word by edit distance, when it
// is near enough to suggest.
func closest(word string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := editDistance(word, c)
		if d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(word) > 6 {
		limit = 3
	}
	if bestD <= limit && bestD < len(word) {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 20
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// didYouMean renders a suggestion suffix, or "".
func didYouMean(word string, candidates []string) string {
	if s := closest(word, candidates); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}
