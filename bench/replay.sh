#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark (not a test): iotape replay against the device's limit and against fio, on RAM-backed
# targets this script makes and removes. Runs unattended; everything it prints is also kept in
# bench/out/replay-DATE/ with the raw outputs.
#   floor:    three traces, each replayed afap by iotape and by fio (read_iolog, libaio, direct)
#             and done as a tight loop of the same preads/pwrites (tests/tools/ioloop: the
#             floor), on zram and on a loop device over tmpfs; seconds, and each tool's time
#             as a ratio to the floor's in the same round (median of the rounds)
#   orig:     a 10 k IOPS trace on its own clock on zram: issue lag p50/p99, self-reported by
#             iotape and, for both tools alike, measured from the block_bio_queue tracepoint
#   afap:     (not by default) the older comparison: a depth ~30 trace, IOPS of iotape (its
#             engine, and io_uring), fio iodepth 1 and 32, and btreplay
# usage: bench/replay.sh [BUILD_DIR] (default build)
#   ROUNDS=5 PARTS="floor orig" TARGETS="zram loop" SHAPES="d1 mixed d16"
#   IOS_D1=200000 IOS_MIXED=50000 IOS_D16=200000 IOS=200000 (afap) BTREPLAY_TIMEOUT=60
#   RT="chrt -f 10" (RT= for normal priority)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
IOTAPE=$BUILD/iotape
GEN=$BUILD/tests/replaygen
IOLOOP=$BUILD/tests/ioloop
ROUNDS=${ROUNDS:-5}
PARTS=${PARTS:-floor orig}
TARGETS=${TARGETS:-zram loop}
SHAPES=${SHAPES:-d1 mixed d16}
IOS_D1=${IOS_D1:-200000}
IOS_MIXED=${IOS_MIXED:-50000}
IOS_D16=${IOS_D16:-200000}
IOS=${IOS:-200000}
SPAN_MB=512
BTREPLAY_TIMEOUT=${BTREPLAY_TIMEOUT:-60}
# Every tool runs at a real-time priority: on a shared 2-CPU machine a compiler next door
# otherwise decides the issue lag (p99 of milliseconds for any replayer). RT= disables it.
RT=${RT-chrt -f 10}
OUT=$SRC/bench/out/replay-$(date -u +%Y%m%dT%H%M%SZ)
LOCK=/tmp/iotape-capture-tests.lock # loop devices and tracefs: the capture tests' lock
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 1; }
for c in fio blkparse python3 losetup; do
	command -v $c >/dev/null || { echo "needs $c" >&2; exit 1; }
