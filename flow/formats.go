package flow

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/changeset/applypatch"
	"github.com/nika-dev/nika/changeset/reply"
	"github.com/nika-dev/nika/changeset/searchreplace"
	"github.com/nika-dev/nika/changeset/udiff"
	"github.com/nika-dev/nika/refusal"
)

// Formats nika reads, for --format. "auto" detects one of the others.
var Formats = []string{"auto", "reply", "patch", "diff", "search-replace"}

// Parse reads an input in a format. With "auto" (or ""), Detect picks the
// format, and the draft's Format says which was chosen.
func Parse(input []byte, format string, max int) (*changeset.Draft, error) {
	if max <= 0 {
		max = reply.MaxInput
	}
	if len(input) > max {
		return nil, &refusal.Error{Class: refusal.TooLarge, Hint: "split the input, or raise the input limit",
			Fix: refusal.RaiseInputLimit, Subject: strconv.Itoa(max),
			Text: fmt.Sprintf("the input is %d bytes, over the limit of %d", len(input), max)}
	}
	if len(bytes.TrimSpace(input)) == 0 {
		// git apply refuses an empty patch; an empty reply proposes as
		// little. Neither is "nothing to do": the input was lost.
		return nil, refusal.New(refusal.Invalid, "give a reply with file blocks, an apply_patch payload, a unified diff or search/replace blocks",
			"the input is empty (%d bytes)", len(input))
	}
	if format == "" || format == "auto" {
		format = Detect(input)
	}
	switch format {
	case "reply":
		return parseReply(input, max)
	case "patch":
		return applypatch.ParseLimit(input, max)
	case "diff":
		return udiff.ParseLimit(input, max)
	case "search-replace":
		return searchreplace.ParseLimit(input, max)
	}
	return nil, &refusal.Error{Class: refusal.Invalid, Hint: "name one of the formats " + strings.Join(Formats, ", "),
		Fix: refusal.ChooseFormat, Subject: strings.Join(Formats, ","),
		Text: fmt.Sprintf("unknown format %q", format)}
}

// Detect names the format of an input: an apply_patch payload, a unified
// diff (git diff or diff -u), search/replace blocks, or else a reply (whose
// fenced blocks may themselves carry a patch or a diff).
func Detect(input []byte) string {
	switch {
	case applypatch.Looks(input):
		return "patch"
	case looksDiff(input):
		return "diff"
	case searchreplace.Looks(input):
		return "search-replace"
	}
	return "reply"
}

// looksDiff reports an input that starts, after blank or prose lines, with
// a diff header outside any fence, or that is a mail git format-patch
// wrote (which holds no diff at all for an empty commit, and is still
// a diff to refuse, not a reply that names no file).
func looksDiff(input []byte) bool {
	if formatPatchMail.Match(input) {
		return true
	}
	lines := bytes.Split(input, []byte("\n"))
	for i, l := range lines {
		l = bytes.TrimRight(l, "\r")
		switch {
		case bytes.HasPrefix(l, []byte("```")), bytes.HasPrefix(l, []byte("~~~")):
			return false
		case bytes.HasPrefix(l, []byte("diff --git ")):
			return true
		case bytes.HasPrefix(l, []byte("--- ")) && i+2 < len(lines) &&
			bytes.HasPrefix(lines[i+1], []byte("+++ ")) && bytes.HasPrefix(lines[i+2], []byte("@@")):
			return true
		}
	}
	return false
}

// formatPatchMail is the first line of a mail that git format-patch writes.
var formatPatchMail = regexp.MustCompile(`\AFrom [0-9a-f]{40}(?:[0-9a-f]{24})? Mon Sep 17 00:00:00 2001\r?\n`)

// parseReply reads a reply's path blocks, and also the apply_patch payloads
// and unified diffs its fenced blocks carry. Lines are those of the reply.
func parseReply(input []byte, max int) (*changeset.Draft, error) {
	d, err := reply.ParseLimit(input, max)
	if err != nil {
		return nil, err
	}
	blocks, err := reply.BlocksLimit(input, max)
	if err != nil {
		return nil, err
	}
	kinds := map[string]bool{}
	for _, b := range blocks {
		if !b.Closed {
			continue
		}
		var sub *changeset.Draft
		var name string
		switch {
		case applypatch.Looks(b.Content):
			name = "patch"
			sub, err = applypatch.ParseLimit(b.Content, max)
		case b.Lang() == "diff" || b.Lang() == "patch" || looksDiff(b.Content):
			if !looksDiff(b.Content) {
				continue
			}
			name = "diff"
			sub, err = udiff.ParseLimit(b.Content, max)
		default:
			continue
		}
		if err != nil {
			var e *refusal.Error
			if errors.As(err, &e) {
				e.Text = fmt.Sprintf("in the %s block at reply line %d: %s", name, b.Line, e.Text)
			}
			return nil, err
		}
		kinds[name] = true
		for _, in := range sub.Intents {
			in.Line += b.Line
			if in.Edit != nil {
				in.Edit = blockEdit{Edit: in.Edit, kind: name, line: b.Line}
			}
			d.Intents = append(d.Intents, in)
		}
	}
	switch {
	case kinds["patch"] && kinds["diff"]:
		d.Format = "reply with patch and diff blocks"
	case kinds["patch"]:
		d.Format = "reply with a patch block"
	case kinds["diff"]:
		d.Format = "reply with a diff block"
	}
	return d, nil
}

// blockEdit is the Edit of a patch or diff block of a reply: its refusals
// name the block's line in the reply, as the parser's refusals do, since
// their own lines count from the block's first line.
type blockEdit struct {
	changeset.Edit
	kind string // "patch" or "diff"
	line int    // the reply line of the block's opening fence
}

func (b blockEdit) Apply(base []byte) ([]byte, error) {
	out, err := b.Edit.Apply(base)
	var e *refusal.Error
	if errors.As(err, &e) {
		e.Text = fmt.Sprintf("in the %s block at reply line %d: %s", b.kind, b.line, e.Text)
	}
	return out, err
}
