#!/usr/bin/env bash
# The whole reliability campaign of issues 6 and 12, in one run: SIGKILL at
# every step of an apply (then nika recover), the SQLite-style I/O fault
# loop at every N (once and persistent), both in the plain layout, with
# core.worktree set and in a linked worktree; racing writers for more
# rounds; the repository boundary (discovery against git rev-parse, a
# tmpfs mount inside the work tree, low limits on open files, a directory
# swapped mid-apply, an incomplete rollback and recovery); and the
# hostile-change-set and repository-state corpora. It prints one line per
# family, and per layout where a family runs in several: cases run, how
# they ended, and anything lost (a failure).
# The normal test suite (go test ./...) runs a fast subset of the same tests.
set -uo pipefail
cd "$(dirname "$0")/.."
export NIKA_TORTURE=1
log=$(mktemp)
status=0

family() { # name, package, test regexp [, layout...]
  local name=$1 pkg=$2 re=$3
  shift 3
  go test -count=1 -v -run "$re" "$pkg" >"$log" 2>&1
  local rc=$?
  local pass fail skip runs recov
  pass=$(grep -c -- '--- PASS' "$log")
  fail=$(grep -c -- '--- FAIL' "$log")
  skip=$(grep -c -- '--- SKIP' "$log")
  runs=$(grep -o '[0-9]* runs, [0-9]* needed recover' "$log" | awk '{r+=$1; v+=$3} END {if (r>0) printf "%d fault runs, %d recovered", r, v}')
  printf '%-28s cases passed %4d  failed %d  skipped %d  %s  lost %d\n' "$name" "$pass" "$fail" "$skip" "${runs:+($runs)}" "$fail"
  local l lp lf
  for l in "$@"; do
    lp=$(grep -c -- "--- PASS: [^ ]*/$l/" "$log")
    lf=$(grep -c -- "--- FAIL: [^ ]*/$l/" "$log")
    printf '  %-26s cases passed %4d  failed %d\n' "in $l" "$lp" "$lf"
  done
  if [ $rc -ne 0 ]; then
    status=1
    grep -E -- '--- FAIL|_test.go:[0-9]+:' "$log" | head -n 20
  fi
}

family "crash points (SIGKILL)"   ./cmd/nika 'TestCrash|TestRecover|TestInterrupt' plain core.worktree linked_worktree
family "I/O fault loop"           ./consent  'TestInjectedFaults' plain core.worktree linked_worktree
family "racing writers"           ./consent  'TestAnEditor|TestGitReaders|TestConcurrent|TestTwoApplies|TestADirectorySwapped'
family "racing writers (binary)"  ./cmd/nika 'TestADirectorySwappedForASymlinkMidApply'
family "rollback"                 ./consent  'TestFailure|TestRollback|TestReadOnly|TestARollbackThatCannot|TestADirectoryReplaced'
family "boundary: discovery"      ./gitstage 'TestDiscovery'
family "boundary: check == apply" ./consent  'TestCheckAndTheLockedApply|TestStatus'
family "boundary: mounts, limits" ./cmd/nika 'TestApplyAcrossAMountPoint|TestLowFileLimits|TestRecoverThatCannotFinish'
family "boundary: mounts, residue" ./consent 'TestDeletesAndMovesAcrossAMountPoint|TestASucceededApplyLeavesNoResidue|TestAnApplyOpensEachDirectoryOnce'
family "path rule"                ./changeset 'TestThePathRule|TestFoldKey|TestCheckFolds|TestDefaultIgnorable|TestParsePath'
family "hostile change sets"      ./flow     'TestHostile|TestFolds|TestSymlink|TestNested|TestObstacle'
family "repository states"        ./flow     'TestState'
rm -f "$log"
exit $status
