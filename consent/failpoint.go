//go:build failpoints

package consent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// failpointsOn says whether this build has crash points.
const failpointsOn = true

// failpoint acts when NIKA_FAILPOINT names this step ("step" or "step:i"):
// it kills the process with SIGKILL, or, written "sigint@step", sends it a
// SIGINT, as a human's Ctrl-C would, and goes on, or, written
// "pause@step", writes the file $NIKA_FAILPOINT_DIR/paused and waits
// until $NIKA_FAILPOINT_DIR/resume exists: a racing writer changes the
// tree at that exact point, from outside. It exists only in builds
// tagged failpoints, which the crash tests build; release builds compile
// the no-op twin in failpoint_off.go.
func failpoint(step string, i int) {
	fp := os.Getenv("NIKA_FAILPOINT")
	if fp == "" {
		return
	}
	sig := syscall.SIGKILL
	if rest, ok := strings.CutPrefix(fp, "sigint@"); ok {
		fp, sig = rest, syscall.SIGINT
	} else if rest, ok := strings.CutPrefix(fp, "pause@"); ok {
		if rest == step || rest == fmt.Sprintf("%s:%d", step, i) {
			dir := os.Getenv("NIKA_FAILPOINT_DIR")
			os.WriteFile(filepath.Join(dir, "paused"), nil, 0o644)
			for {
				if _, err := os.Stat(filepath.Join(dir, "resume")); err == nil {
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		return
	}
	if fp != step && fp != fmt.Sprintf("%s:%d", step, i) {
		return
	}
	syscall.Kill(os.Getpid(), sig)
	if sig == syscall.SIGKILL {
		select {}
	}
	time.Sleep(50 * time.Millisecond) // let the door's handler see it
}
