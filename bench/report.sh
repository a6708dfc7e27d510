#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: `iotape report` (and `iotape compare`) on a generated trace of EVENTS_MILLIONS
# million events: wall time, peak RSS, HTML size, and a headless Chromium load of the page.
# Not a test: machines are noisy.
#   bench/report.sh [EVENTS_MILLIONS...]   (default: 5)
#   BUILD_DIR=build-report bench/report.sh  (use an existing build instead of scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(5)
if [ -z "${BUILD_DIR:-}" ]; then
	scripts/build.sh release >/dev/null
	BUILD_DIR=build
fi
IOTAPE=$PWD/$BUILD_DIR/iotape
BLKGEN=$PWD/$BUILD_DIR/tests/blkgen
out=${BENCH_DIR:-/tmp/iotape-bench-report}
mkdir -p "$out"

. "$PWD/bench/lib.bash"

printf '%-9s %-22s %9s %9s %10s\n' events step seconds rss_MiB html_KiB
for m in "${sizes[@]}"; do
	t="$out/t$m"
	ios=$((m * 1000000 / 6))
	if [ ! -f "$t/trace.blktrace.0" ]; then
		mkdir -p "$t"
		"$BLKGEN" -o "$t" --ios "$ios" --gaps 20 --gap-ms 50 --seed 7 --merge-pct 10 >/dev/null
	fi
	events=$("$IOTAPE" analyze --json "$t" 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["input"]["events"])' 2>/dev/null || echo "?")
	mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
	read -r s_an r_an < <(median "$IOTAPE" analyze --json "$t")
	read -r s_rep r_rep < <(median "$IOTAPE" report "$t" -o "$out/r$m.html")
	html=$(($(stat -c %s "$out/r$m.html") / 1024))
	read -r s_svg _ < <(median "$IOTAPE" report "$t" -o "$out/r$m.html" --svg "$out/svg$m")
	read -r s_cmp r_cmp < <(median "$IOTAPE" compare "$t" "$t")
	printf '%-9s %-22s %9s %9s %10s\n' "$events" "analyze --json" "$s_an" "$(mib "$r_an")" ""
	printf '%-9s %-22s %9s %9s %10s\n' "" "report" "$s_rep" "$(mib "$r_rep")" "$html"
	printf '%-9s %-22s %9s %9s %10s\n' "" "report --svg" "$s_svg" "" ""
	printf '%-9s %-22s %9s %9s %10s\n' "" "compare (2 runs)" "$s_cmp" "$(mib "$r_cmp")" ""
	if command -v chromium >/dev/null; then
		# the page's load time in a headless browser: a screenshot waits for layout and paint
		read -r s_chr _ < <(median timeout 120 chromium --headless --no-sandbox --disable-gpu \
			--disable-quic --no-first-run --disable-background-networking \
			--disable-component-update --disable-sync --user-data-dir="$out/chr" \
			--screenshot="$out/r$m.png" --window-size=1400,2000 "file://$out/r$m.html")
		printf '%-9s %-22s %9s %9s %10s\n' "" "chromium screenshot" "$s_chr" "" ""
	fi
done
echo "(medians of $RUNS runs; traces from blkgen, synthetic; 'analyze --json' for scale)"
