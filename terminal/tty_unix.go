//go:build unix

package terminal

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Open opens the controlling terminal, the only place consent is read
// from: not stdin (a model's output may be piped there), not a flag.
func Open() (*Terminal, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return newTerminal(f), nil
}

// raw puts the terminal in the mode the reader needs and returns the
// function that restores it. With flush, every byte typed ahead is
// discarded (ioctlSetFlush flushes the input queue): an answer is only
// what is typed after its prompt. Signals that end the process restore it
// first.
func (t *Terminal) raw(flush bool) (func(), error) {
	old, err := unix.IoctlGetTermios(t.fd, ioctlGet)
	if err != nil {
		return nil, err
	}
	m := *old
	m.Lflag &^= unix.ICANON | unix.ECHO | unix.ECHONL | unix.ISIG | unix.IEXTEN
	m.Iflag &^= unix.ICRNL | unix.INLCR | unix.IXON
	m.Cc[unix.VMIN], m.Cc[unix.VTIME] = 1, 0
	set := ioctlSet
	if flush {
		set = ioctlSetFlush
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
			_ = unix.IoctlSetTermios(t.fd, ioctlSet, old)
			t.f.WriteString("\x1b[?2004l\n")
			signal.Reset(s)
			_ = syscall.Kill(os.Getpid(), s.(syscall.Signal))
		case <-done:
		}
	}()
	return func() {
		close(done)
		signal.Stop(sig)
		_ = unix.IoctlSetTermios(t.fd, ioctlSet, old)
	}, nil
}

// readable reports whether a byte arrives on fd within wait.
func readable(fd int, wait time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(wait/time.Millisecond))
	return err == nil && n > 0
}

// rows is the height of the terminal f, 0 when it cannot be read.
func rows(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Row)
}
