#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark (not a test): iotape replay against fio's iolog replay and btreplay on one
# RAM-backed target (a zram device this script creates and removes).
#   afap:     the same trace, as fast as possible; achieved IOPS, median of ROUNDS runs
#   original: a 10 k IOPS trace on its own clock; issue lag p50/p99, self-reported by iotape
#             and, for both tools alike, measured from the block_bio_queue tracepoint
# usage: bench/replay.sh [BUILD_DIR] (default build-replay); ROUNDS=5 IOS=200000 env knobs
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build-replay}
IOTAPE=$BUILD/iotape
GEN=$BUILD/tests/replaygen
ROUNDS=${ROUNDS:-5}
IOS=${IOS:-200000}
BTREPLAY_TIMEOUT=${BTREPLAY_TIMEOUT:-60}
# Every tool runs at a real-time priority: on a shared 2-CPU machine a compiler next door
# otherwise decides the issue lag (p99 of milliseconds for any replayer). RT= disables it.
RT=${RT-chrt -f 10}
OUT=$SRC/bench/out/replay-$(date -u +%Y%m%dT%H%M%SZ)
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 1; }
for c in fio blkparse python3; do command -v $c >/dev/null || { echo "needs $c" >&2; exit 1; }; done
[ -x "$IOTAPE" ] && [ -x "$GEN" ] || { echo "build first: $BUILD" >&2; exit 1; }
mkdir -p "$OUT"

# ---- the target: a zram device of our own ----------------------------------------------
[ -e /sys/class/zram-control/hot_add ] || modprobe zram num_devices=0 || true
ZID=$(cat /sys/class/zram-control/hot_add)
ZDEV=/dev/zram$ZID
TRACING=
cleanup() {
	[ -n "$TRACING" ] && { echo 0 >"$TRACING/events/block/block_bio_queue/enable" || true
		rmdir "$TRACING" 2>/dev/null || true; }
	echo "$ZID" >/sys/class/zram-control/hot_remove 2>/dev/null || true
}
trap cleanup EXIT
fresh_target() { # an empty device for every run, so no run reads what another wrote
	echo 1 >/sys/block/zram$ZID/reset
	echo 2G >/sys/block/zram$ZID/disksize
}
fresh_target
echo "target $ZDEV (zram, logical block $(cat /sys/block/zram$ZID/queue/logical_block_size))"
echo "priority: ${RT:-normal}"
echo "host: $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- traces ---------------------------------------------------------------------------
# afap: IOS 4 KiB IOs, 70 % reads, one every 1 us with 15..45 us latency: depth ~30
"$GEN" -o "$OUT/afap" -n zram$ZID --ios "$IOS" --seed 1 --gap-us 1 --lat-us 30 --fixed-kb 4 \
	--read-pct 70 --span-mb 1024 --cpus 1
# original: 10 k IOPS for 5 s (one every 100 us, 25..75 us latency)
"$GEN" -o "$OUT/orig" -n zram$ZID --ios 50000 --seed 2 --gap-us 100 --lat-us 50 --fixed-kb 4 \
	--read-pct 70 --span-mb 1024 --cpus 1
blkparse -q -i "$OUT/afap/zram$ZID" -d "$OUT/afap.bin" -O >/dev/null
blkparse -q -i "$OUT/orig/zram$ZID" -d "$OUT/orig.bin" -O >/dev/null
"$GEN" dump --time "$OUT/orig/zram$ZID" >"$OUT/orig.want"

iotape_afap() { # ENGINE (auto: iotape's own choice) -> IOPS
	local eng=()
	[ "$1" = auto ] || eng=(--engine "$1")
	fresh_target
	$RT "$IOTAPE" replay "${eng[@]}" --timing afap --allow-writes --json --target "$ZDEV" \
		"$OUT/afap/zram$ZID" >"$OUT/iotape-$1.json"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["replay"]; print(int(d["iops"]))' \
		"$OUT/iotape-$1.json"
}
fio_afap() { # IODEPTH -> IOPS
	fresh_target
	$RT fio --name=replay --read_iolog="$OUT/afap.bin" --replay_redirect="$ZDEV" \
		--replay_no_stall=1 --ioengine=libaio --direct=1 --iodepth="$1" \
		--output-format=json >"$OUT/fio-qd$1.json" 2>/dev/null
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
n = j["read"]["total_ios"] + j["write"]["total_ios"]
print(int(n * 1000 / j["job_runtime"]))' "$OUT/fio-qd$1.json"
}
json_engine() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["options"]["engine"])' "$OUT/iotape-auto.json"; }
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "== afap: $IOS IOs, $ROUNDS rounds (IOPS)"
declare -A runs
for r in $(seq "$ROUNDS"); do
	runs[auto]+=" $(iotape_afap auto)"
	runs[uring]+=" $(iotape_afap io_uring)"
	runs[fio1]+=" $(fio_afap 1)"
	runs[fio32]+=" $(fio_afap 32)"
done
for k in auto uring fio1 fio32; do
	printf "  %-32s %s  (median %s)\n" "$k" "${runs[$k]}" "$(echo "${runs[$k]}" | median)"
done | sed -e "s/^  auto /  iotape ($(json_engine))/" -e 's/^  uring /  iotape io_uring/' \
	-e 's/^  fio1 /  fio libaio iodepth=1 /' -e 's/^  fio32 /  fio libaio iodepth=32/'
