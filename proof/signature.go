package proof

import (
	"fmt"
	"strings"

	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/refusal"
)

// The statuses of a proposal commit's signature.
const (
	SigUnsigned   = "unsigned"    // no signature
	SigGood       = "good"        // a good signature by an allowed key
	SigNotAllowed = "not-allowed" // a good signature by a key git's rules do not allow
	SigBad        = "bad"         // the signature does not verify
	SigUnchecked  = "unchecked"   // the program that checks it is missing
)

// Signature is what verify found of a proposal commit's signature. nika
// signs only after a human's yes (see docs/ci), so a good signature by a
// human's allowed key proves that human's consent to this proposal.
type Signature struct {
	Status string `json:"status"`
	Format string `json:"format,omitempty"` // openpgp, x509, ssh
	Key    string `json:"key,omitempty"`    // the key's fingerprint or id
	Signer string `json:"signer,omitempty"` // the allowed principal (ssh) or the user id (openpgp, x509)
	// ProposalCommit is the commit the signature signs: this commit without
	// its signature, which is the proposal commit nika staged.
	ProposalCommit string `json:"proposal_commit,omitempty"`
	Text           string `json:"text,omitempty"` // why it is not good, for the human
}

// proposalHeaders are the headers of a commit as nika writes a proposal.
var proposalHeaders = map[string]bool{"tree": true, "parent": true, "author": true, "committer": true}

// checkSignature checks a proven proposal's signature. Stripped of its
// signature, the commit must be exactly a proposal commit (its manifest is
// the one the id was re-derived from: the signature adds no other header);
// the signature is checked by git's rules (gitstage.CheckSignature). A bad
// signature always fails; with requireSigned, so do an unsigned commit, a
// key that is not allowed, and a signature that cannot be checked here.
func checkSignature(r *gitstage.Repo, ci *gitstage.CommitInfo, res *Result, requireSigned bool) {
	sc, err := r.CommitSignature(ci.Hash)
	if err != nil {
		res.Status = Failed
		res.Failures = append(res.Failures, failureOf(err))
		return
	}
	if sc == nil {
		res.Signature = &Signature{Status: SigUnsigned}
		if requireSigned {
			res.fail(refusal.Unsigned, "the proposal commit is not signed, so nothing in git proves that a human consented to it",
				"sign the commits nika applies (git config commit.gpgsign true, or nika.sign true, with gpg.format and user.signingkey); a commit applied unsigned stays unsigned: propose and apply the change again")
		}
		return
	}
	sig := &Signature{Format: sc.Format, ProposalCommit: sc.Signed, Key: sc.SSHKey()}
	res.Signature = sig
	bad := func(text string) {
		sig.Status, sig.Text = SigBad, text
		res.fail(refusal.BadSignature, text,
			"restore the commit as it was signed; a signature proves only the exact commit it was made for, so a changed commit must be proposed and applied again")
	}
	for _, h := range sc.Headers {
		if !proposalHeaders[h] {
			bad(fmt.Sprintf("the signature covers more than the proposal commit: the signed commit carries a %q header, which nika never writes", h))
			return
		}
	}
	if sc.Signatures > 1 {
		bad(fmt.Sprintf("the commit carries %d gpgsig headers; a signed proposal commit carries one", sc.Signatures))
		return
	}
	c := r.CheckSignature(sc)
	if c.Key != "" {
		sig.Key = c.Key
	}
	sig.Signer = c.Signer
	format := sc.Format
	if format == "" {
		format = "unknown"
	}
	switch {
	case c.Unchecked != "":
		sig.Status, sig.Text = SigUnchecked, c.Unchecked
		if requireSigned {
			res.fail(refusal.Unsupported, c.Unchecked, "install the program where the proof runs, or name it in "+programKey(format))
		}
	case c.Result == 'B':
		why := c.Why
		if c.Output != "" && !strings.Contains(why, c.Output) {
			why += " (" + c.Output + ")"
		}
		bad(fmt.Sprintf("the %s signature does not verify: %s; the commit or its signature was changed after signing", format, why))
	case c.Good():
		sig.Status = SigGood
	default:
		sig.Status, sig.Text = SigNotAllowed, c.Why
		if requireSigned {
			res.fail(refusal.KeyNotAllowed, fmt.Sprintf("the %s signature is good, but its key is not allowed: %s", format, c.Why), allowHint(format))
		}
	}
}

func programKey(format string) string {
	switch format {
	case gitstage.FormatSSH:
		return "gpg.ssh.program"
	case gitstage.FormatX509:
		return "gpg.x509.program"
	}
	return "gpg.program"
}

func allowHint(format string) string {
	switch format {
	case gitstage.FormatSSH:
		return "if the key is a human's who may consent, add it to the file gpg.ssh.allowedSignersFile names (a line: PRINCIPAL KEYTYPE KEY)"
	case gitstage.FormatX509:
		return "if the certificate is a human's who may consent, import it (gpgsm --import) and trust its root"
	}
	return "if the key is a human's who may consent, import the public key into the keyring (gpg --import), at gpg.minTrustLevel or above"
}
