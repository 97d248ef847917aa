// Package gitstage is nika's only door to git. It finds the repository
// exactly as git does (Discover: GIT_DIR, GIT_WORK_TREE, core.worktree,
// .git files, ceilings, ownership), so that nika works in the git dir,
// work tree and index that git would use. It reads the base of a
// proposal (HEAD's tree, the index, the working tree), writes the proposal
// into the object database as a commit that no ref points at, keeps the
// registry of proposals under .git/nika/, and moves refs the way git does.
//
// go-git v5 is used for objects only. Its index and ref writers are unsafe
// for a tool that runs beside git (they write in place, with no lock file,
// and write no reflog: see ../shared/NOTES-git.md), so this package takes
// git's locks itself: create <file>.lock exclusively, write, rename. The
// index codec lives in gitstage/gitindex.
//
// When git's configuration asks for signed commits, it signs the commit an
// apply lands as git would (sign.go): it runs the program git runs, with
// git's arguments, and writes the proposal commit's signed twin; it never
// holds a private key. It checks a commit's signature by git's rules too.
//
// Cost follows the change: staging k paths decodes only the trees along
// those paths, and nothing here walks or hashes the working tree.
package gitstage
