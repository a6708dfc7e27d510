#!/bin/bash
# SPDX-License-Identifier: MIT
# NFS analysis speed: iotape analyze vs tshark -z rpc,srt on a real capture of libnfs traffic
# against nfs-ganesha (NFSv3, >= 20 k operations, a few hundred MB). Not a test. Needs root,
# ganesha, rpcbind, tcpdump, tshark. Usage: bench/nfs.sh [CAPTURE]  (reuses CAPTURE if given
# and present; else makes one in a temporary directory and keeps it when KEEP=PATH is set).
# Env: BUILD_DIR (default build-nfs), RUNS (default 3), FILES, FILE_BYTES, IO_BYTES, META;
# CAPTURE_BUFFER_KIB (tcpdump -B, default 1 GiB here: a smaller buffer drops packets).
set -euo pipefail
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SRCDIR/build-nfs}
export SRCDIR IOTAPE=$BUILD_DIR/iotape TOOLS=$BUILD_DIR/tests
RUNS=${RUNS:-3}
[ -x "$IOTAPE" ] || { echo "build first: cmake --build $BUILD_DIR" >&2; exit 2; }
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

# run_timed OUT CMD...: wall seconds and peak RSS (KiB) of one run into the arrays
# timed CMD...: "wall-seconds cpu-seconds peak-RSS-KiB" of one run
declare -a T_IOT T_TSH R_IOT R_TSH C_IOT C_TSH
timed() {
	local log=$TMP/time.log s e
	s=$(date +%s.%N)
	/usr/bin/time -v -o "$log" "$@" >/dev/null 2>&1
	e=$(date +%s.%N)
	echo "$(echo "$e - $s" | bc -l)" \
		"$(awk -F': ' '/User time|System time/ {t += $2} END {print t}' "$log")" \
		"$(awk '/Maximum resident/ {print $6}' "$log")"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

cat "$CAP" >/dev/null # page cache warm for both
for ((i = 0; i < RUNS; i++)); do
	read -r t c r < <(timed "$IOTAPE" analyze --json "$CAP")
	T_IOT+=("$t")
	C_IOT+=("$c")
	R_IOT+=("$r")
	read -r t c r < <(timed tshark -o tcp.try_heuristic_first:TRUE -q -z rpc,srt,100003,3 -r "$CAP")
	T_TSH+=("$t")
	C_TSH+=("$c")
	R_TSH+=("$r")
done
ops=$("$IOTAPE" analyze --json "$CAP" |
	python3 -c 'import json,sys; print(sum(p["calls"] for p in json.load(sys.stdin)["nfs"]["procedures"] if p["program"]=="NFS"))')
ti=$(median "${T_IOT[@]}")
tt=$(median "${T_TSH[@]}")
ci=$(median "${C_IOT[@]}")
ct=$(median "${C_TSH[@]}")
ri=$(median "${R_IOT[@]}")
rt=$(median "${R_TSH[@]}")
printf 'capture: %s, %d MB, %d NFS ops\n' "$CAP" $(($(stat -c %s "$CAP") / 1000000)) "$ops"
printf '%-8s %10s %12s %14s   (medians of %d runs)\n' tool "wall s" "CPU s" "peak RSS MiB" "$RUNS"
printf '%-8s %10.3f %12.3f %14.1f\n' iotape "$ti" "$ci" "$(echo "$ri / 1024" | bc -l)"
printf '%-8s %10.3f %12.3f %14.1f\n' tshark "$tt" "$ct" "$(echo "$rt / 1024" | bc -l)"
printf 'speed-up %.1fx wall, %.1fx CPU; RSS ratio %.3f (targets: >= 10x, iotape <= 64 MiB)\n' \
	"$(echo "$tt / $ti" | bc -l)" "$(echo "$ct / $ci" | bc -l)" "$(echo "$ri / $rt" | bc -l)"
