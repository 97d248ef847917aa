package terminal

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTerminalDocStatesTheBurstGap: docs/terminal.md says how a burst is
// told from typing, with the number the reader uses.
func TestTerminalDocStatesTheBurstGap(t *testing.T) {
	b, err := os.ReadFile("../docs/terminal.md")
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.Itoa(int(BurstGap/time.Millisecond)) + " ms"
	if !strings.Contains(string(b), want) {
		t.Errorf("docs/terminal.md does not state the burst gap, %s", want)
	}
}
