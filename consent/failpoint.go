//go:build failpoints

package consent

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// failpointsOn says whether this build has crash points.
const failpointsOn = true

// failpoint acts when NIKA_FAILPOINT names this step ("step" or "step:i"):
// it kills the process with SIGKILL, or, written "sigint@step", sends it a
// SIGINT, as a human's Ctrl-C would, and goes on. It exists only in builds
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
