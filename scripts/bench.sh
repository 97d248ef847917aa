#!/usr/bin/env bash
# Whole-process benchmark of nika against the git CLI (issues 8 and 20).
#
#   scripts/bench.sh [SIZES] [CHANGES]     e.g. scripts/bench.sh "1000 100000" "1 10"
#
# Builds the nika binary and internal/benchdrive (the harness: it builds
# the synthetic repositories, writes change sets, and applies a pending
# proposal by calling flow.Apply directly: the harness supplies the consent
# that nika apply reads only from a terminal). Every figure is a median of
# RUNS (default 5) fresh processes, nika and its reference alternated in the
# same loop, timed by benchdrive time (wall, user+sys CPU from getrusage,
# peak RSS). Sections (SECTIONS, default all, in this order):
#   table    propose + apply vs git apply --index && git commit, for every
#            size N and change-set size K (K <= N/10);
#   apply    apply of one file vs git update-index of one path whose bytes
#            changed, at each size, in the default repository and in one
#            with feature.manyFiles (index version 4, untracked cache);
#   propose  propose of one file right after the index changed (after an
#            apply by nika, and after git update-index rewrote it), 1,000
#            files against the largest size, both configurations;
#   check    nika check of every example and template of the Nika spec in
#            one run vs git hash-object of the same files in one run;
#   rebase   nika rebase of a 10-file proposal at 100,000 files (HEAD moved:
#            half the files merge three ways, half are carried) vs the
#            nika propose that made it;
#   memory   peak RSS of propose and of apply of a 10,000-file change set
#            at 100,000 files (apply: over the proposal as flow.Load loads
#            it, and loaded witnessed, without its bytes), with the largest
#            anonymous (heap) and file-backed (binary, index, packs) parts;
#   strace   system calls of a one-file propose + apply at 100,000 files;
#   fsync    propose + apply of 10 files with and without core.fsync;
#   verify   nika verify over 1,000 applied proposals.
#
# Environment: RUNS (5), SECTIONS, NIKA_BENCH_CACHE (/tmp/nika-bench), OUT
# (a temp dir), SPEC (/work/shared/nika-spec).
set -euo pipefail
SIZES=${1:-"1000 10000 100000 300000"}
CHANGES=${2:-"1 10 100 1000"}
RUNS=${RUNS:-5}
SECTIONS=${SECTIONS:-"table apply propose check rebase memory strace fsync verify"}
CACHE=${NIKA_BENCH_CACHE:-/tmp/nika-bench}
OUT=${OUT:-$(mktemp -d)}
SPEC=${SPEC:-/work/shared/nika-spec}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$CACHE" "$OUT/home"
# Keep Go's caches where they are: the isolated HOME below is for git.
GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE) GOPATH=$(go env GOPATH)
export GOMODCACHE GOCACHE GOPATH

export HOME=$OUT/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$OUT/home/.gitconfig
export GIT_AUTHOR_NAME="Bench" GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME="Bench" GIT_COMMITTER_EMAIL=bench@example.com
export NO_COLOR=1 PAGER=cat GIT_PAGER=cat

(cd "$ROOT" && go build -o "$OUT/nika" ./cmd/nika && go build -o "$OUT/benchdrive" ./internal/benchdrive)
NIKA=$OUT/nika
DRIVE=$OUT/benchdrive

echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB"
echo "# $(go version | cut -d' ' -f3), $(git --version), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# runs: $RUNS (medians); times in ms; rss in MB"

want() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
# timed CMD...: runs CMD (its stdout in $OUT/stdout), prints "wall_ms cpu_ms peak_rss_kb"
timed() { BENCH_STDOUT=$OUT/stdout "$DRIVE" time "$@"; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }
col() { awk -v c="$1" '{print $c}' "$2"; }
ratio() { echo "$1 / $2" | bc -l; }
# propose1 REPO N SEQ: a fresh one-file change set, proposed by nika (untimed); prints the id
propose1() {
	"$DRIVE" change "$1" "$2" 1 "$3" "$OUT/c1"
	(cd "$1" && "$NIKA" propose --json --format reply --allow '**' "$OUT/c1.reply" >"$OUT/pj1")
	jq -r .id "$OUT/pj1"
}
# gitwrite REPO FILE SEQ: git rewrites the index (untimed), leaving it clean:
# FILE's bytes change and git update-index stages them, then FILE and its
# entry go back to HEAD.
gitwrite() {
	echo "git $3" >>"$1/$2"
	git -C "$1" update-index -- "$2"
	git -C "$1" checkout -q HEAD -- "$2"
}

seq=$(($(date +%s) % 100000 * 100))
big=$(echo "$SIZES" | tr ' ' '\n' | sort -n | tail -1)

if want table; then
	printf "\n%-8s %-6s | %9s %9s %9s %9s | %9s %9s | %7s %7s | %8s %8s\n" files k "propose" "apply" "nika" "nika-cpu" "git" "git-cpu" "ratio" "cpu-r" "nika-rss" "git-rss"
	for n in $SIZES; do
		repo=$("$DRIVE" synth "$CACHE" "$n")
		for k in $CHANGES; do
			[ "$k" -le $((n / 10)) ] || continue
			: >"$OUT/p"; : >"$OUT/a"; : >"$OUT/g1"; : >"$OUT/g2"
			git -C "$repo" update-index -q --refresh || true
			for r in $(seq 1 "$RUNS"); do
				seq=$((seq + 1))
				"$DRIVE" change "$repo" "$n" "$k" "$seq" "$OUT/c"
				(cd "$repo" && timed "$NIKA" propose --json --format reply --allow '**' -m "bench $seq" "$OUT/c.reply") >>"$OUT/p"
				id=$(jq -r .id "$OUT/stdout")
				timed "$DRIVE" apply "$repo" "$id" >>"$OUT/a"
				seq=$((seq + 1))
				"$DRIVE" change "$repo" "$n" "$k" "$seq" "$OUT/c"
				(cd "$repo" && timed git apply --index "$OUT/c.patch") >>"$OUT/g1"
				(cd "$repo" && timed git commit -q -m "git reference $seq") >>"$OUT/g2"
			done
			paste "$OUT/p" "$OUT/a" | awk '{print $1+$4, $2+$5, ($3>$6?$3:$6)}' >"$OUT/n"
			paste "$OUT/g1" "$OUT/g2" | awk '{print $1+$4, $2+$5, ($3>$6?$3:$6)}' >"$OUT/g"
			pm=$(col 1 "$OUT/p" | median); am=$(col 1 "$OUT/a" | median)
			nm=$(col 1 "$OUT/n" | median); nc=$(col 2 "$OUT/n" | median); nr=$(col 3 "$OUT/n" | median)
			gm=$(col 1 "$OUT/g" | median); gc=$(col 2 "$OUT/g" | median); gr=$(col 3 "$OUT/g" | median)
			printf "%-8s %-6s | %9s %9s %9s %9s | %9s %9s | %7.2f %7.2f | %8.1f %8.1f\n" "$n" "$k" "$pm" "$am" "$nm" "$nc" "$gm" "$gc" \
				"$(ratio "$nm" "$gm")" "$(ratio "$nc" "$gc")" "$(echo "$nr/1024" | bc -l)" "$(echo "$gr/1024" | bc -l)"
		done
	done
fi

