// Package reply reads a model's markdown reply and turns the fenced blocks
// that name a file into a changeset.Draft of whole-file writes.
//
// Why whole files: a model is good at writing a file and bad at counting
// lines. A fenced block that says which path it is for is the least
// ambiguous thing a model can produce, and it renders the same way in the
// human's chat window as it will land on disk. So the rule is simple and
// visible: a block proposes a file when its info string carries path=<p>
//
//	```yaml path=daily.nika.yaml
//
// (path="a b.txt" quoted, with \" and \\ escapes), or when its first line is
// the marker "# path: <p>", which is not part of the content. Everything
// else is prose: text outside blocks, and blocks that name no path.
//
// Fences follow CommonMark, so what the human sees rendered is what is
// proposed: an opening fence is three or more backticks or tildes indented
// by at most three spaces (a backtick fence's info string holds no
// backtick); the block ends at a line of the same character, at least as
// long, indented by at most three spaces, with only spaces or tabs after it.
// Up to the opening fence's indentation in spaces is removed from each
// content line. A longer fence can therefore hold a shorter one, which is
// how a reply proposes a markdown file that itself contains code. Fences
// inside list items indented by four or more spaces, or inside block
// quotes, are not recognized: to this parser they are prose.
//
// The content is the block's lines exactly, each with its line ending: a
// block with no lines is the empty file, never "\n". Line endings are
// "\n"; a "\r" before it belongs to the line's bytes. For CRLF input the
// fences are still recognized (the "\r" is ignored there), and the content
// keeps its "\r\n" byte for byte, because the preview must show the bytes
// that will be applied: nika never converts line endings behind the
// human's back. A lone "\r" is not a line end.
//
// The parser is pure: it reads its input and allocates its result, nothing
// else. It checks what only it can see (an empty path=, a NUL in a path, an
// unclosed quote, two different paths for one block, a block that names a
// path and is never closed, and a block that names a path but holds a diff
// or an apply_patch payload, bare or in a heredoc, which would otherwise
// overwrite the file with the patch text; a .diff or .patch path may hold
// one) and leaves the rest of path validation, policy and two blocks for
// one path to changeset.Resolve (which folds them, refusing a second whole
// content: the first would never be seen). Errors are *refusal.Error with
// class Invalid (TooLarge for an input over the limit), and their text
// starts with "reply line N:", the line of the input to look at.
//
// BlocksLimit lists every fenced block, path or not, so that the format
// detector can find blocks that hold another format (an apply_patch
// payload, a unified diff) and hand them to their own parser.
package reply
