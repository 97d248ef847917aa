package convert

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// Driver is a filter driver as git's configuration defines it:
// filter.<name>.clean, .smudge, .process and .required. A filter
// attribute whose driver has no configuration at all has no Driver: git
// passes the bytes through.
type Driver struct {
	Name     string
	Clean    string
	Smudge   string
	Process  string
	Required bool
}

// Command is the command line git runs for a direction: the process
// command wins over clean and smudge, as in git. kind is "process",
// "clean" or "smudge", and "" when the driver has nothing for it.
func (d *Driver) Command(toGit bool) (cmd, kind string) {
	switch {
	case d.Process != "":
		return d.Process, "process"
	case toGit && d.Clean != "":
		return d.Clean, "clean"
	case !toGit && d.Smudge != "":
		return d.Smudge, "smudge"
	}
	return "", ""
}

// FilterError is a filter that failed; git dies on it when the driver is
// required, and otherwise passes the bytes through with an error line.
type FilterError struct {
	Path, Driver, Command string
	Clean                 bool // the direction: clean (to git) or smudge
	Required              bool
	Why                   string
}

func (e *FilterError) Error() string {
	dir := "smudge"
	if e.Clean {
		dir = "clean"
	}
	return fmt.Sprintf("%s: %s filter %s failed: %s", e.Path, dir, e.Driver, e.Why)
}

// expandPath is git's %f: the path, single-quoted for the shell; %% is a
// percent sign, and any other % stays.
func expandPath(cmd, p string) string {
	var b strings.Builder
	for i := 0; i < len(cmd); i++ {
		if cmd[i] != '%' || i+1 >= len(cmd) {
			b.WriteByte(cmd[i])
			continue
		}
		switch cmd[i+1] {
		case 'f':
			b.WriteString(shellQuote(p))
			i++
		case '%':
			b.WriteByte('%')
			i++
		default:
			b.WriteByte('%')
		}
	}
	return b.String()
}

// shellQuote is git's sq_quote_buf: 'a'\”b'.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shell is how git runs a configured command: through sh -c, in the top
// of the working tree, with the environment env.
func shell(cmd, dir string, env []string) *exec.Cmd {
	c := exec.Command("sh", "-c", cmd)
	c.Dir = dir
	c.Env = env
	return c
}

// runSingle is git's apply_single_file_filter: the command reads the
// bytes on its standard input and writes the result on its standard
// output; a non-zero exit is a failure.
func runSingle(cmd, p, dir string, env []string, src []byte) ([]byte, string) {
	c := shell(expandPath(cmd, p), dir, env)
	c.Stdin = bytes.NewReader(src)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		why := err.Error()
		if s := strings.TrimSpace(errb.String()); s != "" {
			why += ": " + firstLine(s)
		}
		return nil, why
	}
	return out.Bytes(), ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
