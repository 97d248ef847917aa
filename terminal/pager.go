package terminal

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Page writes out to the terminal f, through pager (a shell command) when
// out is taller than the terminal, the way git does: LESS=FRX and LV=-c
// unless they are set. An empty pager, or cat, writes out directly. A pager
// that cannot start must not hide the preview: out is then written as it
// is. The pager's errors go to stderr.
func Page(f *os.File, out []byte, pager string, stderr io.Writer) error {
	if pager == "" || pager == "cat" || !tall(f, out) {
		_, err := f.Write(out)
		return err
	}
	cmd := exec.Command("sh", "-c", pager)
	cmd.Stdin = bytes.NewReader(out)
	cmd.Stdout = f
	cmd.Stderr = stderr
	cmd.Env = os.Environ()
	if _, set := os.LookupEnv("LESS"); !set {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if _, set := os.LookupEnv("LV"); !set {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	if err := cmd.Run(); err != nil {
		// A pager that cannot start must not hide the preview.
		if _, ok := err.(*exec.ExitError); !ok {
			_, err = f.Write(out)
			return err
		}
	}
	return nil
}

// Pager chooses the pager as git does, with nika's own settings first:
// noPager (--no-pager, -P) and pager.nika=false turn it off; otherwise
// NIKA_PAGER, GIT_PAGER, pager.nika (when it names a command), core.pager,
// PAGER, then less (with LESS=FRX unless LESS is set). An empty value, or
// cat, means no pager. config reads the repository's git config; nil
// outside a repository.
func Pager(noPager bool, config func(key string) (string, bool)) string {
	if noPager {
		return ""
	}
	var pagerNika string
	if config != nil {
		if v, ok := config("pager.nika"); ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "false", "no", "off", "0":
				return ""
			case "true", "yes", "on", "1", "":
			default:
				pagerNika = v
			}
		}
	}
	if p, ok := os.LookupEnv("NIKA_PAGER"); ok {
		return p
	}
	if p, ok := os.LookupEnv("GIT_PAGER"); ok {
		return p
	}
	if pagerNika != "" {
		return pagerNika
	}
	if config != nil {
		if p, ok := config("core.pager"); ok {
			return p
		}
	}
	if p, ok := os.LookupEnv("PAGER"); ok {
		return p
	}
	return "less"
}

// tall reports whether out has more lines than the terminal f.
func tall(f *os.File, out []byte) bool {
	n := rows(f)
	if n == 0 {
		return false
	}
	return bytes.Count(out, []byte("\n")) >= n-1
}
