package main

import "github.com/nika-dev/nika/changeset"

// The exit codes of nika verify's failure classes (docs/exit-codes.md).
func init() {
	exitCodes[changeset.TamperedTrailer] = 20
	exitCodes[changeset.AmendedTree] = 21
	exitCodes[changeset.WrongParent] = 22
	exitCodes[changeset.Findings] = 23
	exitCodes[changeset.MissingObjects] = 24
	exitCodes[changeset.NotAProposal] = 25
	exitCodes[changeset.CorruptObject] = 26
}
