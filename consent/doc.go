// Package consent owns the two things that stand between a proposal and the
// project: the decision (only the word "yes", read by a door from a human,
// consents; any other answer discards; a proposal is decided once) and the
// apply transaction that carries out a yes.
//
// The transaction keeps DESIGN.md's laws 1–6. Under git's locks (index.lock,
// HEAD.lock, <branch>.lock) it first verifies the branch, HEAD and every
// witnessed byte; then it copies blobs out of the proposal tree into the
// working tree, each through a temp file and an atomic swap in the target's
// own directory; then it updates the index entries of the touched paths,
// renames the index, and moves the branch by compare-and-swap with a reflog
// entry. (git commit moves the branch first; nika renames the index first,
// because git reads the index before it locks it, and a git commit racing
// the other order can write back an index that lacks the apply.) A failure
// before the branch moves rolls back this transaction's own writes, index
// entries included, and never a byte someone else wrote meanwhile; a crash
// at any point is finished or undone by Recover, from the journal.
package consent
