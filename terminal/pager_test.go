package terminal

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// pagedOn pages out on a real terminal of the given height, with the pager
// chosen as a door outside a repository chooses it, and returns what the
// terminal showed.
func pagedOn(t *testing.T, rows uint16, out []byte) string {
	t.Helper()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	if err := pty.Setsize(tty, &pty.Winsize{Rows: rows, Cols: 80}); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&got, ptm); close(done) }()
	if err := Page(tty, out, Pager(false, nil), io.Discard); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal did not close")
	}
	return strings.ReplaceAll(got.String(), "\r\n", "\n")
}

// TestPagerFollowsGit: output taller than the terminal goes through the
// pager, chosen as git chooses it (GIT_PAGER, then PAGER); shorter output is
// printed directly; "cat" means no pager.
func TestPagerFollowsGit(t *testing.T) {
	tall := []byte(strings.Repeat("line\n", 40))
	short := []byte("one\ntwo\n")
	t.Setenv("GIT_PAGER", "sed 's/^/paged: /'")
	if got := pagedOn(t, 10, tall); !strings.HasPrefix(got, "paged: line\n") {
		t.Errorf("tall output did not go through the pager:\n%q", got[:min(len(got), 80)])
	}
	if got := pagedOn(t, 10, short); got != "one\ntwo\n" {
		t.Errorf("short output was paged: %q", got)
	}
	t.Setenv("GIT_PAGER", "cat")
	if got := pagedOn(t, 10, tall); got != string(tall) {
		t.Errorf("GIT_PAGER=cat changed the output")
	}
	os.Unsetenv("GIT_PAGER")
	t.Setenv("PAGER", "sed 's/^/pager: /'")
	if got := pagedOn(t, 10, tall); !strings.HasPrefix(got, "pager: line\n") {
		t.Errorf("PAGER was not used: %q", got[:min(len(got), 80)])
	}
}

// TestColorFollowsTerminalAndNoColor: color only on a terminal, never
// with NO_COLOR.
func TestColorFollowsTerminalAndNoColor(t *testing.T) {
	_, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer tty.Close()
	os.Unsetenv("NIKA_COLOR")
	t.Setenv("NO_COLOR", "")
	if !Color(tty, "", nil) {
		t.Error("no color on a terminal")
	}
	if Color(&bytes.Buffer{}, "", nil) {
		t.Error("color on a pipe")
	}
	t.Setenv("NO_COLOR", "1")
	if Color(tty, "", nil) {
		t.Error("color despite NO_COLOR")
	}
}
