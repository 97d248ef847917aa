package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
)

// A ttyDriver plays the human at a real pseudo-terminal that is the
// command's controlling terminal. It types the way a person does, one key
// per write, each after the terminal echoed the one before, so that nika's
// consent reader sees keystrokes; it can also paste (bracketed, as a
// terminal emulator does), write a burst (a paste from a terminal that does
// not bracket, or a program), and type ahead before a prompt.
type ttyDriver struct {
	cmd  *exec.Cmd
	f    *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
	pos  int // the transcript up to here was matched
}

func startTTY(cmd *exec.Cmd) (*ttyDriver, error) {
	return startTTYSize(cmd, 200, 500)
}

// startTTYSize starts cmd on a pseudo-terminal of cols × rows.
func startTTYSize(cmd *exec.Cmd, cols, rows uint16) (*ttyDriver, error) {
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		return nil, err
	}
	d := &ttyDriver{cmd: cmd, f: f, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			d.mu.Lock()
			d.out.Write(buf[:n])
			d.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return d, nil
}

// transcript is what the terminal showed, CRLF turned to LF.
func (d *ttyDriver) transcript() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.ReplaceAll(d.out.String(), "\r\n", "\n")
}

func (d *ttyDriver) raw() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.out.Len()
}

var errTimeout = errors.New("timed out")

// expect waits until text appears after the previous match.
func (d *ttyDriver) expect(text string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		s := d.transcript()
		if d.pos > len(s) {
			d.pos = len(s)
		}
		if i := strings.Index(s[d.pos:], text); i >= 0 {
			d.pos += i + len(text)
			return nil
		}
		select {
		case <-d.done:
			if strings.Contains(d.transcript()[d.pos:], text) {
				continue
			}
			return io.EOF
		default:
		}
		if time.Now().After(deadline) {
			return errTimeout
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// typeKeys types s one key at a time, each after the echo of the one
// before (or a short pause for keys that echo nothing).
func (d *ttyDriver) typeKeys(s string) {
	for _, r := range s {
		before := d.raw()
		d.f.Write([]byte(string(r)))
		deadline := time.Now().Add(2 * time.Second)
		for d.raw() == before && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// namedKeys are the keys a keys: step names, as a terminal sends them.
var namedKeys = map[string]string{
	"<up>": "\x1b[A", "<down>": "\x1b[B", "<space>": " ", "<enter>": "\r", "<esc>": "\x1b",
	"<bs>": "\x7f", "<pgdn>": "\x1b[6~", "<pgup>": "\x1b[5~",
}

// pressKeys presses each key of s, one write each, waiting after each for
// the screen to change (at most half a second: a key that changes nothing
// shown).
func (d *ttyDriver) pressKeys(s string) {
	for len(s) > 0 {
		k := s[:1]
		if s[0] == '<' {
			if i := strings.IndexByte(s, '>'); i > 0 {
				if seq, ok := namedKeys[s[:i+1]]; ok {
					k, s = seq, s[i+1:]
					d.press(k)
					continue
				}
			}
		}
		_, size := utf8.DecodeRuneInString(s)
		k, s = s[:size], s[size:]
		d.press(k)
	}
}

func (d *ttyDriver) press(k string) {
	before := d.raw()
	d.f.Write([]byte(k))
	deadline := time.Now().Add(500 * time.Millisecond)
	for d.raw() == before && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	// Let a frame settle: a full-screen program draws on a tick.
	time.Sleep(30 * time.Millisecond)
}

// line types s and Enter.
func (d *ttyDriver) line(s string) {
	d.typeKeys(s)
	d.f.Write([]byte("\r"))
}

// paste pastes s and Enter as a terminal that brackets pastes does.
func (d *ttyDriver) paste(s string) {
	d.f.Write([]byte("\x1b[200~" + strings.ReplaceAll(s, "\n", "\r") + "\x1b[201~"))
}

// burst writes s at once, as a terminal that does not bracket a paste, or
// another program, would.
func (d *ttyDriver) burst(s string) {
	d.f.Write([]byte(strings.ReplaceAll(s, "\n", "\r")))
}

// wait waits for the command to end.
func (d *ttyDriver) wait(limit time.Duration) error {
	waited := make(chan error, 1)
	go func() { waited <- d.cmd.Wait() }()
	select {
	case err := <-waited:
		<-d.done
		return err
	case <-time.After(limit):
		d.cmd.Process.Kill()
		<-waited
		return errTimeout
	}
}

// answerStep is one step of a pty answer script.
//
//	TEXT          at the next prompt, type TEXT and Enter
//	-             at the next prompt, press Enter on an empty line
//	^D, ^C        at the next prompt, press Ctrl-D or Ctrl-C
//	ahead:TEXT    type TEXT and Enter now, before any prompt
//	paste:TEXT    at the next prompt, paste TEXT and Enter (bracketed)
//	burst:TEXT    at the next prompt, write TEXT and Enter at once
//	see:TEXT      wait until TEXT is on the screen (a full-screen program)
//	keys:KEYS     press KEYS now, one at a time, each after the screen
//	              changed (or a short pause): characters as they are, and
//	              <up> <down> <space> <enter> <esc> <bs> <pgdn> <pgup>
//
// Steps are separated by |; \n in TEXT is a newline.
func runAnswers(d *ttyDriver, script, prompt string, wait time.Duration) error {
	if script == "" {
		return nil // answer nothing: the command runs to its end
	}
	for _, step := range strings.Split(script, "|") {
		step = strings.ReplaceAll(step, `\n`, "\n")
		if t, ok := strings.CutPrefix(step, "ahead:"); ok {
			d.f.Write([]byte(t + "\r"))
			continue
		}
		if t, ok := strings.CutPrefix(step, "see:"); ok {
			if err := d.expect(t, wait); err != nil {
				return fmt.Errorf("%w: %q not seen", errNoPrompt, t)
			}
			continue
		}
		if t, ok := strings.CutPrefix(step, "keys:"); ok {
			d.pressKeys(t)
			continue
		}
		if err := d.expect(prompt, wait); err == io.EOF {
			return io.EOF // the command ended without asking
		} else if err != nil {
			return errNoPrompt
		}
		switch {
		case step == "-":
			d.f.Write([]byte("\r"))
		case step == "^D":
			d.f.Write([]byte{4})
		case step == "^C":
			d.f.Write([]byte{3})
		case strings.HasPrefix(step, "paste:"):
			d.paste(strings.TrimPrefix(step, "paste:") + "\n")
		case strings.HasPrefix(step, "burst:"):
			d.burst(strings.TrimPrefix(step, "burst:") + "\n")
		default:
			d.line(step)
		}
	}
	return nil
}

var errNoPrompt = errors.New("no consent prompt")

// runPty runs cmd on a fresh pseudo-terminal that is its controlling
// terminal, follows the answer script at each consent prompt, and returns
// the transcript (CRLF turned to LF) and cmd's exit error.
func runPty(cmd *exec.Cmd, script string, wait time.Duration) (string, error) {
	return runPtySize(cmd, script, wait, 200, 500)
}

// runPtySize is runPty on a terminal of cols × rows.
func runPtySize(cmd *exec.Cmd, script string, wait time.Duration, cols, rows uint16) (string, error) {
	d, err := startTTYSize(cmd, cols, rows)
	if err != nil {
		return "", err
	}
	defer d.f.Close()
	if err := runAnswers(d, script, "Type yes", wait); err != nil && err != io.EOF {
		d.cmd.Process.Kill()
		d.wait(wait)
		return d.transcript(), err
	}
	err = d.wait(wait)
	return d.transcript(), err
}
