package terminal

import (
	"io"
	"unicode/utf8"

	"github.com/nika-dev/nika/preview"
)

// EscapingWriter passes output that came from outside nika (a runner's, a
// hook's) through the one escaper before it reaches a terminal; to a file
// or a pipe it passes the bytes as they are. A character split across two
// writes is held until it is whole.
func EscapingWriter(w io.Writer) io.Writer { return escapingWriter{w: w, tail: new([]byte)} }

type escapingWriter struct {
	w    io.Writer
	tail *[]byte
}

func (e escapingWriter) Write(b []byte) (int, error) {
	if !IsTerminal(e.w) {
		return e.w.Write(b)
	}
	s := append(*e.tail, b...)
	cut := len(s)
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRune(s[i:]) {
				cut = i
			}
			break
		}
	}
	*e.tail = append((*e.tail)[:0], s[cut:]...)
	if _, err := io.WriteString(e.w, preview.EscapeText(string(s[:cut]))); err != nil {
		return 0, err
	}
	return len(b), nil
}