done
[ -x "$IOTAPE" ] && [ -x "$GEN" ] && [ -x "$IOLOOP" ] || { echo "build first: $BUILD" >&2; exit 1; }
mkdir -p "$OUT"
exec > >(tee "$OUT/summary.txt") 2>&1
has() { [[ " $1 " == *" $2 "* ]]; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

ZID= ZDEV= TMPFS= LOOPDEV= TRACING=
cleanup() {
	[ -n "$TRACING" ] && { echo 0 >"$TRACING/events/block/block_bio_queue/enable" || true
		rmdir "$TRACING" 2>/dev/null || true; }
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null
	[ -n "$TMPFS" ] && { umount "$TMPFS" 2>/dev/null; rmdir "$TMPFS" 2>/dev/null; }
	[ -n "$ZID" ] && echo "$ZID" >/sys/class/zram-control/hot_remove 2>/dev/null
	true
}
trap cleanup EXIT

# ---- targets -----------------------------------------------------------------------------
zram_new() { # SIZE: a zram device of our own in ZDEV (ZID); zram is built in or a module
	[ -e /sys/class/zram-control/hot_add ] || modprobe zram num_devices=0 || true
	ZID=$(cat /sys/class/zram-control/hot_add)
	echo "$1" >/sys/block/zram$ZID/disksize
	ZDEV=/dev/zram$ZID
}
zram_reset() { # an empty device again, so no run reads what another wrote
	echo 1 >/sys/block/zram$ZID/reset
	echo "$1" >/sys/block/zram$ZID/disksize
}
zram_del() { echo "$ZID" >/sys/class/zram-control/hot_remove; ZID= ZDEV=; }
loop_new() { # a loop device over a file on a tmpfs of our own, in LOOPDEV
	TMPFS=$(mktemp -d /tmp/iotape-bench-tmpfs.XXXXXX)
	mount -t tmpfs -o size=$((SPAN_MB + 64))m iotape-bench "$TMPFS"
	truncate -s ${SPAN_MB}M "$TMPFS/disk"
	LOOPDEV=$(losetup -f --show --direct-io=on "$TMPFS/disk" 2>/dev/null) ||
		LOOPDEV=$(losetup -f --show "$TMPFS/disk")
}
loop_del() { losetup -d "$LOOPDEV"; LOOPDEV=; umount "$TMPFS"; rmdir "$TMPFS"; TMPFS=; }
prefill() { # DEV: incompressible data over the traces' span, so reads read something
	dd if=/dev/urandom of="$1" bs=1M count=$SPAN_MB oflag=direct status=none
}
describe() { # DEV
	local q=/sys/block/$(basename "$1")/queue
	echo "$1: logical block $(cat $q/logical_block_size), max_sectors_kb $(cat $q/max_sectors_kb)," \
		"max_segments $(cat $q/max_segments)"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "iotape: $IOTAPE ($("$IOTAPE" version 2>/dev/null | head -1 || echo "?"); source tree at $(git -C "$SRC" describe --always --dirty 2>/dev/null || echo "?"))"
echo "priority: ${RT:-normal}; host: $(nproc) CPUs, kernel $(uname -r); load at start $(load)"
echo "raw outputs: $OUT"

# ---- floor: iotape and fio against a tight loop of the same IOs ----------------------------
# d1:    IOS_D1 IOs of 4 KiB, each issued after the one before completed (depth 1), 70 % reads
# mixed: IOS_MIXED IOs of 4-512 KiB, depth 1, 70 % reads
# d16:   IOS_D16 IOs of 4-64 KiB, one every 1 us with 8-24 us latency (overlapping, depth ~16),
#        70 % reads; iotape and fio at depth 16, the loop with 16 threads taking the IOs in turn
shape_what() {
	case $1 in
	d1) echo "depth 1, 4 KiB, $IOS_D1 IOs" ;;
	mixed) echo "depth 1, 4-512 KiB, $IOS_MIXED IOs" ;;
	d16) echo "depth 16, 4-64 KiB, $IOS_D16 IOs" ;;
	esac
}
floor_traces() {
	local common=(-n bench --read-pct 70 --span-mb $SPAN_MB --cpus 1)
	"$GEN" -o "$OUT/d1" "${common[@]}" --ios "$IOS_D1" --seed 21 --gap-us 100 --lat-us 50 \
		--fixed-kb 4
	"$GEN" -o "$OUT/mixed" "${common[@]}" --ios "$IOS_MIXED" --seed 22 --gap-us 100 \
		--lat-us 50 --max-kb 512
	"$GEN" -o "$OUT/d16" "${common[@]}" --ios "$IOS_D16" --seed 23 --gap-us 1 --lat-us 16 \
		--max-kb 64
	for s in d1 mixed d16; do
		blkparse -q -i "$OUT/$s/bench" -d "$OUT/$s.bin" -O >/dev/null
	done
}
depth_of() { [ "$1" = d16 ] && echo 16 || echo 1; }
# iotape's own depth (the dependency rule keeps depth-1 traces at 1) but for d16, where fio's is
depth_opt() { [ "$1" = d16 ] && echo "--depth=16" || true; }
run_floor() { # SHAPE DEV -> seconds
	$RT "$IOLOOP" --threads "$(depth_of "$1")" "$OUT/$1/bench" "$2" | awk '{print $6}'
}
run_iotape() { # SHAPE DEV TAG -> seconds (first issue to last completion)
	$RT "$IOTAPE" replay --timing afap --allow-writes --json --no-progress $(depth_opt "$1") \
		--target "$2" "$OUT/$1/bench" >"$OUT/iotape-$3.json"
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["replay"]["duration_ns"] / 1e9)' \
		"$OUT/iotape-$3.json"
}
run_fio() { # SHAPE DEV TAG -> seconds (its job_runtime)
	$RT fio --name=replay --read_iolog="$OUT/$1.bin" --replay_redirect="$2" --replay_no_stall=1 \
		--ioengine=libaio --direct=1 --iodepth="$(depth_of "$1")" --output-format=json \
		>"$OUT/fio-$3.json" 2>"$OUT/fio-$3.err"
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["job_runtime"] / 1e3)' \
		"$OUT/fio-$3.json"
}
floor_target() { # TARGET DEV
	local t=$1 dev=$2 r s k tools=(floor iotape fio)
	declare -A secs ratio
	echo "== floor on $t: $(describe "$dev"); $ROUNDS rounds, load at start $(load)"
	prefill "$dev"
	for r in $(seq "$ROUNDS"); do
		for s in $SHAPES; do
			declare -A got=()
			# the tools in a different order each round
			for k in $(seq 0 2); do
				local tool=${tools[$(((k + r) % 3))]}
				# a real-time task that used most of the last second is throttled for the
				# rest of it (sched_rt_runtime_us): each run starts with its budget whole
				sleep 1
				got[$tool]=$(run_$tool "$s" "$dev" "$t-$s-$r")
				secs[$s,$tool]+=" ${got[$tool]}"
			done
			ratio[$s,iotape]+=" $(awk -v a="${got[iotape]}" -v b="${got[floor]}" 'BEGIN{print a/b}')"
			ratio[$s,fio]+=" $(awk -v a="${got[fio]}" -v b="${got[floor]}" 'BEGIN{print a/b}')"
			echo "  round $r $s: floor ${got[floor]} s, iotape ${got[iotape]} s, fio ${got[fio]} s" \
				>>"$OUT/rounds.txt"
		done
	done
	printf '  %-30s %9s %9s %9s %10s %10s %8s\n' "trace (seconds: medians)" floor iotape fio \
		"iotape/fl" "fio/fl" "fio/iot"
	for s in $SHAPES; do
		local mf mi mo ri ro
		mf=$(echo "${secs[$s,floor]}" | median)
		mi=$(echo "${secs[$s,iotape]}" | median)
		mo=$(echo "${secs[$s,fio]}" | median)
		ri=$(echo "${ratio[$s,iotape]}" | median)
		ro=$(echo "${ratio[$s,fio]}" | median)
		printf '  %-30s %9.3f %9.3f %9.3f %10.3f %10.3f %8.2f\n' "$(shape_what "$s")" \
			"$mf" "$mi" "$mo" "$ri" "$ro" "$(awk -v a="$mo" -v b="$mi" 'BEGIN{print a/b}')"
	done
	echo "  (iotape/fl, fio/fl: each run over the floor's run of the same round, median of the" \
		"rounds; fio/iot: the medians' ratio, above 1 when iotape is ahead; load at end $(load))"
}
if has "$PARTS" floor; then
	floor_traces
	echo "rounds: $OUT/rounds.txt"
	for t in $TARGETS; do
		case $t in
		zram) zram_new 1G; floor_target zram "$ZDEV"; zram_del ;;
		loop)
			exec 8>"$LOCK"
			flock 8
			loop_new
			floor_target loop "$LOOPDEV"
			loop_del
			flock -u 8
			;;
		esac
	done
