package main

import "github.com/nika-dev/nika/changeset"

// exitCodes is the one table from refusal class to exit code. It is
// documented in docs/exit-codes.md; a test keeps the two in step.
var exitCodes = map[changeset.Class]int{
	changeset.Internal:           3,
	changeset.Invalid:            4,
	changeset.NotAllowed:         5,
	changeset.Dirty:              6,
	changeset.Unsupported:        7,
	changeset.StaleRevision:      8,
	changeset.AlreadyConsumed:    9,
	changeset.NotFound:           10,
	changeset.Ambiguous:          11,
	changeset.NoConsent:          12,
	changeset.Locked:             13,
	changeset.TooLarge:           14,
	changeset.Io:                 15,
	changeset.RollbackIncomplete: 16,
}

const (
	exitOK       = 0
	exitFindings = 2 // nika check: the files have findings
)

func exitCode(c changeset.Class) int {
	if n, ok := exitCodes[c]; ok {
		return n
	}
	return exitCodes[changeset.Internal]
}
