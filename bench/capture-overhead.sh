#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How much does `iotape capture` slow a fast device down? fio 4 KiB random reads (O_DIRECT)
# on a RAM-backed block device (a zram device of our own, or a loop device over tmpfs), with
# and without tracing, alternated, median of RUNS; prints the slowdown and lost events.
# Target (issue 3): at most 5 % slowdown and no lost events. Not a test: run it by hand, as
# root:  bench/capture-overhead.sh [IOTAPE]
# env: RUNS=5 SECS=5 DEPTH=16 READERS="raw pipe raw:issue,complete" (READER[:MASK] per config)
#      TARGET=zram|loop (default: zram where the kernel has it, else a loop device over tmpfs)
set -euo pipefail
IOTAPE=${1:-iotape}
RUNS=${RUNS:-5}
SECS=${SECS:-5}
DEPTH=${DEPTH:-16}
READERS=${READERS:-raw pipe raw:issue,complete}
TARGET=${TARGET:-zram}
[ "$(id -u)" -eq 0 ] || { echo "capture-overhead: needs root" >&2; exit 2; }
command -v fio >/dev/null || { echo "capture-overhead: needs fio" >&2; exit 2; }
# the blk tracer is global: wait for the capture integration tests (same lock) to finish
exec 9>/tmp/iotape-capture-tests.lock
flock 9
WORK=$(mktemp -d /tmp/iotape-bench.XXXXXX)
DEV="" ZID="" LOOP=""
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -n "$ZID" ] && echo "$ZID" >/sys/class/zram-control/hot_remove
	mountpoint -q "$WORK/shm" && umount "$WORK/shm"
	rm -rf "$WORK"
}
trap cleanup EXIT

if [ "$TARGET" = zram ] && [ -w /sys/class/zram-control/hot_add ]; then
	ZID=$(cat /sys/class/zram-control/hot_add)
	echo 1G >/sys/block/zram$ZID/disksize
	DEV=/dev/zram$ZID
	# fill it so reads hit stored pages, not the zero-page shortcut
	dd if=/dev/urandom of=$DEV bs=1M count=1024 oflag=direct status=none
	KIND="zram ($(cat /sys/block/zram$ZID/comp_algorithm | sed 's/.*\[\(.*\)\].*/\1/'))"
else
	mkdir "$WORK/shm"
	mount -t tmpfs -o size=1100M tmpfs "$WORK/shm"
	dd if=/dev/urandom of="$WORK/shm/img" bs=1M count=1024 status=none
	LOOP=$(losetup -f --show "$WORK/shm/img")
	DEV=$LOOP
	KIND="loop over tmpfs"
fi
ENGINE=libaio
fio --enghelp 2>/dev/null | grep -qw libaio || ENGINE=psync

fio_iops() { # fio_iops JSONFILE
	python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]))' "$1"
}
# CPU time fio itself spent per IO (us): tracing costs the submitting and completing
# contexts; this is far less sensitive to other load on the machine than IOPS
fio_cpu_per_io() {
	python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print("%.3f" % ((j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] * 1000 / j["read"]["total_ios"]))' "$1"
}
FIO=(fio --name=randread --filename="$DEV" --rw=randread --bs=4k --direct=1
	--ioengine=$ENGINE --iodepth="$DEPTH" --runtime="$SECS" --time_based
	--randrepeat=0 --output-format=json)

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "device: $DEV, $KIND; fio $ENGINE iodepth $DEPTH, ${SECS}s x $RUNS runs each"
base=() basecpu=()
declare -A traced tcpu rcpu lost events
for r in $READERS; do traced[$r]=""; tcpu[$r]=""; rcpu[$r]=""; lost[$r]=0; events[$r]=0; done
for i in $(seq "$RUNS"); do
	"${FIO[@]}" --output="$WORK/base.json" >/dev/null
	base+=("$(fio_iops "$WORK/base.json")")
	basecpu+=("$(fio_cpu_per_io "$WORK/base.json")")
	for r in $READERS; do
		rm -rf "$WORK/run"
		mask=()
		[ "$r" != "${r#*:}" ] && mask=(-a "${r#*:}")
		"$IOTAPE" capture -o "$WORK/run" -d "$DEV" --backend tracefs --reader "${r%%:*}" "${mask[@]}" -- \
			"${FIO[@]}" --output="$WORK/traced.json" >/dev/null 2>"$WORK/err" ||
			{ cat "$WORK/err" >&2; exit 1; }
		traced[$r]="${traced[$r]} $(fio_iops "$WORK/traced.json")"
		tcpu[$r]="${tcpu[$r]} $(fio_cpu_per_io "$WORK/traced.json")"
		# iotape's own CPU (reader thread included) per million events
		rcpu[$r]="${rcpu[$r]} $(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print("%.3f" % ((d["iotape_cpu"]["user_s"] + d["iotape_cpu"]["sys_s"]) / max(d["counts"]["events"], 1) * 1e6))' "$WORK/run/manifest.json")"
		l=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["lost"])' "$WORK/run/manifest.json")
		e=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["events"])' "$WORK/run/manifest.json")
		lost[$r]=$((lost[$r] + l))
		events[$r]=$((events[$r] + e))
	done
	echo "run $i: base ${base[-1]} IOPS;$(for r in $READERS; do printf ' %s %s IOPS' "$r" "${traced[$r]##* }"; done)"
done
b=$(echo "${base[@]}" | median)
bc=$(echo "${basecpu[@]}" | median)
echo "baseline median: $b IOPS, fio CPU $bc us per IO; load average $(cut -d" " -f1-3 /proc/loadavg)"
for r in $READERS; do
	t=$(echo "${traced[$r]}" | median)
	tc=$(echo "${tcpu[$r]}" | median)
	rc=$(echo "${rcpu[$r]}" | median)
	slow=$(python3 -c "print(f'{(1 - $t / $b) * 100:.1f}')")
	cslow=$(python3 -c "print(f'{($tc / $bc - 1) * 100:.1f}')")
	echo "reader $r: median $t IOPS, slowdown $slow %; fio CPU $tc us per IO (+$cslow %);" \
		"iotape CPU $rc s per million events; events $((events[$r] / RUNS)) per run" \
		"($(python3 -c "print(f'{${events[$r]} / ($t * $SECS * $RUNS):.1f}')") per IO)," \
		"lost ${lost[$r]} in $RUNS runs"
done
