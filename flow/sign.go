package flow

import (
	"strings"

	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/refusal"
)

// Signing says how git's configuration will have the applied commit
// signed ("ssh, key SHA256:…"), for the preview; "" when it signs nothing.
// The signature itself is made only after the yes (consent.Apply), so the
// preview names the unsigned proposal commit, and the branch moves to its
// signed twin. Every proposal is signed the same way: proposed, derived
// (Derive) or a revert.
func Signing(r *gitstage.Repo) string {
	s, err := r.Signer()
	if err != nil {
		text := err.Error()
		if e, ok := err.(*refusal.Error); ok {
			text = e.Text
		}
		return "but " + strings.TrimSuffix(text, ".") + ", so the apply will refuse"
	}
	if s == nil {
		return ""
	}
	return s.Describe()
}
