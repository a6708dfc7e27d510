#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: `iotape analyze` against `blkparse` and `blkparse -d` + `btt` on the same trace,
# at two trace lengths, medians of RUNS interleaved rounds, with peak RSS. Not a test:
# machines are noisy.
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
	# rounds interleave the tools, so that a machine whose speed drifts over minutes (a VM)
	# slows them alike; the ratios are of the medians, and the range of per-round ratios
	# against blkparse is shown too
	io=() js=() bp=() bt=() per=()
	r_io=0 r_bp=0 r_btt=0
	for _ in $(seq "$RUNS"); do
		read -r s r < <(timed "$IOTAPE" analyze "$t/trace")
		io+=("$s")
		r_io=$((r > r_io ? r : r_io))
		read -r s _ < <(timed "$IOTAPE" analyze --json "$t/trace")
		js+=("$s")
		read -r s r < <(timed blkparse -q -i "$t/trace" -o /dev/null)
		bp+=("$s")
		r_bp=$((r > r_bp ? r : r_bp))
		per+=("$(awk -v a="$s" -v b="${io[-1]}" 'BEGIN { printf "%.1f", a / b }')")
		# btt needs a merged binary dump first; time both steps, as a user must run both
		read -r s1 r1 < <(timed blkparse -q -i "$t/trace" -d "$t/dump.bin" -o /dev/null)
		read -r s2 r2 < <(timed btt -i "$t/dump.bin")
		bt+=("$(awk -v a="$s1" -v b="$s2" 'BEGIN { print a + b }')")
		r_btt=$((r1 > r_btt ? r1 : r_btt))
		r_btt=$((r2 > r_btt ? r2 : r_btt))
		rm -f "$t/dump.bin" ./*.dat 2>/dev/null || true
	done
	s_io=$(med "${io[@]}")
	s_bp=$(med "${bp[@]}")
	btt_total=$(med "${bt[@]}")
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }'; }
	mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
	printf '%-9s %-10s %10s %10s %10s\n' "$events" iotape "$s_io" "$(mib "$r_io")" "1.0x"
	printf '%-9s %-10s %10s %10s %10s\n' "" "iotape-json" "$(med "${js[@]}")" "" ""
	printf '%-9s %-10s %10s %10s %10s   (per round %s..%s)\n' "" blkparse "$s_bp" "$(mib "$r_bp")" \
		"$(ratio "$s_bp" "$s_io")" "$(printf '%s\n' "${per[@]}" | sort -g | head -1)x" \
		"$(printf '%s\n' "${per[@]}" | sort -g | tail -1)x"
	printf '%-9s %-10s %10s %10s %10s\n' "" "blkparse-d+btt" "$btt_total" "$(mib "$r_btt")" "$(ratio "$btt_total" "$s_io")"
done
echo "(medians of $RUNS interleaved rounds; ratio = other tool's time / iotape's time; traces from blkgen, synthetic)"
