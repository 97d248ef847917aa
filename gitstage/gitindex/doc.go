// Package gitindex reads and writes git's index file (.git/index), so that
// nika can stage an applied change set by updating a few entries: read the
// index once, change k entries, write it once, under git's lock protocol.
//
// # Why it exists
//
// go-git v5 cannot be trusted with the index (see NOTES-git.md):
//   - Repository.SetIndex truncates .git/index and writes it in place, with no
//     lock and no rename: concurrent `git ls-files` runs failed 714 of 714
//     times (git itself crashed), against 238 of 238 passes with lock+rename;
//   - its encoder drops every extension (cache-tree, untracked cache,
//     fsmonitor) and its decoder refuses split and sparse indexes;
//   - it refuses indexes written with index.skipHash or feature.manyFiles
//     (a zero trailer) with "invalid checksum";
//   - it is several times slower (81/84 ms to decode/encode an 8 MB index,
//     against about 15/10 ms for a small codec).
//
// This package uses only the standard library and golang.org/x/sys (mmap,
// fallocate).
//
// # Two ways to read
//
//   - Decode and ReadFile decode every entry into Entries, and verify the
//     trailer checksum, as git fsck does.
//   - Open reads an index for an update of a few entries, as apply does: it
//     maps the file, finds every entry's offset and makes every check that
//     Decode makes except the checksum, which git's own readers skip (git
//     2.39 verifies it only in fsck: verify_index_checksum). It decodes no
//     entry (Entries is nil; Len, At, Find, Unmerged, Racy, Vouch, Set and
//     Remove work on the file's bytes), and hashes the file in the
//     background for the Encode to come. Encode and WriteTo then splice: the
//     runs of unchanged entries are the file's bytes (WriteTo writes them
//     from the mapping to the lock file and never builds the new index in
//     memory), only the changed entries are encoded, the cache-tree is
//     rewritten only along the changed paths, and the checksum resumes from
//     the background hash at the first changed byte. The bytes are those of a
//     full decode and encode of the same edits (TestSpliceEqualsFullEncode,
//     FuzzSplice), and those that `git update-index` writes for the same
//     change (TestSpliceWritesWhatGitWrites).
//
// # What it guarantees
//
//   - Decode reads index versions 2, 3 and 4 (path prefix compression),
//     extended flags (skip-worktree, intent-to-add), conflict stages, SHA-1
//     and SHA-256 object ids (hash size 20 or 32, the trailer in the same
//     algorithm). It verifies the trailer checksum, accepts a zero trailer
//     (index.skipHash), checks the entry order as git does, and refuses with
//     a typed error: split indexes (ErrSplitIndex), sparse indexes
//     (ErrSparseIndex), unknown mandatory extensions (ErrMandatoryExtension),
//     bad checksums (ErrChecksum) and malformed files (ErrCorrupt, with the
//     offset). Decode never panics on any input (fuzzed).
//   - Encode of an unchanged index is byte-identical to what was decoded, for
//     files written by git (v2/v3/v4, TREE, REUC, UNTR, FSMN, EOIE, IEOT,
//     unknown optional extensions, zero trailer).
//   - Set and Remove keep the entries in git's order, refuse what git's
//     verify_path refuses and file/directory conflicts, and invalidate the
//     cache-tree (TREE) on the changed paths exactly as git does
//     (cache_tree_invalidate_path), keeping every other node valid, so that
//     `git write-tree` and `git commit` stay right and fast.
//   - The untracked cache (UNTR) is dropped when entries are added or
//     removed: it records which files are untracked per directory, and git
//     rebuilds it on its next status. Replacing an existing entry keeps it,
//     as git does. FSMN (a bitmap by entry position) is dropped on any edit;
//     EOIE is recomputed; IEOT is kept, with recomputed offsets, only while
//     nothing changed. Resolve-undo (REUC) and unknown optional extensions are
//     kept byte for byte.
//   - Racy git: with ModTime set (ReadFile sets it), Encode writes size 0 for
//     entries not written by Set that were racily clean in the file read, as
//     git's ce_smudge_racily_clean_entry would for a changed file, so git
//     re-reads them instead of trusting stale stat data. It never makes git
//     consider a modified file clean; at worst git re-hashes a few files.
//   - LockIndex/Lock do git's protocol: <index>.lock is created with
//     O_CREAT|O_EXCL (EEXIST, after an optional backoff, is ErrLocked with
//     the lock's path and the fix), written, and renamed over the index.
//     The index path is a parameter: a linked worktree has its own.
//   - Versions 2 and 3 are written as git's do_write_index writes them: 3
//     when an entry has extended flags, else 2.
//
// Cost: one Decode and one Encode of a 100,000-entry index (9.6 MB, v2)
// take about 20 ms and 10 allocations on a 2-core machine, about half of it
// SHA-1 (BenchmarkDecodeEncode100k); Set and Remove are a binary search and
// a slice move. An update through Open costs one pass over the entries'
// offsets, the SHA-1 of the new file (mostly done beside that pass) and the
// write: no allocation per entry (BenchmarkSplice300k, BENCHMARKS.md).
//
// What it does not do: write split or sparse indexes, build a cache-tree for
// directories that have none, fsync unless asked (Lock.Sync), or apply
// core.sharedRepository permissions to the new index.
package gitindex
