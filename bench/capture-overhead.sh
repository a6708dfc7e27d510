#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How much does `iotape capture` slow a fast device down? fio 4 KiB random reads (O_DIRECT,
# iodepth 16) on RAM-backed block devices of our own (a loop device over tmpfs, request-based;
# zram, bio-based), untraced and under each capture configuration, in interleaved rounds: each
# round runs every configuration once (starting at a different one each round), and each
# traced run is compared with the untraced run of its own round ("paired"), so a machine whose
# speed drifts (other jobs) slows both sides of a pair alike. Prints medians of the pairs, the
# load average before and after, events per IO and lost events.
# Targets (issue 29): bpf --detail io <= 5 % IOPS cost, summary <= 2 %, events below tracefs.
# Not a test: run it by hand, as root:  bench/capture-overhead.sh [IOTAPE]
# env: RUNS=7 SECS=3 DEPTH=16 TARGETS="loop zram"
#      CONFIGS="tracefs bpf:events bpf:io bpf:summary biolat" (BACKEND[:DETAIL-or-READER],
#      tracefs:pipe, tracefs:raw:issue,complete for a mask, bpf:io:backlog=0 for the reader
#      encoding itself (capture --backlog 0); biolat: the floor, one histogram update per IO,
#      build/biolat)
#      RT="chrt -f 10" (default; RT= for normal priority): every run (fio, iotape and its
#      reader, biolat) at a real-time priority, as bench/replay.sh, so that other jobs on a
#      shared machine move the IOPS less
#      BPF_STATS=1: also the kernel's own count of the time the BPF programs ran, per IO
#      (kernel.bpf_stats_enabled on during the runs, put back after): the in-kernel cost of
#      the bpf levels and the floor, which the machine's other load moves far less than IOPS
set -euo pipefail
IOTAPE=${1:-iotape}
RUNS=${RUNS:-7}
SECS=${SECS:-3}
DEPTH=${DEPTH:-16}
TARGETS=${TARGETS:-loop zram}
CONFIGS=${CONFIGS:-tracefs bpf:events bpf:io bpf:summary biolat}
RT=${RT-chrt -f 10}
BIOLAT=${BIOLAT:-$(dirname "$(command -v "$IOTAPE")")/biolat}
[ "$(id -u)" -eq 0 ] || { echo "capture-overhead: needs root" >&2; exit 2; }
command -v fio >/dev/null || { echo "capture-overhead: needs fio" >&2; exit 2; }
case " $CONFIGS " in *" biolat "*)
	[ -x "$BIOLAT" ] || { echo "capture-overhead: no $BIOLAT (built with the bpf backend)" >&2; exit 2; } ;;
esac
# the blk tracer is global: wait for the capture integration tests (same lock) to finish
exec 9>/tmp/iotape-capture-tests.lock
flock 9
WORK=$(mktemp -d /tmp/iotape-bench.XXXXXX)
source "$(dirname "$0")/capture.bash"
ZID="" LOOP=""
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -n "$ZID" ] && echo "$ZID" >/sys/class/zram-control/hot_remove
	mountpoint -q "$WORK/shm" && umount "$WORK/shm"
	rm -rf "$WORK"
}
BPF_STATS=${BPF_STATS:-0}
STATS_WAS=""
if [ "$BPF_STATS" = 1 ]; then
	command -v bpftool >/dev/null || { echo "capture-overhead: BPF_STATS=1 needs bpftool" >&2; exit 2; }
	STATS_WAS=$(cat /proc/sys/kernel/bpf_stats_enabled)
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
fi
trap 'cleanup; [ -n "$STATS_WAS" ] && echo "$STATS_WAS" >/proc/sys/kernel/bpf_stats_enabled' EXIT
echo "iotape: $IOTAPE ($("$IOTAPE" version 2>/dev/null | head -1 || echo "?"))"
ENGINE=libaio
fio --enghelp 2>/dev/null | grep -qw libaio || ENGINE=psync

