// Package hooks runs what happens after an apply: the checker on the files
// the set wrote, read back from disk, and then the project's own post-apply
// hooks. It records the outcome as a Verdict, which the door stores as a git
// note (refs/notes/nika) on the applied commit.
//
// The flow a door follows:
//
//	set, err := hooks.Snapshot(root)            // before the apply
//	... the apply transaction, with the human's consent ...
//	v := hooks.Judge(ctx, set, hooks.Env{...}, hooks.Options{})
//	note := v.Text()                            // git note, deterministic
//	if !v.Clean() { fmt.Print(v.Advice(commit)) }
//
// Judge is the checker on the written workflow and project files, read
// back from disk, followed by Set.Run (the hooks); a file that
// could not be read becomes a problem in the verdict, and the hooks run
// regardless.
//
// Why it is built this way:
//
//   - Never run what the proposal wrote. Path policy already refuses any
//     proposal path under .nika/hooks, but the runner does not rely on it:
//     Snapshot reads every hook's bytes and mode before the apply, and Run
//     writes that snapshot into a private directory (0700, under the system
//     temp directory, outside the worktree) and executes it from there. A
//     hook that appeared, changed or vanished on disk during the apply makes
//     no difference: the pre-apply version runs, or nothing.
//   - Never follow a symlink. The hooks directory is opened one component at
//     a time with O_NOFOLLOW; a symlink on the way to it is a refusal, and a
//     symlink inside it is skipped with a note, never followed. The check
//     reads through safefs, which refuses a symlink anywhere on a path.
//   - An explicit environment. A hook sees PATH (a default when unset), HOME,
//     LANG and LC_ALL when set, PWD (its working directory, the worktree
//     root) and the NIKA_* variables, nothing else: the environment of the
//     process that runs nika (tokens, keys, a model's API credentials) does
//     not leak into the project's scripts.
//   - Bounded. Each hook has a timeout (30s by default) and runs in its own
//     process group; on timeout the whole group gets SIGKILL, so a hook's
//     children die with it. Once a hook has exited, what is left of its group
//     is killed too: no hook outlives its turn. (A process that leaves the
//     group on purpose, with setsid, escapes the kill; Run then stops
//     reading the output it holds after a short bound, with a note.) Output (stdout and stderr,
//     interleaved as written) is kept up to a limit (64 KiB by default).
//   - A failed check does not undo the apply. The human consented and the
//     commit exists; the verdict says what failed and Advice says how to
//     revert (git revert, or nika revert).
//   - Deterministic records. Verdict.Text leaves out durations and anything
//     of the host (no absolute paths from nika itself; a hook's own output is
//     recorded as the hook wrote it, with control characters escaped), so
//     the note is a function of what was checked and what the hooks said.
//
// The hooks are the executables in .nika/hooks/post-apply.d/ (relative to
// the repository root), run in byte order of their names. Names starting
// with "." are ignored; a subdirectory, a symlink, a non-regular or a
// non-executable file is listed in the results as skipped, with the reason,
// and does not make the verdict unclean. A hook runs with the worktree root
// as its working directory; its $0 is the path of the snapshot copy, so a
// hook that needs files beside it must find them through NIKA_ROOT.
//
// The note (Verdict.Text) reads:
//
//	nika verdict: 1 error, 1 warning, 1 hook failed
//	flows/a.nika.yaml:4:26 NIKA-YAML-004 duplicate key ...
//	flows/a.nika.yaml:1:1 NIKA-SEC-002 warning: ...
//	hook 10-lint: exit 0
//	    lint output, indented
//	hook 20-test: exit 1
//	hook 30-slow: timed out
//	hook 40-notes: skipped (not executable)
//
// and the JSON (--json) is
//
//	{"type":"verdict","clean":false,"summary":"1 error, ...",
//	 "reports":[checker.Report...],
//	 "hooks":[{"name":"10-lint","exit":0,"timed_out":false,"output":"...","duration_ms":12}, ...],
//	 "problems":["..."]}
//
// where a hook object also carries "signal", "skipped" and "error" when
// they are set, and "problems" is present only when a file was not checked.
//
// This package is Unix-only (process groups) and does no git.
package hooks
