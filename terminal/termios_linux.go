package terminal

import "golang.org/x/sys/unix"

// Linux's termios requests: TCSETSF sets the mode after the output drained
// and discards the input typed ahead.
const (
	ioctlGet      uint = unix.TCGETS
	ioctlSet      uint = unix.TCSETS
	ioctlSetFlush uint = unix.TCSETSF
)

// flushInput discards every byte typed ahead on fd.
func flushInput(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
