#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark (not a test): iotape's NFS replay onto a tmpfs directory (mounted by this script,
# removed on exit), on synthetic NFSv3 captures (tests/integration/nfs_v3gen.py load: create,
# write, getattr, lookup, read, truncate, rename, remove over 64 files).
#   afap:     CALLS calls as fast as possible, against tests/tools/nfsloop, a plain loop of
#             the same system calls (openat2 beneath the root, the call, close) on the same
#             operations: the machine's limit. Interleaved rounds, medians, the ratio.
#   original: ORIG calls at 2 000 calls/s on the capture's clock: issue lag p50, p99, max.
#   memory:   BIG calls afap: peak RSS of the whole process.
# usage: bench/nfs-replay.sh [BUILD_DIR] (default build); ROUNDS=5 CALLS=100000 ORIG=20000
#        BIG=1000000 env knobs
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
IOTAPE=$BUILD/iotape
LOOP=$BUILD/tests/nfsloop
GEN=$SRC/tests/integration/nfs_v3gen.py
ROUNDS=${ROUNDS:-5}
CALLS=${CALLS:-100000}
ORIG=${ORIG:-20000}
BIG=${BIG:-1000000}
# The timed replay runs at a real-time priority, as in bench/replay.sh: on a shared 2-CPU
# machine a compiler next door otherwise decides the issue lag. RT= disables it.
RT=${RT-chrt -f 10}
OUT=$SRC/bench/out/nfs-replay-$(date -u +%Y%m%dT%H%M%SZ)
[ "$(id -u)" -eq 0 ] || { echo "needs root (a tmpfs of its own)" >&2; exit 1; }
[ -x "$IOTAPE" ] && [ -x "$LOOP" ] || { echo "build first: $BUILD" >&2; exit 1; }
mkdir -p "$OUT/tmpfs"
mount -t tmpfs -o size=4G iotape-bench "$OUT/tmpfs"
trap 'umount "$OUT/tmpfs"' EXIT
out=$OUT
source "$SRC/bench/lib.bash"

echo "== generating the captures (synthetic)"
python3 "$GEN" load "$OUT/afap.pcap" "$CALLS" 64 50 "$OUT/afap.list"
python3 "$GEN" load "$OUT/orig.pcap" "$ORIG" 64 500

# a fresh directory for every run
fresh() { mktemp -d "$OUT/tmpfs/run.XXXXXX"; }
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$2"; }

echo "== afap: $CALLS calls, $ROUNDS rounds (calls/s), tmpfs"
rep=() loop=() wall=()
for r in $(seq "$ROUNDS"); do
	d=$(fresh)
	t0=$EPOCHREALTIME
	"$IOTAPE" replay --timing afap --json "$OUT/afap.pcap" --target "$d" >"$OUT/afap.json" \
		2>/dev/null || { echo "bench: the replay failed" >&2; exit 1; }
	t1=$EPOCHREALTIME
	[ "$(jq_py 'd["replay"]["calls"] == '"$CALLS"' and d["replay"]["diverged"] == 0' \
		"$OUT/afap.json")" = True ] || { echo "bench: the replay diverged" >&2; exit 1; }
	rep+=("$(jq_py 'round(d["replay"]["calls_per_s"])' "$OUT/afap.json")")
	wall+=("$(awk -v a="$t0" -v b="$t1" -v c="$CALLS" 'BEGIN { printf "%.0f", c / (b - a) }')")
	d=$(fresh)
	loop+=("$("$LOOP" "$OUT/afap.list" "$d" | awk '{ printf "%.0f", $5 }')")
	rm -rf "$OUT/tmpfs"/*
done
mr=$(med "${rep[@]}") ml=$(med "${loop[@]}") mw=$(med "${wall[@]}")
printf "  %-34s %s  (median %s)\n" "iotape replay (its clock)" "${rep[*]}" "$mr"
printf "  %-34s %s  (median %s)\n" "iotape replay (whole command)" "${wall[*]}" "$mw"
printf "  %-34s %s  (median %s)\n" "plain loop of the syscalls" "${loop[*]}" "$ml"
awk -v a="$mr" -v b="$ml" 'BEGIN { printf "  ratio replay / loop: %.2f (target >= 0.5)\n", a / b }'

echo "== original timing: $ORIG calls at 2000 calls/s${RT:+ ($RT)}"
d=$(fresh)
$RT "$IOTAPE" replay --json "$OUT/orig.pcap" --target "$d" >"$OUT/orig.json" 2>/dev/null
jq_py '"  issue lag p50 %.1f us  p99 %.1f us  max %.1f us (targets: p50 <= 100 us, p99 <= 1 ms)" % (d["replay"]["issue_lag"]["p50_ns"] / 1e3, d["replay"]["issue_lag"]["p99_ns"] / 1e3, d["replay"]["issue_lag"]["max_ns"] / 1e3)' "$OUT/orig.json"
rm -rf "$OUT/tmpfs"/*

echo "== memory: $BIG calls afap"
python3 "$GEN" load "$OUT/big.pcap" "$BIG" 64 50
d=$(fresh)
read -r t rss < <(timed "$IOTAPE" replay --timing afap "$OUT/big.pcap" --target "$d")
printf "  %s calls in %s s, peak RSS %.1f MiB (target <= 64 MiB)\n" "$BIG" "$t" \
	"$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
rm -f "$OUT/big.pcap"
