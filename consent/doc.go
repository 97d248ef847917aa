// Package consent owns the two things that stand between a proposal and the
// project: the decision (only the word "yes", read by a door from a human,
// consents; any other answer discards; a proposal is decided once) and the
// apply transaction that carries out a yes.
//
// The transaction keeps DESIGN.md's laws 1–6. Under git's locks (index.lock,
// HEAD.lock, <branch>.lock) it first verifies the branch, HEAD and every
// witnessed byte; then it copies blobs out of the proposal tree into the
// working tree, each through a temp file and a rename in the target's own
// directory; then it updates the index entries of the touched paths, moves
// the branch by compare-and-swap with a reflog entry, and renames the index
// last, as git commit does. A failure after the first write rolls back this
// transaction's own writes, and never a byte someone else wrote meanwhile.
package consent
