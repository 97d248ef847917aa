package flow

import (
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/refusal"
)

// staleFix is the fix for a pending proposal whose base is no longer HEAD:
// bring it forward (Rebase) when HEAD is on its branch with a commit to
// rebase onto; propose it again otherwise (HEAD is on another branch, or
// has no commit).
func staleFix(head gitstage.Head, p *Proposed) refusal.Fix {
	if head.Branch == p.Record.Branch && !head.Unborn() && p.Proposal.Set.Base != "" {
		return refusal.Rebase
	}
	return refusal.Repropose
}
