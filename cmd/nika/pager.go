package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"
)

// page writes out to stdout, through the pager when stdout is a terminal
// and out is taller than it, the way git does (pagerCommand).
func (d *door) page(out []byte) error {
	f, ok := d.stdout.(*os.File)
	if !ok || d.json || !isTerminal(f) {
		_, err := d.stdout.Write(out)
		return err
	}
	return d.pageTo(f, out)
}

// pageTo writes out to the terminal f, through the pager when out is taller
// than the terminal and no option turned the pager off.
func (d *door) pageTo(f *os.File, out []byte) error {
	pager := d.pagerCommand()
	if pager == "" || pager == "cat" || !tall(f, out) {
		_, err := f.Write(out)
		return err
	}
	cmd := exec.Command("sh", "-c", pager)
	cmd.Stdin = bytes.NewReader(out)
	cmd.Stdout = f
	cmd.Stderr = d.stderr
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

// pagerCommand chooses the pager as git does, with nika's own settings
// first: --no-pager (-P) and pager.nika=false turn it off; otherwise
// NIKA_PAGER, GIT_PAGER, pager.nika (when it names a command), core.pager,
// PAGER, then less (with LESS=FRX unless LESS is set). An empty value, or
// cat, means no pager.
func (d *door) pagerCommand() string {
	if d.noPager {
		return ""
	}
	var pagerNika string
	if d.repo != nil {
		if v, ok := d.repo.Config("pager.nika"); ok {
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
	if d.repo != nil {
		if p, ok := d.repo.Config("core.pager"); ok {
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
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Row == 0 {
		return false
	}
	return bytes.Count(out, []byte("\n")) >= int(ws.Row)-1
}
