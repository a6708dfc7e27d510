#!/bin/bash
# SPDX-License-Identifier: MIT
# NFS analysis speed: `iotape analyze --json` against `tshark -q -z rpc,srt,100003,3` on one real
# capture of libnfs traffic against nfs-ganesha (NFSv3, 60 k operations, 448 MB), read as
# pcap, pcapng, gzip (gzip -6) and zstd (zstd -3, iotape only: tshark's build here has no
# zstd). Rounds interleave the tools and formats (a machine whose speed drifts slows them
# alike); medians of RUNS rounds, wall and CPU seconds, peak RSS, and the ratio of medians.
# Not a test. Needs root, ganesha, rpcbind, tcpdump, tshark, editcap, zstd.
#   bench/nfs.sh [CAPTURE]   (reuses CAPTURE if present; else makes one, kept with KEEP=PATH)
# Env: BUILD_DIR (default build), RUNS (default 5), BASE (another iotape, e.g. main's before a
# change, timed in the same rounds as "base"), FILES, FILE_BYTES, IO_BYTES, META;
# CAPTURE_BUFFER_KIB (tcpdump -B, default 1 GiB here: a smaller buffer drops packets).
set -euo pipefail
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SRCDIR/build}
export SRCDIR IOTAPE=$BUILD_DIR/iotape TOOLS=$BUILD_DIR/tests
RUNS=${RUNS:-5}
[ -x "$IOTAPE" ] || { echo "build first: scripts/build.sh release" >&2; exit 2; }
source "$SRCDIR/tests/integration/lib.bash"

CAP=${1:-}
if [ -z "$CAP" ] || [ ! -s "$CAP" ]; then
	export CAPTURE_BUFFER_KIB=${CAPTURE_BUFFER_KIB:-1048576}
	source "$SRCDIR/tests/integration/ganesha.bash"
	ganesha_start
	CAP=${CAP:-$TMP/bench.pcap}
	capture_start "$CAP"
	"$TOOLS/nfsload" -v 3 -n "${FILES:-400}" -s "${FILE_BYTES:-524288}" -b "${IO_BYTES:-65536}" \
		-m "${META:-20}" 127.0.0.1 "$GANESHA_EXPORT" /bench >/dev/null
	capture_stop
	if [ -n "${KEEP:-}" ]; then cp "$CAP" "$KEEP"; fi
fi
# the other formats beside it (made once, kept with the capture when it is a file of ours)
dir=$(dirname "$CAP")
base=$dir/$(basename "$CAP" .pcap)
[ -s "$base.pcapng" ] || editcap -F pcapng "$CAP" "$base.pcapng"
[ -s "$base.pcap.gz" ] || gzip -6 -c "$CAP" >"$base.pcap.gz"
[ -s "$base.pcap.zst" ] || zstd -q -3 -c "$CAP" >"$base.pcap.zst"
formats=(pcap pcapng gzip zstd)
declare -A file=([pcap]=$CAP [pcapng]=$base.pcapng [gzip]=$base.pcap.gz [zstd]=$base.pcap.zst)

# timed CMD...: "wall-seconds cpu-seconds peak-RSS-KiB" of one run
timed() {
	local log=$TMP/time.log t0 t1
	t0=$EPOCHREALTIME
	/usr/bin/time -f "%U %S %M" -o "$log" "$@" >/dev/null 2>&1
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" '{ printf "%.3f %.3f %d\n", b - a, $1 + $2, $3 }' "$log"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A W C R
for f in "${file[@]}"; do cat "$f" >/dev/null; done # the page cache warm for all
for ((i = 0; i < RUNS; i++)); do
	for fmt in "${formats[@]}"; do
		read -r w c r < <(timed "$IOTAPE" analyze --json "${file[$fmt]}")
		W[iotape.$fmt]+="$w " C[iotape.$fmt]+="$c " R[iotape.$fmt]+="$r "
		if [ -n "${BASE:-}" ]; then
			read -r w c r < <(timed "$BASE" analyze --json "${file[$fmt]}")
			W[base.$fmt]+="$w " C[base.$fmt]+="$c " R[base.$fmt]+="$r "
		fi
		[ "$fmt" = zstd ] && continue
		read -r w c r < <(timed tshark -o tcp.try_heuristic_first:TRUE -q \
			-z rpc,srt,100003,3 -r "${file[$fmt]}")
		W[tshark.$fmt]+="$w " C[tshark.$fmt]+="$c " R[tshark.$fmt]+="$r "
	done
done
ops=$("$IOTAPE" analyze --json "$CAP" | python3 -c 'import json,sys
print(sum(p["calls"] for p in json.load(sys.stdin)["nfs"]["procedures"] if p["program"] == "NFS"))')
printf 'capture: %s, %d MB, %d NFS ops; load average %s\n' "$CAP" \
	$(($(stat -c %s "$CAP") / 1000000)) "$ops" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-7s %9s %9s %9s   %s\n' format tool "wall s" "CPU s" "RSS MiB" "(medians of $RUNS rounds)"
for fmt in "${formats[@]}"; do
	for tool in iotape base tshark; do
		k=$tool.$fmt
		[ -n "${W[$k]:-}" ] || continue
		# shellcheck disable=SC2086
		printf '%-7s %-7s %9.3f %9.3f %9.1f\n' "$fmt" "$tool" "$(median ${W[$k]})" \
			"$(median ${C[$k]})" "$(echo "$(median ${R[$k]}) / 1024" | bc -l)"
	done
	if [ -n "${W[tshark.$fmt]:-}" ]; then
		# shellcheck disable=SC2086
		printf '%-7s speed-up %.1fx wall, %.1fx CPU (target >= 10x)\n' "$fmt" \
			"$(echo "$(median ${W[tshark.$fmt]}) / $(median ${W[iotape.$fmt]})" | bc -l)" \
			"$(echo "$(median ${C[tshark.$fmt]}) / $(median ${C[iotape.$fmt]})" | bc -l)"
	fi
done
