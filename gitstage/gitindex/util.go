package gitindex

import "strconv"

func strquote(s string) string { return strconv.Quote(s) }
