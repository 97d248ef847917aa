package doorwords

import "strings"

// Short is the 12-hex form of an id or commit that the doors print.
func Short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// FirstLine is a goal's subject line, as the doors list it.
func FirstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