if want apply; then
	echo
	echo "# apply of one file (benchdrive apply: the transaction, a fresh process) vs git update-index of one path whose bytes changed"
	printf "%-8s %-10s | %9s %9s | %9s %9s | %7s %7s | %8s %8s\n" files config apply apply-cpu update-ix ui-cpu ratio cpu-r nika-rss git-rss
	for n in $SIZES; do
		for variant in default manyfiles; do
			v=$variant; [ "$v" = default ] && v=
			repo=$("$DRIVE" synth "$CACHE" "$n" $v)
			q=$(git -C "$repo" ls-files | sed -n 7p)
			: >"$OUT/a"; : >"$OUT/u"
			for r in $(seq 1 "$RUNS"); do
				seq=$((seq + 1))
				id=$(propose1 "$repo" "$n" "$seq")
				timed "$DRIVE" apply "$repo" "$id" >>"$OUT/a"
				echo "git $seq" >>"$repo/$q"
				(cd "$repo" && timed git update-index -- "$q") >>"$OUT/u"
				git -C "$repo" checkout -q HEAD -- "$q"
			done
			am=$(col 1 "$OUT/a" | median); ac=$(col 2 "$OUT/a" | median); ar=$(col 3 "$OUT/a" | median)
			um=$(col 1 "$OUT/u" | median); uc=$(col 2 "$OUT/u" | median); ur=$(col 3 "$OUT/u" | median)
			printf "%-8s %-10s | %9s %9s | %9s %9s | %7.2f %7.2f | %8.1f %8.1f\n" "$n" "$variant" "$am" "$ac" "$um" "$uc" \
				"$(ratio "$am" "$um")" "$(ratio "$ac" "$uc")" "$(echo "$ar/1024" | bc -l)" "$(echo "$ur/1024" | bc -l)"
		done
	done
fi

if want propose && [ "$big" -gt 1000 ]; then
	echo
	echo "# propose of one file right after the index changed: 1,000 vs $big files, alternated"
	echo "# (after nika: an apply wrote the index; after git: git update-index rewrote it)"
	printf "%-10s %-11s | %9s %9s | %9s %9s | %7s %7s\n" config after "1000" "cpu" "$big" "cpu" ratio cpu-r
	for variant in default manyfiles; do
		v=$variant; [ "$v" = default ] && v=
		small=$("$DRIVE" synth "$CACHE" 1000 $v)
		large=$("$DRIVE" synth "$CACHE" "$big" $v)
		qs=$(git -C "$small" ls-files | sed -n 7p)
		ql=$(git -C "$large" ls-files | sed -n 7p)
		for after in nika git; do
			: >"$OUT/ps"; : >"$OUT/pl"
			for r in $(seq 1 "$RUNS"); do
				for pair in "$small:1000:ps:$qs" "$large:$big:pl:$ql"; do
					IFS=: read -r repo n f q <<<"$pair"
					seq=$((seq + 1))
					if [ $after = nika ]; then
						"$DRIVE" apply "$repo" "$(propose1 "$repo" "$n" "$seq")"
					else
						gitwrite "$repo" "$q" "$seq"
					fi
					seq=$((seq + 1))
					"$DRIVE" change "$repo" "$n" 1 "$seq" "$OUT/c"
					(cd "$repo" && timed "$NIKA" propose --json --format reply --allow '**' "$OUT/c.reply") >>"$OUT/$f"
				done
			done
			sm=$(col 1 "$OUT/ps" | median); sc=$(col 2 "$OUT/ps" | median)
			lm=$(col 1 "$OUT/pl" | median); lc=$(col 2 "$OUT/pl" | median)
			printf "%-10s %-11s | %9s %9s | %9s %9s | %7.2f %7.2f\n" "$variant" "$after" "$sm" "$sc" "$lm" "$lc" "$(ratio "$lm" "$sm")" "$(ratio "$lc" "$sc")"
		done
	done
fi

