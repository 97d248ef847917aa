package proof

import (
	"strings"
	"time"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/preview"
	"github.com/nika-dev/nika/refusal"
)

// SideView is one end of a change as log shows it.
type SideView struct {
	Mode    string `json:"mode"`
	Blob    string `json:"blob"`
	Witness string `json:"witness"`
}

// ChangeView is one changed path with its witnesses.
type ChangeView struct {
	Kind   string    `json:"kind"`
	Path   string    `json:"path"`
	From   string    `json:"from,omitempty"`
	Before *SideView `json:"before"`
	After  *SideView `json:"after"`
}

// Entry is one commit in nika log.
type Entry struct {
	Commit   string       `json:"commit"`
	Proposal bool         `json:"proposal"`
	ID       string       `json:"id,omitempty"` // the Nika-Proposal trailer
	Proven   bool         `json:"proven"`       // the trailer equals the id re-derived from the objects
	Goal     string       `json:"goal"`         // the goal, or an ordinary commit's subject
	Author   string       `json:"author"`
	Email    string       `json:"email"`
	Date     time.Time    `json:"date"`
	Changes  []ChangeView `json:"changes"`
	Verdict  *string      `json:"verdict"` // the note under refs/notes/nika, null when none
	Problem  string       `json:"problem,omitempty"`
	// Fix is the door's action that shows more of the problem, if any
	// (Verify: the commit's proof says what does not match); it applies to
	// the entry's commit, and the door words it into what it shows.
	Fix refusal.Fix `json:"-"`
}

// Log lists the commits as entries: each proposal re-derived from its
// commit (its changes and witnesses, and whether the trailer is proven),
// with the verdict recorded as a note. Ordinary commits are included only
// with all (shown dimmed by the door).
func Log(r *gitstage.Repo, commits []*gitstage.CommitInfo, all bool) ([]*Entry, error) {
	notes, err := r.OpenNotes(gitstage.NotesRef)
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for _, ci := range commits {
		goal, trailers, ok := gitstage.SplitMessage(ci.Message)
		if id, stray := strayTrailer(ci.Message, ok); stray {
			out = append(out, &Entry{Commit: ci.Hash, Proposal: true, ID: id, Goal: firstLine(ci.Message), Author: ci.Author.Name, Email: ci.Author.Email, Date: ci.Author.When,
				Changes: []ChangeView{}, Problem: "the Nika-Proposal line is outside nika's trailer block: the message was changed", Fix: refusal.Verify})
			continue
		}
		if !ok && !all {
			continue
		}
		e := &Entry{Commit: ci.Hash, Proposal: ok, Author: ci.Author.Name, Email: ci.Author.Email, Date: ci.Author.When, Changes: []ChangeView{}}
		if !ok {
			e.Goal = firstLine(ci.Message)
			out = append(out, e)
			continue
		}
		e.Goal = strings.TrimSpace(goal)
		for _, t := range trailers {
			if t[0] == gitstage.TrailerProposal {
				e.ID = t[1]
			}
		}
		if text, has, err := notes.Get(ci.Hash); err != nil {
			return nil, err
		} else if has {
			v := strings.TrimRight(text, "\n")
			e.Verdict = &v
		}
		switch {
		case len(ci.Parents) > 1:
			e.Problem = "a merge commit, which no proposal is"
		case len(ci.Parents) == 1 && !r.HasCommit(ci.Parents[0]):
			e.Problem = "the parent is missing (a shallow clone): " + ShallowHint
		default:
			l, err := r.LoadHex(ci.Hash, preview.ID)
			if err != nil {
				e.Problem = textOf(err)
				break
			}
			e.Proven = l.Proposal.ID == e.ID
			if !e.Proven {
				e.Problem, e.Fix = "the trailer does not match the commit's content", refusal.Verify
			}
			for _, c := range l.Proposal.Set.Changes {
				e.Changes = append(e.Changes, ChangeView{Kind: string(c.Kind), Path: string(c.Path), From: string(c.From), Before: view(c.Before), After: view(c.After)})
			}
		}
		out = append(out, e)
	}
	return out, nil
}

func view(s *changeset.Side) *SideView {
	if s == nil {
		return nil
	}
	return &SideView{Mode: s.Mode.String(), Blob: s.Blob, Witness: s.Witness.String()}
}
