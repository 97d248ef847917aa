package main

import "github.com/nika-dev/nika/refusal"

const (
	exitOK       = 0
	exitFindings = 2 // nika check: the files have findings
)

func exitCode(c refusal.Class) int { return refusal.Code(c) }
