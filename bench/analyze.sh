#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: `iotape analyze` against `blkparse` and `blkparse -d` + `btt` on the same trace,
# at two trace lengths, medians of RUNS runs, with peak RSS. Not a test: machines are noisy.
#   bench/analyze.sh [EVENTS_MILLIONS...]   (default: 1 5)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 5)
scripts/build.sh release >/dev/null
IOTAPE=$PWD/build/iotape
BLKGEN=$PWD/build/tests/blkgen
out=${BENCH_DIR:-/tmp/iotape-bench-analyze}
mkdir -p "$out"
. "$PWD/bench/lib.bash"
cd "$out" # btt writes its .dat files into the current directory


printf '%-9s %-10s %10s %10s %10s\n' events tool seconds rss_MiB "ratio"
for m in "${sizes[@]}"; do
	t="$out/t$m"
	ios=$((m * 1000000 / 6))
	if [ ! -f "$t/trace.blktrace.0" ]; then
		mkdir -p "$t"
		"$BLKGEN" -o "$t" --ios "$ios" --gaps 20 --seed 7 --merge-pct 10
	fi
	events=$("$IOTAPE" analyze --json "$t/trace" 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["input"]["events"])' 2>/dev/null || echo "?")
	read -r s_io r_io < <(median "$IOTAPE" analyze "$t/trace")
	read -r s_io_json _ < <(median "$IOTAPE" analyze --json "$t/trace")
	read -r s_bp r_bp < <(median blkparse -q -i "$t/trace" -o /dev/null)
	# btt needs a merged binary dump first; time both steps, as a user must run both
	read -r s_d r_d < <(median blkparse -q -i "$t/trace" -d "$t/dump.bin" -o /dev/null)
	read -r s_btt r_btt < <(median btt -i "$t/dump.bin")
	rm -f "$t/dump.bin" ./*.dat 2>/dev/null || true
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }'; }
	mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
	printf '%-9s %-10s %10s %10s %10s\n' "$events" iotape "$s_io" "$(mib "$r_io")" "1.0x"
	printf '%-9s %-10s %10s %10s %10s\n' "" "iotape-json" "$s_io_json" "" ""
	printf '%-9s %-10s %10s %10s %10s\n' "" blkparse "$s_bp" "$(mib "$r_bp")" "$(ratio "$s_bp" "$s_io")"
	btt_total=$(awk -v a="$s_d" -v b="$s_btt" 'BEGIN { print a + b }')
	btt_rss=$((r_d > r_btt ? r_d : r_btt))
	printf '%-9s %-10s %10s %10s %10s\n' "" "blkparse-d+btt" "$btt_total" "$(mib "$btt_rss")" "$(ratio "$btt_total" "$s_io")"
done
echo "(medians of $RUNS runs; ratio = other tool's time / iotape's time; traces from blkgen, synthetic)"
