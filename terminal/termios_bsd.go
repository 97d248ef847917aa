//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package terminal

import "golang.org/x/sys/unix"

// The BSDs' and macOS's termios requests: TIOCSETAF sets the mode after the
// output drained and discards the input typed ahead, as Linux's TCSETSF.
const (
	ioctlGet      uint = unix.TIOCGETA
	ioctlSet      uint = unix.TIOCSETA
	ioctlSetFlush uint = unix.TIOCSETAF
)

// flushInput discards every byte typed ahead on fd: the mode set again with
// TIOCSETAF, which flushes the input queue (tcflush(TCIFLUSH) in libc).
func flushInput(fd int) error {
	m, err := unix.IoctlGetTermios(fd, ioctlGet)
	if err != nil {
		return err
	}
	return unix.IoctlSetTermios(fd, ioctlSetFlush, m)
}
