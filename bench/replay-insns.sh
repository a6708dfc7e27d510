#!/bin/bash
# SPDX-License-Identifier: MIT
# The block replay's hot path in instructions (callgrind counts them the same on a busy machine
# as on a quiet one): `iotape replay --engine null --timing afap` on fixed generated traces,
# counted inside replay_run() (the reader, the scheduler, the dependency rule, the null engine;
# not the process's start), one build against another. Not a test: the figure for the message
# of every commit that touches the path (bench/README.md). Writes are replayed (the null engine
# does no IO; the target is a sparse file of its own).
#   bench/replay-insns.sh [REV]    REV (default HEAD) against its parent
#   BASE=REV2 bench/replay-insns.sh [REV]    against REV2 instead
#   REV "." is the working tree as it is (scripts/build.sh release; BASE defaults to HEAD)
# IOS=20000 (per trace); builds of commits are kept in CACHE=/tmp/iotape-replay-insns/HASH.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
IOS=${IOS:-20000}
CACHE=${CACHE:-/tmp/iotape-replay-insns}
REV=${1:-HEAD}
command -v valgrind >/dev/null || { echo "needs valgrind (callgrind)" >&2; exit 1; }

# build REV -> prints the build directory (a commit: its own source tree from git archive)
build() {
	local rev=$1 hash dir
	if [ "$rev" = . ]; then
		scripts/build.sh release >/dev/null
		echo "$SRC/build"
		return
	fi
	hash=$(git rev-parse --verify "$rev^{commit}")
	dir=$CACHE/$hash
	if [ ! -x "$dir/build/iotape" ] || [ ! -x "$dir/build/tests/replaygen" ]; then
		rm -rf "$dir"
		mkdir -p "$dir/src"
		git archive "$hash" | tar -x -C "$dir/src"
		cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$dir/cmake.log"
		cmake --build "$dir/build" -j"$(nproc)" --target iotape replaygen >>"$dir/cmake.log" 2>&1 ||
			{ echo "build of $rev failed: $dir/cmake.log" >&2; exit 1; }
	fi
	echo "$dir/build"
}
label() { [ "$1" = . ] && echo "worktree" || git rev-parse --short "$1"; }

if [ -n "${BASE:-}" ]; then
	base=$BASE
elif [ "$REV" = . ]; then
	base=HEAD
else
	base=$REV^
fi
echo "building $(label "$base") and $(label "$REV") ..." >&2
NEW=$(build "$REV")
OLD=$(build "$base")

work=$(mktemp -d /tmp/iotape-replay-insns.XXXXXX)
trap 'rm -rf "$work"' EXIT
truncate -s 2G "$work/target"
# fixed seeds: the same traces for both builds, from the newer build's generator
gen() { "$NEW/tests/replaygen" -o "$work/$1" -n t --ios "$IOS" --read-pct 70 --span-mb 1024 \
	--cpus 2 "${@:2}"; }
gen dep1 --seed 11 --gap-us 100 --lat-us 50 --max-kb 512
gen dep16 --seed 12 --gap-us 1 --lat-us 16 --max-kb 64

count() { # BUILD TRACE -> instructions inside replay_run
	valgrind --tool=callgrind --toggle-collect=replay_run --callgrind-out-file="$work/cg.out" \
		"$1/iotape" replay --engine null --timing afap --allow-writes --no-progress --target "$work/target" \
		"$work/$2/t" >/dev/null 2>"$work/cg.err" ||
		{ echo "callgrind run failed:" >&2; cat "$work/cg.err" >&2; exit 1; }
	sed -n 's/.*Collected : //p' "$work/cg.err"
}

printf 'block replay hot path: instructions inside replay_run (callgrind; null engine, afap)\n'
printf '%-34s %14s %14s %8s\n' "trace ($IOS IOs)" "$(label "$base")" "$(label "$REV")" ratio
for t in dep1 dep16; do
	case $t in
	dep1) what="depth 1, 4-512 KiB, 70 % reads" ;;
	dep16) what="depth ~16, 4-64 KiB, 70 % reads" ;;
	esac
	o=$(count "$OLD" $t)
	n=$(count "$NEW" $t)
	printf '%-34s %14s %14s %8s\n' "$what" "$(printf "%'d" "$o")" "$(printf "%'d" "$n")" \
		"$(awk -v a="$o" -v b="$n" 'BEGIN { printf "%.3f", b / a }')"
	printf '%-34s %14s %14s\n' "  per IO" "$((o / IOS))" "$((n / IOS))"
done
