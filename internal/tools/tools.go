//go:build tools

// Package tools pins modules that nika's packages are about to use, so that
// go.mod stays stable while they land. It is never built.
package tools

import (
	_ "github.com/aymanbagabas/go-udiff"
	_ "github.com/creack/pty"
	_ "github.com/fatih/color"
	_ "github.com/go-git/go-git/v5"
	_ "github.com/mattn/go-isatty"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/urfave/cli/v2"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/text/unicode/norm"
)
