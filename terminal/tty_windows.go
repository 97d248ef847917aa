package terminal

import (
	"os"
	"time"

	"github.com/nika-dev/nika/refusal"
)

// errNoConsole is what a consent door hears on Windows: the reader needs
// the console in a raw mode that discards what was typed ahead and tells a
// paste from typing, and that is not built for Windows yet.
var errNoConsole = refusal.New(refusal.Unsupported, "",
	"nika cannot read consent from a Windows console yet: its consent reader (raw mode that discards typed-ahead input and refuses a pasted answer) is built only for unix terminals · nothing was read")

// Open refuses on Windows: see errNoConsole.
func Open() (*Terminal, error) { return nil, errNoConsole }

func (t *Terminal) raw(flush bool) (func(), error) { return nil, errNoConsole }

func readable(fd int, wait time.Duration) bool { return false }

func flushInput(fd int) error { return errNoConsole }

// rows is 0: the pager is never started (see Page).
func rows(f *os.File) int { return 0 }