if want check; then
	echo
	spec=$OUT/spec
	if [ ! -d "$spec/.git" ]; then
		mkdir -p "$spec"
		cp -r "$SPEC/examples" "$SPEC/templates" "$spec/"
		git -C "$spec" init -q && git -C "$spec" add -A && git -C "$spec" commit -qm spec
	fi
	files=$(cd "$spec" && "$NIKA" check --json examples templates | jq -r '.reports[].path')
	count=$(echo "$files" | wc -l)
	echo "# nika check of the spec's examples and templates ($count files, one run) vs git hash-object of the same files (one run)"
	: >"$OUT/k"; : >"$OUT/h"
	for r in $(seq 1 "$RUNS"); do
		(cd "$spec" && timed "$NIKA" check examples templates) >>"$OUT/k"
		# shellcheck disable=SC2086
		(cd "$spec" && timed git hash-object $files) >>"$OUT/h"
	done
	km=$(col 1 "$OUT/k" | median); kc=$(col 2 "$OUT/k" | median)
	hm=$(col 1 "$OUT/h" | median); hc=$(col 2 "$OUT/h" | median)
	echo "nika check: $km ms (cpu $kc); git hash-object: $hm ms (cpu $hc); ratio $(printf %.2f "$(ratio "$km" "$hm")")"
	# shellcheck disable=SC2086
	: >"$OUT/kc"
	for r in $(seq 1 "$RUNS"); do
		(cd "$spec" && timed "$DRIVE" check 1 $files) >>"$OUT/kc"
	done
	echo "benchdrive check (the checker alone over the same bytes, one process): $(col 1 "$OUT/kc" | median) ms (cpu $(col 2 "$OUT/kc" | median))"
fi

if want rebase && [ "$big" -ge 100000 ]; then
	n=100000
	k=${REBASE_K:-10}
	repo=$("$DRIVE" synth "$CACHE" "$n")
	echo
	echo "# nika rebase of a $k-file proposal at $n files (HEAD moved under half of them: merged; the rest carried) vs its nika propose"
	: >"$OUT/rp"; : >"$OUT/rb"
	for r in $(seq 1 "$RUNS"); do
		seq=$((seq + 1))
		"$DRIVE" edit "$repo" "$n" "$k" "$seq" "$OUT/e"
		(cd "$repo" && timed "$NIKA" propose --json --format reply --allow '**' -m "rebase $seq" "$OUT/e.reply") >>"$OUT/rp"
		id=$(jq -r .id "$OUT/stdout")
		"$DRIVE" move-head "$repo" "$n" "$k" "$seq"
		(cd "$repo" && timed "$NIKA" rebase --json "$id") >>"$OUT/rb"
		jq -e '.type == "rebased" and (.merged | length) > 0' "$OUT/stdout" >/dev/null
	done
	pm=$(col 1 "$OUT/rp" | median); pc=$(col 2 "$OUT/rp" | median)
	bm=$(col 1 "$OUT/rb" | median); bc=$(col 2 "$OUT/rb" | median)
	echo "propose: $pm ms (cpu $pc); rebase: $bm ms (cpu $bc); ratio $(printf %.2f "$(ratio "$bm" "$pm")") (cpu $(printf %.2f "$(ratio "$bc" "$pc")"))"
fi

if want memory && [ "$big" -ge 100000 ]; then
	n=100000
	repo=$("$DRIVE" synth "$CACHE" "$n")
	echo
	echo "# peak memory of propose and of apply of a 10,000-file change set at $n files (each a process)"
	seq=$((seq + 1))
	"$DRIVE" change "$repo" "$n" 10000 "$seq" "$OUT/c"
	newbytes=$(awk '/^```text path=/{f=1; next} /^```$/{f=0; next} f{s+=length($0)+1} END{print s}' "$OUT/c.reply")
	ix=$(stat -c %s "$repo/.git/index")
	echo "new bytes $((newbytes / 1024)) KB, index $((ix / 1024)) KB; target 4 x new bytes + index = $(((4 * newbytes + ix) / 1048576)) MB"
	# propose (nika, a process), then apply over flow.Load (what a door that drew
	# the preview holds) and over the proposal loaded witnessed, alternated
	for r in $(seq 1 "$RUNS"); do
		for how in load witnessed; do
			seq=$((seq + 1))
			"$DRIVE" change "$repo" "$n" 10000 "$seq" "$OUT/c"
			read -r pw pc pm < <(cd "$repo" && BENCH_RSS_SPLIT=$OUT/ps timed "$NIKA" propose --json --format reply --allow '**' -m "memory $seq" "$OUT/c.reply")
			read -r pa pf <"$OUT/ps"
			id=$(jq -r .id "$OUT/stdout")
			w=; [ $how = witnessed ] && w=witnessed
			read -r aw ac am < <(BENCH_RSS_SPLIT=$OUT/as timed "$DRIVE" apply "$repo" "$id" $w)
			read -r aa af <"$OUT/as"
			printf "propose: %5.0f ms, cpu %5.0f ms, peak rss %4d MB (anon %3d, files %3d) | apply (%-9s): %5.0f ms, cpu %5.0f ms, peak rss %4d MB (anon %3d, files %3d)\n" \
				"$pw" "$pc" $((pm / 1024)) $((pa / 1024)) $((pf / 1024)) "$how" "$aw" "$ac" $((am / 1024)) $((aa / 1024)) $((af / 1024))
		done
	done
	seq=$((seq + 1))
	"$DRIVE" change "$repo" "$n" 10000 "$seq" "$OUT/c"
	read -r w c m < <(timed "$DRIVE" propose-apply "$repo" "$OUT/c.reply")
	echo "propose + apply in one process: wall ${w} ms, cpu ${c} ms, peak rss $((m / 1024)) MB"
