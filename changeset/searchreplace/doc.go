// Package searchreplace reads the search/replace blocks that aider-style
// models write, and turns them into a changeset.Draft:
//
//	path/to/file.go
//	```go
//	<<<<<<< SEARCH
//	the lines as they are now
//	=======
//	the lines as they should be
//	>>>>>>> REPLACE
//	```
//
// # Why exact, and why once
//
// A SEARCH text is a claim about the file: "these lines are there, and this
// is the place I mean". nika checks the claim instead of guessing: the text
// must be found, as whole lines, exactly once in the file as the blocks
// before it left it. It is looked for byte for byte, then ignoring trailing
// whitespace, then ignoring the whitespace around each line, then each of
// these again without the blank lines at the start and the end of the
// SEARCH text; the first way that finds anything decides, so a looser way
// never overrides a stricter one. Zero or several places are refused with
// every line number, so the model (or the human) can fix the block, instead
// of nika editing a place nobody pointed at.
//
// A match that ignored indentation writes the REPLACE text indented alike,
// when the file's lines differ from the SEARCH lines by one prefix of
// whitespace throughout (a model that left out the indentation of a nested
// block); blank lines dropped around the SEARCH text are dropped around the
// REPLACE text too. The preview shows the exact bytes either way.
//
// # Files, blocks and order
//
// Several blocks may follow one another, for one file or many. All the
// blocks of one file become one intent whose Edit applies them in order,
// each against the result of the ones before it, so the preview shows the
// file's final bytes once. Intents keep the order in which files first
// appear.
//
// Each block names its file on the line before its opening fence (or, when
// the block is not fenced, before its SEARCH line; or inside the fence, on
// its first line; or on the fence itself, "```path/file.go"). Markdown
// decoration around the path is dropped (`a.go`, **a.go**, ### a.go, a.go:).
// A file name may also stand in a fence of its own before the block. A
// block that follows another with nothing but blank lines, fences and
// elisions ("...", "…") between them edits the same file. Anything else before a block that does
// not read as a path (prose, most often) is refused: "the block names no
// file" is better than an edit of the wrong one. A path holding spaces must
// be written in backticks.
//
// # An empty SEARCH creates a file
//
// An empty SEARCH means "this file is new": the intent is an Add, which the
// resolver refuses when the path exists. nika does not read an empty SEARCH
// on an existing file as "append", as aider does: the model would be writing
// into bytes it never showed it had seen, and the block would silently mean
// two different things depending on the repository. To add lines to an
// existing file, a block searches for the lines they follow and repeats
// them. Later blocks of a new file edit the new content; an empty SEARCH in
// any block but a file's first is refused.
//
// # Text and line endings
//
// Blocks are matched line by line. The file keeps its line ending (CRLF
// files stay CRLF) and its final newline or lack of one. Markers are
// recognised with 5 to 9 marker characters and surrounding whitespace, as
// aider does. Inside a block, everything up to the next marker is content,
// fences included; a "=======" line cannot appear in a SEARCH text.
//
// ParseLimit reads only its input, and the Edit is a pure function of the base
// bytes.
package searchreplace
