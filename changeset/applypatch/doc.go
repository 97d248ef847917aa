// Package applypatch reads the apply_patch format that coding models are
// trained to emit (OpenAI Codex's "*** Begin Patch" … "*** End Patch"), and
// turns it into a changeset.Draft.
//
// # Why a parser of its own
//
// apply_patch is not a unified diff: its chunks carry no line numbers, only
// context lines that must be found in the file. Models write it from memory
// of the file, so the context is often a little off (trailing spaces, curly
// quotes, a blank line between chunks). The tool that models were trained
// against forgives much of that, and also forgives things nika must not:
// it overwrites an existing file on "Add File", moves onto a destination it
// never read, applies the first half of a patch and leaves it there when the
// second half fails, and picks the first of two places a chunk could go.
//
// nika reads the same payloads, forgives the same harmless noise, and refuses
// everything that would write bytes nobody saw:
//
//   - A chunk must match exactly one place in the part of the file after the
//     previous chunk. Two places are refused, naming every line number.
//     When it is not after the previous chunk, it may be anywhere that no
//     other chunk changes, if it matches exactly one place there: models
//     write chunks out of the file's order. The next chunk is looked for
//     after it.
//   - An "@@ <context>" line names a line of the file that the chunk comes
//     after (its first occurrence after the previous chunk); several in a
//     row narrow the place step by step ("@@ class B:" then "@@ def f():").
//     When the chunk matches exactly one place inside the block that the
//     last of them opens (read from indentation, closing brace included),
//     that place is taken even if the same lines come again later: naming
//     the block is how a model tells two places apart. Two places inside
//     the block are refused like any other two places. A chunk that repeats
//     its @@ line as its first context line starts on that line.
//   - Context is matched exactly first, then ignoring trailing whitespace,
//     then ignoring surrounding whitespace, then with typographic
//     punctuation folded to ASCII. The first level that finds anything
//     decides; a looser level never overrides a stricter one.
//   - Lines a chunk keeps (its context) are copied from the file, never from
//     the patch, so a fuzzy match never rewrites an unchanged line.
//   - "*** End of File" anchors a chunk at the end of the file; it is not a
//     hint that may be ignored.
//   - A chunk of only added lines goes right after its last @@ line, or at
//     the end of the file when it has none. (Codex appends it at the end in
//     both cases.)
//   - The file keeps its line ending (CRLF stays CRLF) and its missing final
//     newline, unless a chunk reaches the end of the file: the lines a patch
//     writes end with a newline.
//   - "*** Add File" needs an absent path and "*** Move to" an absent
//     destination; the resolver refuses otherwise.
//   - Two operations on one path are sections of one change, applied in
//     turn (an add, then its update, is one create); an operation after the
//     path's deletion or move is refused (changeset.Resolve).
//   - The whole patch resolves, or none of it does.
//
// # What is accepted around the patch
//
// Models rarely send the bare payload. ParseLimit accepts, before "*** Begin
// Patch" and after "*** End Patch", blank lines, markdown fences, and a shell
// heredoc wrapper (`apply_patch <<'EOF'` … `EOF`, `cat <<EOF | apply_patch`,
// a bare `<<'EOF'`).
//
// A `cd DIR && apply_patch <<'EOF'` wrapper (or `cd DIR;`, several cds in a
// row) is followed, never ignored: every path of the patch is under DIR,
// DIR must pass the path rule (changeset.ParsePath), and the resolver
// checks that it is a directory of the project (Intent.Dir). A cd whose
// directory the shell would compute (a variable, a glob, ~, -, none) or a
// change of directory nika cannot follow (a subshell, pushd, a cd after
// another command) is refused: the files would land elsewhere than the
// command says.
// Markers may carry surrounding whitespace. The first chunk of an update may
// omit its "@@" line. A unified-diff style header "@@ -3,4 +3,5 @@ func f()"
// is read as "@@ func f()". Any other text around the patch is refused:
// prose belongs to the reply format, and guessing where a patch ends is how
// bytes nobody reviewed get written.
//
// # Purity
//
// ParseLimit reads only its input. The Edit of an update is a pure function of
// the base bytes: the resolver calls it with the file as it is in HEAD, and
// its result is the exact content that is previewed, staged and applied.
package applypatch
