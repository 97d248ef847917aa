package gitindex

import (
	"bytes"
	"strconv"
	"strings"
)

// treeNode is one node of the cache-tree extension (TREE): for a directory,
// the number of index entries it covers and its tree object id, or
// count == -1 when it is invalid and git must recompute it.
type treeNode struct {
	name     string
	count    int
	hash     []byte
	children []*treeNode
}

const maxTreeDepth = 4096

// parseTree parses a TREE extension as cache-tree.c does. It returns nil if
// the data is malformed; git ignores a malformed cache-tree as well.
func parseTree(data []byte, hs int) *treeNode {
	n, rest, ok := parseTreeNode(data, hs, 0)
	if !ok || len(rest) != 0 {
		return nil
	}
	return n
}

func parseTreeNode(b []byte, hs, depth int) (*treeNode, []byte, bool) {
	if depth > maxTreeDepth {
		return nil, nil, false
	}
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, nil, false
	}
	n := &treeNode{name: string(b[:nul])}
	b = b[nul+1:]
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		return nil, nil, false
	}
	count, err := strconv.Atoi(string(b[:sp]))
	if err != nil || count < -1 {
		return nil, nil, false
	}
	b = b[sp+1:]
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return nil, nil, false
	}
	subs, err := strconv.Atoi(string(b[:nl]))
	if err != nil || subs < 0 || subs > len(b) {
		return nil, nil, false
	}
	b = b[nl+1:]
	n.count = count
	if count >= 0 {
		if len(b) < hs {
			return nil, nil, false
		}
		n.hash = append([]byte(nil), b[:hs]...)
		b = b[hs:]
	}
	for i := 0; i < subs; i++ {
		c, rest, ok := parseTreeNode(b, hs, depth+1)
		if !ok {
			return nil, nil, false
		}
		n.children = append(n.children, c)
		b = rest
	}
	return n, b, true
}

func (n *treeNode) encode(dst []byte, hs int) []byte {
	dst = append(dst, n.name...)
	dst = append(dst, 0)
	dst = strconv.AppendInt(dst, int64(n.count), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(len(n.children)), 10)
	dst = append(dst, '\n')
	if n.count >= 0 {
		dst = append(dst, n.hash[:hs]...)
	}
	for _, c := range n.children {
		dst = c.encode(dst, hs)
	}
	return dst
}

// invalidate mirrors cache-tree.c's do_invalidate_path: the root and every
// directory on the path become invalid; a subtree named by the full path
// (a directory replaced by a file) is removed. Other nodes stay valid.
func (n *treeNode) invalidate(path string) {
	for n != nil {
		n.count = -1
		n.hash = nil
		comp, rest, more := strings.Cut(path, "/")
		if !more {
			for i, c := range n.children {
				if c.name == comp {
					n.children = append(n.children[:i], n.children[i+1:]...)
					break
				}
			}
			return
		}
		var next *treeNode
		for _, c := range n.children {
			if c.name == comp {
				next = c
				break
			}
		}
		n, path = next, rest
	}
}

// invalidateTree invalidates the cache-tree on path, parsing TREE the first
// time it is needed.
func (ix *Index) invalidateTree(path string) {
	if ix.noInvalidate {
		return
	}
	if ix.lz != nil {
		ix.lz.touched = append(ix.lz.touched, path) // Encode rewrites the bytes along it
		return
	}
	if ix.treeState == treeRaw {
		ix.treeState = treeBad
		for _, x := range ix.exts {
			if x.sig == "TREE" {
				if t := parseTree(x.data, ix.HashSize); t != nil {
					ix.tree, ix.treeState = t, treeParsed
				}
				break
			}
		}
	}
	if ix.treeState == treeParsed {
		ix.tree.invalidate(path)
	}
}
