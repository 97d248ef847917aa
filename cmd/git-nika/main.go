// Command git-nika lets git run nika as one of its own commands: for
// `git nika VERB`, git runs git-nika from PATH, and this program runs the
// nika installed beside it (or else the one on PATH) with the same
// arguments. nika sees itself called as git-nika and says "git nika" in its
// usage; git nika --help shows the git-nika(1) man page, as git does for
// every command.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

func main() {
	nika := ""
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), "nika"); isExecutable(p) {
			nika = p
		}
	}
	if nika == "" {
		p, err := exec.LookPath("nika")
		if err != nil {
			fmt.Fprintln(os.Stderr, "git-nika: nika is neither beside git-nika nor on PATH · install both with scripts/install.sh")
			os.Exit(127)
		}
		nika = p
	}
	argv := append([]string{"git-nika"}, os.Args[1:]...)
	err := syscall.Exec(nika, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "git-nika: could not run %s: %v\n", nika, err)
	os.Exit(126)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
