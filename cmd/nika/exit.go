package main

// The exit codes that are not refusals; refusal.Code is the table of the
// others (docs/exit-codes.md).
const (
	exitOK = 0
	// exitNotClean: nika apply applied the proposal, and the check or a
	// hook after it failed. The apply stays; the verdict is in the git note.
	exitNotClean = 1
	// exitFindings: nika check found errors in the files.
	exitFindings = 2
)
