package consent

import "strings"

// Answer is what a human's line means.
type Answer int

const (
	// Decline discards the proposal.
	Decline Answer = iota
	// Yes applies it.
	Yes
)

// Decide reads a line typed at the consent prompt. Exactly "yes" consents;
// only the line terminator is ignored. "y", "Yes", "yes please", an empty
// line or anything else declines: consent is a word the human types, not
// one a tool can stumble into.
func Decide(line string) Answer {
	line = strings.TrimSuffix(line, "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "yes" {
		return Yes
	}
	return Decline
}
