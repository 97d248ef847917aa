package convert

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The long-running filter protocol of gitattributes(5) ("Long Running
// Filter Process"), as git's convert.c and sub-process.c speak it: one
// process per driver for the whole command, a handshake (version 2), the
// capabilities clean and smudge (delay is never offered: nika needs each
// file's bytes before it goes on), then per file a command, the pathname,
// the content in pkt-lines, and the filter's status, content and final
// status.

const maxPktData = 65516 // LARGE_PACKET_DATA_MAX

type process struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	caps map[string]bool
	dead error      // the process failed; every later file fails alike
	done chan error // set once the process was waited for
	errb lockedBuffer
}

// lockedBuffer is the filter's standard error, written by exec's copier
// while the protocol may read it for an error text.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func writePkt(w io.Writer, data []byte) error {
	if len(data) > maxPktData {
		return errors.New("packet too long")
	}
	if _, err := fmt.Fprintf(w, "%04x", len(data)+4); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}

func writeFlush(w io.Writer) error {
	_, err := io.WriteString(w, "0000")
	return err
}

func writeText(w io.Writer, lines ...string) error {
	for _, l := range lines {
		if err := writePkt(w, []byte(l+"\n")); err != nil {
			return err
		}
	}
	return writeFlush(w)
}

// readPkt reads one packet; flush is true for 0000.
func readPkt(r *bufio.Reader) (data []byte, flush bool, err error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, false, err
	}
	n, err := strconv.ParseUint(string(hdr[:]), 16, 16)
	if err != nil {
		return nil, false, fmt.Errorf("bad packet header %q", hdr[:])
	}
	if n == 0 {
		return nil, true, nil
	}
	if n < 4 {
		return nil, false, fmt.Errorf("bad packet length %d", n)
	}
	data = make([]byte, n-4)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, false, err
	}
	return data, false, nil
}

// readText reads text packets up to a flush.
func readText(r *bufio.Reader) ([]string, error) {
	var out []string
	for {
		d, flush, err := readPkt(r)
		if err != nil {
			return nil, err
		}
		if flush {
			return out, nil
		}
		out = append(out, strings.TrimSuffix(string(d), "\n"))
	}
}

func startProcess(cmdline, dir string, env []string) (*process, error) {
	c := shell(cmdline, dir, env)
	in, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &process{cmd: c, in: in, out: bufio.NewReaderSize(out, 64<<10)}
	c.Stderr = &p.errb
	if err := c.Start(); err != nil {
		return nil, err
	}
	if err := p.handshake(); err != nil {
		p.kill()
		return nil, p.why(err)
	}
	return p, nil
}

func (p *process) why(err error) error {
	if s := strings.TrimSpace(p.errb.String()); s != "" {
		return fmt.Errorf("%v: %s", err, firstLine(s))
	}
	return err
}

func (p *process) handshake() error {
	if err := writeText(p.in, "git-filter-client", "version=2"); err != nil {
		return err
	}
	lines, err := readText(p.out)
	if err != nil {
		return fmt.Errorf("the filter did not answer the handshake (%v)", err)
	}
	if len(lines) < 1 || lines[0] != "git-filter-server" {
		return errors.New("the filter did not answer as git-filter-server")
	}
	v2 := false
	for _, l := range lines[1:] {
		if l == "version=2" {
			v2 = true
		}
	}
	if !v2 {
		return errors.New("the filter does not speak version 2")
	}
	if err := writeText(p.in, "capability=clean", "capability=smudge"); err != nil {
		return err
	}
	if lines, err = readText(p.out); err != nil {
		return fmt.Errorf("the filter did not list its capabilities (%v)", err)
	}
	p.caps = map[string]bool{}
	for _, l := range lines {
		if c, ok := strings.CutPrefix(l, "capability="); ok {
			p.caps[c] = true
		}
	}
	return nil
}

// run converts one file. ok is false when the filter lacks the
// capability: git passes the bytes through then.
func (p *process) run(command, path string, src []byte) (out []byte, ok bool, err error) {
	if p.dead != nil {
		return nil, true, p.dead
	}
	if !p.caps[command] {
		return nil, false, nil
	}
	fail := func(e error) ([]byte, bool, error) {
		// The conversation is lost: git stops such a process (SIGTERM)
		// and fails every later file of the driver.
		p.dead = p.why(e)
		p.kill()
		return nil, true, p.dead
	}
	if err := writeText(p.in, "command="+command, "pathname="+path); err != nil {
		return fail(err)
	}
	for len(src) > 0 {
		n := min(len(src), maxPktData)
		if err := writePkt(p.in, src[:n]); err != nil {
			return fail(err)
		}
		src = src[n:]
	}
	if err := writeFlush(p.in); err != nil {
		return fail(err)
	}
	status, err := readText(p.out)
	if err != nil {
		return fail(err)
	}
	if s := lastStatus(status, "success"); s != "success" {
		return nil, true, fmt.Errorf("the filter answered status=%s", s)
	}
	var buf bytes.Buffer
	for {
		d, flush, err := readPkt(p.out)
		if err != nil {
			return fail(err)
		}
		if flush {
			break
		}
		buf.Write(d)
	}
	final, err := readText(p.out)
	if err != nil {
		return fail(err)
	}
	if s := lastStatus(final, "success"); s != "success" {
		return nil, true, fmt.Errorf("the filter answered status=%s", s)
	}
	return buf.Bytes(), true, nil
}

// lastStatus is the last status= line, or def when there is none (an
// empty list keeps the status before it).
func lastStatus(lines []string, def string) string {
	s := def
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "status="); ok {
			s = v
		}
	}
	return s
}

// close ends the process as git does: its standard input closes, and it
// is waited for; one that does not exit within closeWait is killed.
func (p *process) close() error {
	if p.done != nil {
		return nil // killed already
	}
	p.in.Close()
	p.done = make(chan error, 1)
	go func() { p.done <- p.cmd.Wait() }()
	select {
	case err := <-p.done:
		return err
	case <-time.After(closeWait):
		p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("the filter process did not exit when its input closed, and was killed")
	}
}

// closeWait is how long a filter process may take to exit after its
// input closed.
const closeWait = 10 * time.Second

// kill stops a process whose conversation failed.
func (p *process) kill() {
	if p.done != nil {
		return
	}
	p.in.Close()
	p.cmd.Process.Kill()
	p.done = make(chan error, 1)
	p.done <- p.cmd.Wait()
}