make_target() { # make_target loop|zram: DEV, KIND
	case $1 in
	zram)
		[ -w /sys/class/zram-control/hot_add ] || return 1
		ZID=$(cat /sys/class/zram-control/hot_add)
		echo 1G >/sys/block/zram$ZID/disksize
		DEV=/dev/zram$ZID
		# fill it so reads hit stored pages, not the zero-page shortcut
		dd if=/dev/urandom of="$DEV" bs=1M count=1024 oflag=direct status=none
		KIND="zram ($(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/zram$ZID/comp_algorithm), bio-based)"
		;;
	loop)
		loop_over_tmpfs 1024
		DEV=$LOOP
		KIND="loop over tmpfs (request-based)"
		;;
	esac
}
drop_target() {
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	LOOP=""
	[ -n "$ZID" ] && echo "$ZID" >/sys/class/zram-control/hot_remove
	ZID=""
	mountpoint -q "$WORK/shm" && umount "$WORK/shm"
	return 0
}

pyjson() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$2"; }
fio_iops() { pyjson 'round(d["jobs"][0]["read"]["iops"])' "$1"; }
# CPU time fio itself spent per IO (us): tracing costs the submitting and completing
# contexts; far less sensitive to other load on the machine than IOPS
fio_cpu_per_io() {
	pyjson '"%.3f" % ((d["jobs"][0]["usr_cpu"] + d["jobs"][0]["sys_cpu"]) / 100 * d["jobs"][0]["job_runtime"] * 1000 / d["jobs"][0]["read"]["total_ios"])' "$1"
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# the median's 95 % confidence interval from the order statistics (distribution-free: the k-th
# lowest to the k-th highest, k the most that keeps 2 P(Binomial(n, 1/2) < k) <= 5 %), "-"
# under 6 values
median_ci() {
	tr ' ' '\n' | grep . | sort -g | python3 -c '
import math, sys
v = [float(x) for x in sys.stdin]
n, k, cdf = len(v), 0, 0.0
while n >= 6 and cdf + math.comb(n, k) / 2 ** n <= 0.025:
	cdf += math.comb(n, k) / 2 ** n
	k += 1
print(f"{v[k - 1]:.1f}..{v[n - k]:.1f}" if k else "-")'
}
loadavg() { cut -d" " -f1-3 /proc/loadavg; }

# run CONFIG: one fio run under CONFIG ("none": untraced) -> $WORK/fio.json, $WORK/run
run() {
	local c=$1 b d m
	local fio=(fio --name=randread --filename="$DEV" --rw=randread --bs=4k --direct=1
		--ioengine=$ENGINE --iodepth="$DEPTH" --runtime="$SECS" --time_based --randrepeat=0
		--output-format=json --output="$WORK/fio.json")
	rm -rf "$WORK/run" "$WORK/progs.json"
	# with BPF_STATS=1 the programs' run times are read while they are still loaded
	[ "$BPF_STATS" = 1 ] && [ "$c" != none ] &&
		fio=(sh -c '"$@" && bpftool -j prog show >"'"$WORK"'/progs.json"' sh "${fio[@]}")
	case $c in
	none) $RT "${fio[@]}" >/dev/null ;;
	biolat) $RT "$BIOLAT" "$DEV" -- "${fio[@]}" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; } ;;
	*)
		IFS=: read -r b d m <<<"$c"
		local args=(--backend "$b")
		if [ "$b" = bpf ]; then args+=(--detail "${d:-events}"); else args+=(--reader "${d:-raw}"); fi
		case $m in
		'') ;;
		backlog=*) args+=(--backlog "${m#backlog=}") ;;
		*) args+=(-a "$m") ;;
		esac
		$RT "$IOTAPE" capture -o "$WORK/run" -d "$DEV" "${args[@]}" -- "${fio[@]}" >/dev/null 2>"$WORK/err" ||
			{ cat "$WORK/err" >&2; exit 1; }
		;;
	esac
}

