package flow

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nika-dev/nika/gitstage"
	"github.com/nika-dev/nika/redact"
)

// The human's feedback on a proposal is how the model learns what became
// of what it proposed: the comments the human wrote in a review (on the
// proposal, a file or a hunk) and the decision (applied whole, applied in
// part with what was left out, or discarded). It is kept with the
// proposal, in the registry and in the git note of an applied proposal,
// and it reaches the model three ways, each through this file: the
// session's next bundle (RecentFeedback), the MCP feedback tool and
// nika show --json (Feedback). Comments are redacted of secrets with the
// broker's redactor (redact.Text) before they are kept, so neither the
// registry nor a pushed note holds a secret a human pasted by mistake.

// The decisions a feedback reports.
const (
	DecisionPending   = "pending"
	DecisionApplied   = "applied"
	DecisionInPart    = "applied-in-part"
	DecisionDiscarded = "discarded"
)

// Comment is one comment of the human's: On is "" for the proposal, a path
// for a file, PATH:N for a hunk.
type Comment = gitstage.Comment

// FeedbackInfo is the human's word on one proposal, as the model receives
// it.
type FeedbackInfo struct {
	ID       string `json:"id"`
	Goal     string `json:"goal"`
	Decision string `json:"decision"`
	// Part is, for a proposal applied in part, the derived proposal that
	// was applied; From is, for a derived proposal, the proposal it was
	// derived from. "" otherwise.
	Part string `json:"part,omitempty"`
	From string `json:"from,omitempty"`
	// Dropped is what the applied part left out: a path for a whole file,
	// PATH:N for a hunk.
	Dropped  []string  `json:"dropped"`
	Comments []Comment `json:"comments"`
}

// FeedbackOf returns the human's feedback on a loaded or staged proposal.
// A derived proposal carries the comments of the proposal it was derived
// from, since the human wrote them while choosing its parts.
func FeedbackOf(p *Proposed) *FeedbackInfo { return feedbackOf(p.repo, p.Record) }

func feedbackOf(r *gitstage.Repo, rec *gitstage.Record) *FeedbackInfo {
	f := &FeedbackInfo{ID: rec.ID, Goal: rec.Goal, Decision: DecisionPending, Dropped: []string{}, Comments: []Comment{}}
	switch rec.State {
	case gitstage.Applied:
		f.Decision = DecisionApplied
	case gitstage.Discarded:
		f.Decision = DecisionDiscarded
	}
	fb := rec.Feedback
	if fb == nil {
		return f
	}
	f.Comments = append(f.Comments, fb.Comments...)
	f.Dropped = append(f.Dropped, fb.Dropped...)
	f.From, f.Part = fb.From, fb.Part
	if fb.Part != "" {
		f.Decision = DecisionInPart
	}
	if fb.From != "" && len(fb.Comments) == 0 {
		if from, err := r.Record(fb.From); err == nil && from != nil && from.Feedback != nil {
			f.Comments = append(f.Comments, from.Feedback.Comments...)
		}
	}
	return f
}

// SaveComments records the human's comments on a proposal, redacted of
// secrets (redact.Text, the broker's redactor); the kinds of secrets
// removed are returned, for the door to tell the human. A proposal with
// no comment is recorded as reviewed all the same, so that its decision
// reaches the model.
func SaveComments(repo *Repo, p *Proposed, cs []Comment) ([]string, error) {
	kinds := map[string]bool{}
	if p.Record.Feedback == nil {
		p.Record.Feedback = &gitstage.Feedback{}
	}
	for _, c := range cs {
		text, ks := redact.Text(strings.TrimSpace(c.Text))
		on, _ := redact.Text(c.On)
		if text == "" {
			continue
		}
		for _, k := range ks {
			kinds[k.Kind] = true
		}
		p.Record.Feedback.Comments = append(p.Record.Feedback.Comments, Comment{On: on, Text: text})
	}
	p.Record.Feedback.At = time.Now().UnixNano()
	var out []string
	for k := range kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, repo.g.SaveRecord(p.Record)
}

// recordPart, after a derived proposal was applied, records on the
// proposal it was derived from that it was taken in part: by which derived
// proposal, leaving out what. A failure is not the apply's: the apply
// already happened with consent.
func recordPart(r *gitstage.Repo, p *Proposed) {
	fb := p.Record.Feedback
	if fb == nil || fb.From == "" {
		return
	}
	from, err := r.Record(fb.From)
	if err != nil || from == nil {
		return
	}
	if from.Feedback == nil {
		from.Feedback = &gitstage.Feedback{}
	}
	from.Feedback.Part, from.Feedback.Dropped, from.Feedback.At = p.Record.ID, fb.Dropped, time.Now().UnixNano()
	_ = r.SaveRecord(from)
}

// FeedbackText renders a feedback for the model and for the git note: the
// decision, what was left out, and each comment with what it is on.
func FeedbackText(f *FeedbackInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "proposal %s %q: ", short(f.ID), firstLine(f.Goal))
	switch f.Decision {
	case DecisionInPart:
		fmt.Fprintf(&b, "applied in part (as proposal %s)", short(f.Part))
	case DecisionApplied:
		if f.From != "" {
			fmt.Fprintf(&b, "applied, as the part of proposal %s the human chose", short(f.From))
		} else {
			b.WriteString("applied whole")
		}
	case DecisionDiscarded:
		b.WriteString("discarded by the human")
	default:
		b.WriteString("not decided yet")
	}
	b.WriteString("\n")
	if len(f.Dropped) > 0 {
		fmt.Fprintf(&b, "  left out: %s\n", strings.Join(f.Dropped, ", "))
	}
	for _, c := range f.Comments {
		on := "the proposal"
		if c.On != "" {
			on = c.On
		}
		fmt.Fprintf(&b, "  the human on %s: %s\n", on, strings.ReplaceAll(c.Text, "\n", " "))
	}
	return b.String()
}

// RecentFeedback is the feedback on the latest reviewed proposals (those
// with comments, or taken in part), newest first, at most max of them: what
// the session puts in the model's next bundle. A derived proposal is told
// through the proposal it was derived from.
func RecentFeedback(repo *Repo, max int) ([]*FeedbackInfo, error) {
	recs, err := repo.g.Records()
	if err != nil {
		return nil, err
	}
	sort.SliceStable(recs, func(i, j int) bool { return when(recs[i]) > when(recs[j]) })
	var out []*FeedbackInfo
	for _, rec := range recs {
		if len(out) >= max {
			break
		}
		if rec.Feedback == nil || rec.Feedback.From != "" {
			continue
		}
		out = append(out, feedbackOf(repo.g, rec))
	}
	return out, nil
}

// when orders feedback: by when it last changed, else by the record's
// times (seconds, scaled to compare with it).
func when(rec *gitstage.Record) int64 {
	switch {
	case rec.Feedback != nil && rec.Feedback.At != 0:
		return rec.Feedback.At
	case rec.Decided != 0:
		return rec.Decided * 1e9
	}
	return rec.Created * 1e9
}

// noteFeedback is the feedback section of an applied proposal's git note:
// "" when the human left none.
func noteFeedback(r *gitstage.Repo, p *Proposed) string {
	if p.Record == nil || p.Record.Feedback == nil {
		return ""
	}
	f := feedbackOf(r, p.Record)
	f.Decision = DecisionApplied
	return "\nfeedback\n" + FeedbackText(f)
}