fi

if want strace && [ "$big" -ge 100000 ]; then
	n=100000
	repo=$("$DRIVE" synth "$CACHE" "$n")
	echo
	echo "# system calls of a one-file propose + apply at $n files (strace -f -c; no walk of the working tree)"
	if ! command -v strace >/dev/null; then
		echo "strace is not installed: skipped (apt-get install strace)"
	else
		seq=$((seq + 1))
		"$DRIVE" change "$repo" "$n" 1 "$seq" "$OUT/c"
		strace -f -c -o "$OUT/strace" "$DRIVE" propose-apply "$repo" "$OUT/c.reply" || true
		grep -E "calls|getdents|openat|newfstatat|statx|lstat|fsync|rename|write|total" "$OUT/strace" || true
	fi
fi

if want fsync && [ "$big" -ge 100000 ]; then
	n=100000
	repo=$("$DRIVE" synth "$CACHE" "$n")
	echo
	echo "# fsync on (git config core.fsync all): propose + apply of 10 files at $n files"
	: >"$OUT/s0"; : >"$OUT/s1"
	for r in $(seq 1 "$RUNS"); do
		for mode in 0 1; do
			if [ $mode = 1 ]; then git -C "$repo" config core.fsync all; else git -C "$repo" config --unset core.fsync || true; fi
			seq=$((seq + 1))
			"$DRIVE" change "$repo" "$n" 10 "$seq" "$OUT/c"
			timed "$DRIVE" propose-apply "$repo" "$OUT/c.reply" >>"$OUT/s$mode"
		done
	done
	git -C "$repo" config --unset core.fsync || true
	echo "without fsync: $(col 1 "$OUT/s0" | median) ms; with fsync: $(col 1 "$OUT/s1" | median) ms"
fi

if want verify; then
	echo
	echo "# nika verify over 1,000 applied proposals (the 1,000-file repository)"
	vdir=$CACHE/verify-1000
	if [ ! -f "$vdir/.git/verify-done" ]; then
		echo "(building $vdir through go test -bench BenchmarkVerify first)"
		(cd "$ROOT" && NIKA_BENCH_CACHE=$CACHE go test ./flow -run XXX -bench BenchmarkVerify -benchtime 1x >/dev/null)
	fi
	base=$(cat "$vdir/.git/verify-base")
	: >"$OUT/v"
	for r in $(seq 1 "$RUNS"); do
		(cd "$vdir" && timed "$NIKA" verify --json "$base..HEAD") >>"$OUT/v"
	done
	echo "nika verify $base..HEAD: $(col 1 "$OUT/v" | median) ms (cpu $(col 2 "$OUT/v" | median) ms, rss $(($(col 3 "$OUT/v" | median | cut -d. -f1) / 1024)) MB)"
fi
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
