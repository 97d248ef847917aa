package terminal

import (
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// Color decides colour for one stream as git does: the --color flag
// ("always", "never"; "auto" or "" defer), then NIKA_COLOR, then git config
// color.nika and color.ui (always or never; auto and true defer), then
// NO_COLOR, then whether w is a terminal. config reads the repository's
// git config; nil outside a repository.
func Color(w io.Writer, flag string, config func(key string) (string, bool)) bool {
	switch flag {
	case "always":
		return true
	case "never":
		return false
	}
	switch os.Getenv("NIKA_COLOR") {
	case "always":
		return true
	case "never":
		return false
	}
	if config != nil {
	keys:
		for _, key := range []string{"color.nika", "color.ui"} {
			v, ok := config(key)
			if !ok {
				continue
			}
			switch strings.ToLower(v) {
			case "always":
				return true
			case "never", "false", "no", "off", "0":
				return false
			}
			break keys // auto, true: decide by the terminal
		}
	}
	if v, ok := os.LookupEnv("NO_COLOR"); ok && v != "" {
		return false
	}
	return IsTerminal(w)
}
