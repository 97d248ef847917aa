package terminal

import (
	"errors"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nika-dev/nika/preview"
)

// BurstGap is how soon after a line's end the next byte must arrive for the
// session to read both lines as one input. A person pressing Enter and then
// typing is far slower; a paste or a program is far faster.
// docs/terminal.md states it.
const BurstGap = 40 * time.Millisecond

// ErrNoAnswer: the human ended the input (Ctrl-D on an empty line) or
// interrupted it (Ctrl-C).
var ErrNoAnswer = errors.New("no answer")

// Terminal is the controlling terminal, opened for one door.
type Terminal struct {
	f   *os.File
	fd  int
	buf []byte // bytes read but not yet used, with the read they came in
	// inPaste is true between ESC[200~ and ESC[201~.
	inPaste bool
	burst   bool      // the bytes in buf came as more than one character
	readAt  time.Time // when buf was read
	echo    []byte    // what to echo before the next read
}

func newTerminal(f *os.File) *Terminal { return &Terminal{f: f, fd: int(f.Fd())} }

// File is the terminal's file, for what draws on it (the pager, the review
// screen) and for the colour decision.
func (t *Terminal) File() *os.File { return t.f }

// Close closes the terminal.
func (t *Terminal) Close() error { return t.f.Close() }

// Write writes to the terminal as it is: what nika itself draws, or text
// already escaped.
func (t *Terminal) Write(b []byte) (int, error) { return t.f.Write(b) }

// key is one input event: a rune the human typed (or pasted), or an edit.
type key struct {
	r      rune
	pasted bool // inside bracketed paste, or in a burst
	at     time.Time
}

const (
	keyPasteEnd  = -2 // ESC[201~: the paste ended
	keyEnter     = '\n'
	keyErase     = 0x7f
	keyKill      = 0x15 // Ctrl-U
	keyEOF       = 0x04 // Ctrl-D
	keyInterrupt = 0x03 // Ctrl-C
)

// next reads the next event. Escape sequences are consumed: the paste
// brackets change inPaste, every other sequence (arrow keys) is dropped.
func (t *Terminal) next() (key, error) {
	for {
		if len(t.buf) == 0 {
			t.flushEcho()
			b := make([]byte, 4096)
			n, err := t.f.Read(b)
			if n == 0 {
				if err == nil {
					err = io.EOF
				}
				return key{}, err
			}
			t.buf = b[:n]
			t.burst = utf8.RuneCount(printable(t.buf)) > 1
			t.readAt = time.Now()
		}
		c := t.buf[0]
		if c == 0x1b {
			if seq, ok := t.escape(); ok {
				switch seq {
				case "[200~":
					t.inPaste = true
				case "[201~":
					t.inPaste = false
					return key{r: keyPasteEnd, at: t.readAt}, nil
				}
				continue
			}
		}
		r, size := utf8.DecodeRune(t.buf)
		t.buf = t.buf[size:]
		switch r {
		case '\r':
			r = keyEnter
		case 0x08:
			r = keyErase
		}
		return key{r: r, pasted: t.inPaste || t.burst, at: t.readAt}, nil
	}
}

// escape consumes one escape sequence at the start of buf (ESC [ params
// final, or ESC and one character) and returns its body after ESC.
func (t *Terminal) escape() (string, bool) {
	if len(t.buf) < 2 {
		// A lone ESC: drop it.
		t.buf = t.buf[1:]
		return "", true
	}
	if t.buf[1] != '[' && t.buf[1] != 'O' {
		t.buf = t.buf[2:]
		return "", true
	}
	for i := 2; i < len(t.buf); i++ {
		if c := t.buf[i]; c >= 0x40 && c <= 0x7e {
			seq := string(t.buf[1 : i+1])
			t.buf = t.buf[i+1:]
			return seq, true
		}
	}
	t.buf = nil
	return "", true
}

// printable keeps the bytes of b that a person types as characters (not
// control bytes or escape sequences), to tell a keystroke from a burst.
func printable(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == 0x1b {
			// skip the sequence
			j := i + 1
			if j < len(b) && (b[j] == '[' || b[j] == 'O') {
				j++
				for j < len(b) && !(b[j] >= 0x40 && b[j] <= 0x7e) {
					j++
				}
			}
			i = j
			continue
		}
		if c >= 0x20 && c != 0x7f {
			out = append(out, c)
		}
	}
	return out
}

// errPasteEnd: a paste ended at a line boundary.
var errPasteEnd = errors.New("the paste ended")

// out queues bytes to echo; they are written before the next read.
func (t *Terminal) out(s string) { t.echo = append(t.echo, s...) }

