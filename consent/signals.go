package consent

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// WatchSignals turns SIGINT and SIGTERM into a flag for Options.Interrupted:
// an apply that sees it before its branch moves rolls back. stop restores
// the default handling.
func WatchSignals() (interrupted func() bool, stop func()) {
	var flag atomic.Bool
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		if _, ok := <-sigs; ok {
			flag.Store(true)
		}
	}()
	return flag.Load, func() {
		signal.Stop(sigs)
		close(sigs)
	}
}
