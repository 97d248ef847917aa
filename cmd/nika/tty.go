package main

// The controlling terminal is where consent is formed, so it is part of the
// security boundary (DESIGN.md, laws 5 and 9). Every terminal door reads
// through this one reader: nika apply's consent prompt, the session's
// consent and gate prompts, and the session's input line.
//
// How an answer is read:
//
//   - The terminal is put in non-canonical mode without echo, with
//     TCSETSF, which discards every byte typed ahead; nika echoes what is
//     typed itself, escaped, and does the line editing (backspace, Ctrl-U).
//   - Bracketed paste is turned on (ESC[?2004h) while a line is read and
//     off again after, so a terminal that supports it wraps a paste in
//     ESC[200~ … ESC[201~.
//   - A line is pasted when any of its characters arrived inside those
//     brackets, or when it arrived in a burst: more than one character in
//     one read from the terminal. A person's keystrokes arrive one read
//     each; a paste, or a program writing to the terminal, arrives many at a
//     time. A pasted line never answers a consent or a gate: the human is
//     told to type it, and asked again.
//   - The session's input line is the other way round: a paste is one input
//     (a reply, a patch, a question), whatever lines it holds, and so is a
//     burst of lines that arrive less than burstGap apart. What the human
//     typed ahead of that prompt is kept: only answers discard it.
//
// What this cannot stop: a process of the same user with a pseudo-terminal
// of its own can type at nika's prompt one key at a time (SECURITY.md).

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/nika-dev/nika/preview"
)

// openTTY opens the controlling terminal, the only place consent is read
// from: not stdin (a model's output may be piped there), not a flag.
func openTTY() (*os.File, error) {
	return os.OpenFile("/dev/tty", os.O_RDWR, 0)
}

// burstGap is how soon after a line's end the next byte must arrive for the
// session to read both lines as one input. A person pressing Enter and then
// typing is far slower; a paste or a program is far faster.
const burstGap = 40 * time.Millisecond

var (
	// errPasted: the line was pasted, not typed.
	errPasted = errors.New("the answer was pasted")
	// errNoAnswer: the human ended the input (Ctrl-D on an empty line) or
	// interrupted it (Ctrl-C).
	errNoAnswer = errors.New("no answer")
)

// terminal is the controlling terminal, opened for one door.
type terminal struct {
	f   *os.File
	fd  int
	buf []byte // bytes read but not yet used, with the read they came in
	// inPaste is true between ESC[200~ and ESC[201~.
	inPaste bool
	burst   bool      // the bytes in buf came as more than one character
	readAt  time.Time // when buf was read
	echo    []byte    // what to echo before the next read
}

func newTerminal(f *os.File) *terminal { return &terminal{f: f, fd: int(f.Fd())} }

func (t *terminal) Write(b []byte) (int, error) { return t.f.Write(b) }

// raw puts the terminal in the mode the reader needs and returns the
// function that restores it. With flush, every byte typed ahead is
// discarded (TCSETSF flushes the input queue): an answer is only what is
// typed after its prompt. Signals that end the process restore it first.
func (t *terminal) raw(flush bool) (func(), error) {
	old, err := unix.IoctlGetTermios(t.fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	m := *old
	m.Lflag &^= unix.ICANON | unix.ECHO | unix.ECHONL | unix.ISIG | unix.IEXTEN
	m.Iflag &^= unix.ICRNL | unix.INLCR | unix.IXON
	m.Cc[unix.VMIN], m.Cc[unix.VTIME] = 1, 0
	set := uint(unix.TCSETS)
	if flush {
		set = unix.TCSETSF
	}
	if err := unix.IoctlSetTermios(t.fd, set, &m); err != nil {
		return nil, err
	}
	t.buf, t.inPaste = nil, false
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			_ = unix.IoctlSetTermios(t.fd, unix.TCSETS, old)
			t.f.WriteString("\x1b[?2004l\n")
			signal.Reset(s)
			_ = syscall.Kill(os.Getpid(), s.(syscall.Signal))
		case <-done:
		}
	}()
	return func() {
		close(done)
		signal.Stop(sig)
		_ = unix.IoctlSetTermios(t.fd, unix.TCSETS, old)
	}, nil
}

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
func (t *terminal) next() (key, error) {
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
func (t *terminal) escape() (string, bool) {
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
func (t *terminal) out(s string) { t.echo = append(t.echo, s...) }

func (t *terminal) flushEcho() {
	if len(t.echo) > 0 {
		t.f.Write(t.echo)
		t.echo = t.echo[:0]
	}
}

// readLine reads one line the human edits: printable runes are echoed
// escaped, backspace and Ctrl-U edit, Enter ends it. pasted reports that a
// character of it was pasted. Ctrl-D on an empty line and Ctrl-C end the
// input with errNoAnswer.
func (t *terminal) readLine() (line string, pasted bool, err error) {
	var rs []rune
	for {
		k, err := t.next()
		if err != nil {
			return "", false, errNoAnswer
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
			return "", false, errNoAnswer
		case keyEOF:
			if len(rs) == 0 {
				t.out("\n")
				t.flushEcho()
				return "", false, errNoAnswer
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

// answer draws prompt and reads one line that the human typed after it:
// input typed ahead is discarded, bracketed paste is on while it reads, and
// a pasted line is refused with a word to type it, and asked again. An
// empty line is asked again too: an accidental Enter decides nothing.
func (t *terminal) answer(prompt string) (string, error) {
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

// flush discards every byte typed ahead.
func (t *terminal) flush() error {
	t.buf, t.inPaste = nil, false
	return unix.IoctlSetInt(t.fd, unix.TCFLSH, unix.TCIFLUSH)
}

// input reads the session's next input after prompt: a line the human
// typed, or a whole paste, which is one input whatever lines it holds (a
// reply, a patch, a question). pasted reports a paste: a paste is never
// read as a command or an answer. Lines that follow each other less than
// burstGap apart are one input too, for terminals that do not bracket
// pastes. It returns errNoAnswer when the human ends the session (Ctrl-D).
func (t *terminal) input(prompt string) (text string, pasted bool, err error) {
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

// more reports whether the input goes on after a line's end: the paste is
// still open, bytes of the same read are left, or more arrive within
// burstGap.
func (t *terminal) more() bool {
	if t.inPaste || len(t.buf) > 0 {
		return true
	}
	fds := []unix.PollFd{{Fd: int32(t.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(burstGap/time.Millisecond))
	return err == nil && n > 0
}
