package main

import "os"

// openTTY opens the controlling terminal, the only place consent is read
// from: not stdin (a model's output may be piped there), not a flag.
func openTTY() (*os.File, error) {
	return os.OpenFile("/dev/tty", os.O_RDWR, 0)
}