U=$(echo "${runs[auto]}" | median)
F1=$(echo "${runs[fio1]}" | median)
F32=$(echo "${runs[fio32]}" | median)
python3 -c "import sys; u,a,b=map(float,sys.argv[1:]); print('  ratio iotape/fio: %.2fx (fio iodepth=1, the issue\'s command), %.2fx (fio iodepth=32)' % (u/a, u/b))" "$U" "$F1" "$F32"

# btreplay: btrecord makes its bunches from Q events; it opens /dev/NAME itself
echo "== btreplay"
mkdir -p "$OUT/btr"
if btrecord -d "$OUT/afap" -D "$OUT/btr" zram$ZID 2>"$OUT/btrecord.err"; then
	fresh_target
	t0=$(date +%s.%N)
	if timeout -s KILL "$BTREPLAY_TIMEOUT" $RT btreplay -d "$OUT/btr" -N -W zram$ZID >"$OUT/btreplay.out" 2>&1; then
		t1=$(date +%s.%N)
		python3 -c "import sys; print('  btreplay -N: %d IOPS' % ($IOS / (float(sys.argv[2]) - float(sys.argv[1]))))" "$t0" "$t1"
	else
		echo "  btreplay did not finish within $BTREPLAY_TIMEOUT s (killed; exit $?)"
	fi
else
	echo "  btrecord failed: $(head -c 200 "$OUT/btrecord.err")"
fi

# ---- original timing at 10 k IOPS: issue lag ---------------------------------------------
# The block_bio_queue tracepoint of our zram device, in a private tracefs instance, timestamps
# every bio as it enters the block layer: lag = (t_i - t_0) - (trace_i - trace_0), the same
# measurement for both tools (each anchors its clock at its first IO).
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null || true
if [ -d $T/instances ]; then
	TRACING=$T/instances/iotape-bench-$$
	mkdir "$TRACING"
	echo mono >"$TRACING/trace_clock"
	echo 65536 >"$TRACING/buffer_size_kb"
	MAJ=$(stat -c %t "$ZDEV"); MIN=$(stat -c %T "$ZDEV")
	echo "dev == $(( (0x$MAJ << 20) | 0x$MIN ))" >"$TRACING/events/block/block_bio_queue/filter"
fi
measure() { # NAME CMD... : run CMD while tracing; print the external lag
	local name=$1; shift
	fresh_target
	if [ -n "$TRACING" ]; then
		echo >"$TRACING/trace"
		echo 1 >"$TRACING/events/block/block_bio_queue/enable"
	fi
	"$@" >"$OUT/$name.stdout"
	if [ -n "$TRACING" ]; then
		echo 0 >"$TRACING/events/block/block_bio_queue/enable"
		cat "$TRACING/trace" >"$OUT/$name.bio"
		python3 - "$OUT/orig.want" "$OUT/$name.bio" "$name" <<'PY'
import re, sys
want = [tuple(map(int, l.split()[:2])) for l in open(sys.argv[1])]  # (time, sector)
got = []
for l in open(sys.argv[2], errors="replace"):  # a torn line in the trace buffer is not ours
    m = re.search(r"\s(\d+\.\d+): block_bio_queue: \d+,\d+ \S+ (\d+) \+", l)
    if m:
        got.append((int(round(float(m.group(1)) * 1e9)), int(m.group(2))))
# pair the i-th trace IO with the next traced bio at its sector: other bios (the safety
# check's read of the superblock area, say) are not part of the replay
pairs, j = [], 0
for t, sec in got:
    if j < len(want) and sec == want[j][1]:
        pairs.append((t, want[j][0]))
        j += 1
n = len(pairs)
if n < 2:
    print("  %-24s no events traced" % sys.argv[3]); sys.exit(0)
# anchor each tool at its own best IO (the smallest offset between bio and trace time): lag
# is then how much later than that best each IO went, which counts drift and jitter and does
# not depend on whether the first IO happened to be slow
base = min(g - w for g, w in pairs)
lag = sorted((g - w) - base for g, w in pairs)
q = lambda p: lag[min(n - 1, int(p * n))] / 1e3
print("  %-24s %d of %d IOs traced: lag p50 %.1f us, p99 %.1f us, max %.1f us" %
      (sys.argv[3], n, len(want), q(0.5), q(0.99), lag[-1] / 1e3))
PY
	fi
}
echo "== original timing, 50000 IOs at 10 k IOPS"
for eng in auto io_uring; do
	e=(); [ $eng = auto ] || e=(--engine $eng)
	measure iotape-orig-$eng $RT "$IOTAPE" replay "${e[@]}" --allow-writes --json --target "$ZDEV" \
		"$OUT/orig/zram$ZID"
	python3 - "$OUT/iotape-orig-$eng.stdout" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r, l = d["replay"], d["replay"]["issue_lag"]
print("  iotape %-7s self-report lag p50 %.1f us, p99 %.1f us, max %.1f us; duration %.4f of the trace's"
      % (d["options"]["engine"], l["p50_ns"] / 1e3, l["p99_ns"] / 1e3, l["max_ns"] / 1e3,
         r["duration_ratio"]))
PY
done
measure fio-orig $RT fio --name=replay --read_iolog="$OUT/orig.bin" --replay_redirect="$ZDEV" \
	--ioengine=libaio --direct=1 --output-format=json --output="$OUT/fio-orig.json"
python3 - "$OUT/fio-orig.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print("  fio job runtime %.3f s for a 5.000 s trace" % (j["job_runtime"] / 1e3))
PY
echo "results and raw outputs in $OUT"