fi

# ---- afap (the older comparison): a depth ~30 trace, IOPS --------------------------------
if has "$PARTS" afap; then
	zram_new 2G
	# IOS 4 KiB IOs, 70 % reads, one every 1 us with 15..45 us latency: depth ~30
	"$GEN" -o "$OUT/afap" -n zram$ZID --ios "$IOS" --seed 1 --gap-us 1 --lat-us 30 --fixed-kb 4 \
		--read-pct 70 --span-mb 1024 --cpus 1
	blkparse -q -i "$OUT/afap/zram$ZID" -d "$OUT/afap.bin" -O >/dev/null
	iotape_afap() { # ENGINE (auto: iotape's own choice) -> IOPS
		local eng=()
		[ "$1" = auto ] || eng=(--engine "$1")
		zram_reset 2G
		$RT "$IOTAPE" replay "${eng[@]}" --timing afap --allow-writes --json --no-progress \
			--target "$ZDEV" "$OUT/afap/zram$ZID" >"$OUT/iotape-$1.json"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["replay"]; print(int(d["iops"]))' \
			"$OUT/iotape-$1.json"
	}
	fio_afap() { # IODEPTH -> IOPS
		zram_reset 2G
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
	echo "== afap: $IOS IOs, $ROUNDS rounds (IOPS), load at start $(load)"
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
	python3 -c "import sys; u,a,b=map(float,sys.argv[1:]); print('  ratio iotape/fio: %.2fx (fio iodepth=1), %.2fx (fio iodepth=32)' % (u/a, u/b))" "$U" "$F1" "$F32"

	# btreplay: btrecord makes its bunches from Q events; it opens /dev/NAME itself
	echo "== btreplay"
	mkdir -p "$OUT/btr"
	if btrecord -d "$OUT/afap" -D "$OUT/btr" zram$ZID 2>"$OUT/btrecord.err"; then
		zram_reset 2G
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
	zram_del
fi

# ---- original timing at 10 k IOPS: issue lag ---------------------------------------------
# The block_bio_queue tracepoint of our zram device, in a private tracefs instance, timestamps
# every bio as it enters the block layer: lag = (t_i - t_0) - (trace_i - trace_0), the same
# measurement for both tools (each anchors its clock at its first IO).
if has "$PARTS" orig; then
	zram_new 2G
	# 10 k IOPS for 5 s (one every 100 us, 25..75 us latency)
	"$GEN" -o "$OUT/orig" -n zram$ZID --ios 50000 --seed 2 --gap-us 100 --lat-us 50 --fixed-kb 4 \
		--read-pct 70 --span-mb 1024 --cpus 1
	blkparse -q -i "$OUT/orig/zram$ZID" -d "$OUT/orig.bin" -O >/dev/null
	"$GEN" dump --time "$OUT/orig/zram$ZID" >"$OUT/orig.want"
	exec 8>"$LOCK"
	flock 8
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
		zram_reset 2G
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
	echo "== original timing, 50000 IOs at 10 k IOPS on zram, load at start $(load)"
	for eng in auto io_uring; do
		e=(); [ $eng = auto ] || e=(--engine $eng)
		measure iotape-orig-$eng $RT "$IOTAPE" replay "${e[@]}" --allow-writes --json --no-progress \
			--target "$ZDEV" "$OUT/orig/zram$ZID"
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
	echo 0 >"$TRACING/events/block/block_bio_queue/enable" 2>/dev/null || true
	rmdir "$TRACING" 2>/dev/null || true
	TRACING=
	flock -u 8
	zram_del
fi
echo "load at end $(load); results and raw outputs in $OUT"
