// Package consent owns the three things that stand between a proposal and
// the project: the decision (only the word "yes", read by a door from a
// human, consents; any other answer discards; a proposal is decided once),
// the read-only check before the question, and the apply transaction that
// carries out a yes, with its recovery.
//
// Check verifies, without taking a lock or writing a byte, everything the
// apply will verify under its locks: the branch and HEAD, every witness
// (bytes, mode and type, on disk and in the index), the index, the locks
// of other processes, the objects, the limit on open files. It returns
// exactly the refusal the apply would give after a yes, and StateOf turns
// it into the state a door displays (pending, stale, edited, locked,
// pruned). The apply runs the same code again under its locks.
//
// The transaction keeps DESIGN.md's laws 1–6. It runs as named phases:
// lock (index.lock, then HEAD.lock and the branch's lock, in git commit's
// order), verify (Check's code), journal (everything a later process needs
// to finish or undo it, before the first write, streamed one op at a
// time), write (each file through a temp file and an atomic swap in its
// own directory; a removal moved aside beside the file), index (only the touched entries, into
// index.lock, renamed over the index), ref (the branch moves by
// compare-and-swap to the commit it is handed, with a reflog entry) and
// finish (the record, the old bytes and backups, the journal). git commit
// moves the branch before the index; nika renames the index first, because
// git reads the index before it locks it, and a git commit racing the
// other order can write back an index that lacks the apply.
//
// Beyond the proposal it is handed, the transaction holds the bytes of one
// file at a time. It writes the bytes a side holds, or, for a
// proposal loaded without them (gitstage.LoadWitnessed), the side's blob
// read back from the object database and checked against its witness
// (law 1: the bytes come out of the proposal tree); a rollback or a
// removal's copy across devices reads the before side the same way.
//
// The phases reach the working tree only through WorkTree, a small
// interface of the file operations they need, which safefs implements
// holding each directory open from its first use to the end; the test
// seams (fault injection, racing writers, crash points) are decorators
// over it. A failure before the branch moves rolls back this transaction's
// own writes, index entries included, and never a byte someone else wrote
// meanwhile; a rollback that cannot finish keeps its journal, and Recover,
// from the journal, takes a crash at any point to "applied" or "not
// applied", or says which paths a human must look at and why.
package consent