func (t *Terminal) flushEcho() {
	if len(t.echo) > 0 {
		t.f.Write(t.echo)
		t.echo = t.echo[:0]
	}
}

// readLine reads one line the human edits: printable runes are echoed
// escaped, backspace and Ctrl-U edit, Enter ends it. pasted reports that a
// character of it was pasted. Ctrl-D on an empty line and Ctrl-C end the
// input with ErrNoAnswer.
func (t *Terminal) readLine() (line string, pasted bool, err error) {
	var rs []rune
	for {
		k, err := t.next()
		if err != nil {
			return "", false, ErrNoAnswer
		}
		switch k.r {
		case keyPasteEnd:
			if len(rs) == 0 {
				return "", true, errPasteEnd
			}
		case keyEnter:
			t.out("\n")
			t.flushEcho()
			return string(rs), pasted || k.pasted, nil
		case keyErase:
			if len(rs) > 0 {
				rs = rs[:len(rs)-1]
				t.out("\b \b")
			}
		case keyKill:
			for range rs {
				t.out("\b \b")
			}
			rs = rs[:0]
		case keyInterrupt:
			t.out("^C\n")
			t.flushEcho()
			return "", false, ErrNoAnswer
		case keyEOF:
			if len(rs) == 0 {
				t.out("\n")
				t.flushEcho()
				return "", false, ErrNoAnswer
			}
		default:
			if (k.r < 0x20 && k.r != '\t') || k.r == 0x7f || k.r < 0 {
				continue // other control keys do nothing
			}
			pasted = pasted || k.pasted
			rs = append(rs, k.r)
			t.out(preview.Escape(string(k.r)))
		}
	}
}

// Answer draws prompt and reads one line that the human typed after it:
// input typed ahead is discarded, bracketed paste is on while it reads, and
// a pasted line is refused with a word to type it, and asked again. An
// empty line is asked again too: an accidental Enter decides nothing.
func (t *Terminal) Answer(prompt string) (string, error) {
	restore, err := t.raw(true)
	if err != nil {
		return "", err
	}
	defer restore()
	defer t.f.WriteString("\x1b[?2004l")
	for {
		t.f.WriteString("\x1b[?2004h" + prompt)
		line, pasted, err := t.readLine()
		if err == errPasteEnd {
			t.f.WriteString("\n")
			pasted = true
		} else if err != nil {
			return "", err
		}
		switch {
		case pasted:
			t.f.WriteString("nika: that answer was pasted, and a pasted answer never counts · type it\n")
		case strings.TrimSpace(line) == "":
			t.f.WriteString("nika: nothing was typed · type your answer\n")
		default:
			return line, nil
		}
		// Whatever else the paste held is discarded with the typed-ahead.
		if err := t.flush(); err != nil {
			return "", err
		}
	}
}

// Input reads the session's next input after prompt: a line the human
// typed, or a whole paste, which is one input whatever lines it holds (a
// reply, a patch, a question). pasted reports a paste: a paste is never
// read as a command or an answer. Lines that follow each other less than
// BurstGap apart are one input too, for terminals that do not bracket
// pastes. It returns ErrNoAnswer when the human ends the session (Ctrl-D).
func (t *Terminal) Input(prompt string) (text string, pasted bool, err error) {
	// What the human typed ahead of this prompt is theirs, and kept; only
	// answers discard it.
	restore, err := t.raw(false)
	if err != nil {
		return "", false, err
	}
	defer restore()
	defer t.f.WriteString("\x1b[?2004l")
	t.f.WriteString("\x1b[?2004h" + prompt)
	var lines []string
	for {
		line, p, err := t.readLine()
		if err == errPasteEnd {
			return strings.Join(lines, "\n") + "\n", true, nil
		}
		if err != nil {
			if len(lines) > 0 {
				return strings.Join(lines, "\n") + "\n", true, nil
			}
			return "", false, err
		}
		lines = append(lines, line)
		pasted = pasted || p
		if !t.more() {
			if len(lines) == 1 && !pasted {
				return lines[0], false, nil
			}
			return strings.Join(lines, "\n") + "\n", true, nil
		}
	}
}

// flush discards every byte typed ahead.
func (t *Terminal) flush() error {
	t.buf, t.inPaste = nil, false
	return flushInput(t.fd)
}

// more reports whether the input goes on after a line's end: the paste is
// still open, bytes of the same read are left, or more arrive within
// BurstGap.
func (t *Terminal) more() bool {
	if t.inPaste || len(t.buf) > 0 {
		return true
	}
	return readable(t.fd, BurstGap)
}
