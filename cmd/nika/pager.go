package main

import (
	"bytes"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// page writes out to stdout, through the pager when stdout is a terminal
// and out is taller than it, the way git does: GIT_PAGER, core.pager,
// PAGER, then less, with LESS=FRX unless the user set LESS.
func (d *door) page(out []byte) error {
	f, ok := d.stdout.(*os.File)
	if !ok || d.json || !isTerminal(d.stdout) || !d.tall(f, out) {
		_, err := d.stdout.Write(out)
		return err
	}
	pager := d.pagerCommand()
	if pager == "" || pager == "cat" {
		_, err := d.stdout.Write(out)
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
			_, err = d.stdout.Write(out)
			return err
		}
	}
	return nil
}

func (d *door) pagerCommand() string {
	if p, ok := os.LookupEnv("GIT_PAGER"); ok {
		return p
	}
	if d.repo != nil {
		if p, ok := d.repo.Config.Get("core.pager"); ok {
			return p
		}
	}
	if p, ok := os.LookupEnv("PAGER"); ok {
		return p
	}
	return "less"
}

// tall reports whether out has more lines than the terminal.
func (d *door) tall(f *os.File, out []byte) bool {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Row == 0 {
		return false
	}
	return bytes.Count(out, []byte("\n")) >= int(ws.Row)-1
}