for target in $TARGETS; do
	if ! make_target "$target"; then
		echo "capture-overhead: no $target here, skipped" >&2
		continue
	fi
	echo
	echo "== $DEV: $KIND; fio $ENGINE 4 KiB randread iodepth $DEPTH, ${SECS}s runs, $RUNS rounds; priority: ${RT:-normal}; load average $(loadavg)"
	declare -A iops=() cpu=() ratio=() cratio=() lost=() events=() icpu=() kns=()
	all=(none $CONFIGS)
	n=${#all[@]}
	for i in $(seq 0 $((RUNS - 1))); do
		line="round $((i + 1)):"
		for k in $(seq 0 $((n - 1))); do
			c=${all[$(((i + k) % n))]}
			run "$c"
			iops[$c]="${iops[$c]:-} $(fio_iops "$WORK/fio.json")"
			cpu[$c]="${cpu[$c]:-} $(fio_cpu_per_io "$WORK/fio.json")"
			if [ -f "$WORK/run/manifest.json" ]; then
				lost[$c]=$((${lost[$c]:-0} + $(pyjson 'd["counts"]["lost"]' "$WORK/run/manifest.json")))
				events[$c]=$((${events[$c]:-0} + $(pyjson 'd["counts"]["events"]' "$WORK/run/manifest.json")))
				icpu[$c]="${icpu[$c]:-} $(pyjson '"%.3f" % (d["iotape_cpu"]["user_s"] + d["iotape_cpu"]["sys_s"])' "$WORK/run/manifest.json")"
			fi
			if [ -f "$WORK/progs.json" ]; then
				# ns the programs ran per IO: what tracing costs inside the kernel
				kns[$c]="${kns[$c]:-} $(python3 -c '
import json, sys
progs = json.load(open(sys.argv[1]))
ios = json.load(open(sys.argv[2]))["jobs"][0]["read"]["total_ios"]
ns = sum(p.get("run_time_ns", 0) for p in progs if p.get("type") == "tracing")
print("%.0f" % (ns / max(ios, 1)))' "$WORK/progs.json" "$WORK/fio.json")"
			fi
			line="$line $c ${iops[$c]##* }"
		done
		# this round's pairs: each configuration against this round's untraced run
		b=${iops[none]##* } bc=${cpu[none]##* }
		for c in $CONFIGS; do
			ratio[$c]="${ratio[$c]:-} $(python3 -c "print(f'{(1 - ${iops[$c]##* } / $b) * 100:.2f}')")"
			cratio[$c]="${cratio[$c]:-} $(python3 -c "print(f'{(${cpu[$c]##* } / $bc - 1) * 100:.2f}')")"
		done
		echo "$line"
	done
	bi=$(echo "${iops[none]}" | median)
	echo "untraced: median $bi IOPS (runs:${iops[none]}), fio CPU $(echo "${cpu[none]}" | median) us per IO"
	printf '%-22s %10s %12s %14s %14s %14s %10s %12s %8s %12s\n' configuration IOPS "IOPS cost" "95% CI" "range" "fio CPU/IO" "events/IO" "iotape CPU" lost "BPF ns/IO"
	for c in $CONFIGS; do
		t=$(echo "${iops[$c]}" | median)
		r=$(echo "${ratio[$c]}" | median)
		lo=$(echo "${ratio[$c]}" | tr ' ' '\n' | grep . | sort -g | head -1)
		hi=$(echo "${ratio[$c]}" | tr ' ' '\n' | grep . | sort -g | tail -1)
		cr=$(echo "${cratio[$c]}" | median)
		epio="-" ic="-"
		if [ -n "${events[$c]:-}" ]; then
			epio=$(python3 -c "print(f'{${events[$c]} / ($t * $SECS * $RUNS):.2f}')")
			ic="$(echo "${icpu[$c]}" | median) s"
		fi
		kn="-"
		[ -n "${kns[$c]:-}" ] && kn=$(echo "${kns[$c]}" | median)
		ci=$(echo "${ratio[$c]}" | median_ci)
		printf '%-22s %10s %11s%% %14s %14s %13s%% %10s %12s %8s %12s\n' "$c" "$t" "$r" "$ci" "$lo..$hi" "+$cr" "$epio" "$ic" "${lost[$c]:--}" "$kn"
	done
	echo "(IOPS cost and fio CPU per IO: medians of the per-round pairs, the IOPS cost's 95 % confidence interval and range; load average now $(loadavg))"
	unset iops cpu ratio cratio lost events icpu kns
	drop_target
done
