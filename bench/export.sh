#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: `iotape export --format blkparse` against `blkparse -i` on the trace bench/analyze.sh
# generates (blkgen, 4.77 M events), the text written to a file and to /dev/null, in
# interleaved rounds, medians and ratios, with a byte comparison of the two texts; then the
# rates of the fio-iolog and CSV exports. Not a test: machines are noisy.
#   bench/export.sh [EVENTS_MILLIONS]   (default: 5; RUNS rounds, default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
m=${1:-5}
scripts/build.sh release >/dev/null
IOTAPE=$PWD/build/iotape
BLKGEN=$PWD/build/tests/blkgen
out=${BENCH_DIR:-/tmp/iotape-bench-export}
mkdir -p "$out"
. "$PWD/bench/lib.bash"
cd "$out"

t="$out/t$m"
if [ ! -f "$t/trace.blktrace.0" ]; then
	mkdir -p "$t"
	# the trace of bench/analyze.sh at this size
	"$BLKGEN" -o "$t" --ios $((m * 1000000 / 6)) --gaps 20 --seed 7 --merge-pct 10 >/dev/null
fi
events=$("$IOTAPE" analyze --json "$t/trace" 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["input"]["events"])')

# the same text, byte for byte, before anything is timed
blkparse -i "$t/trace" >"$out/bp.txt" 2>/dev/null
"$IOTAPE" export "$t/trace" -f blkparse -o "$out/io.txt"
cmp -s "$out/bp.txt" "$out/io.txt" || { echo "bench: the texts differ" >&2; exit 1; }
lines=$(wc -l <"$out/io.txt")
size=$(stat -c %s "$out/io.txt")
rm -f "$out/bp.txt"

io_f=() bp_f=() io_n=() bp_n=() per_f=() per_n=() r_io=0 r_bp=0
for _ in $(seq "$RUNS"); do
	# to a file (what a user does), then to /dev/null (the work without the page cache's)
	read -r s r < <(timed "$IOTAPE" export "$t/trace" -f blkparse -o "$out/io.txt")
	io_f+=("$s")
	r_io=$((r > r_io ? r : r_io))
	read -r s r < <(timed blkparse -i "$t/trace" -o "$out/bp.txt")
	bp_f+=("$s")
	r_bp=$((r > r_bp ? r : r_bp))
	per_f+=("$(awk -v a="$s" -v b="${io_f[-1]}" 'BEGIN { printf "%.1f", a / b }')")
	read -r s _ < <(timed "$IOTAPE" export "$t/trace" -f blkparse -o /dev/null)
	io_n+=("$s")
	read -r s _ < <(timed blkparse -i "$t/trace" -o /dev/null)
	bp_n+=("$s")
	per_n+=("$(awk -v a="$s" -v b="${io_n[-1]}" 'BEGIN { printf "%.1f", a / b }')")
	rm -f "$out/bp.txt" "$out/io.txt"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }'; }
range() { echo "$(printf '%s\n' "$@" | sort -g | head -1)x..$(printf '%s\n' "$@" | sort -g | tail -1)x"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
echo "blkparse text of $events events ($lines lines, $((size / 1000000)) MB), byte-identical:"
printf '  %-28s %10s %10s %10s   %s\n' to tool seconds rss_MiB "ratio (per round)"
printf '  %-28s %10s %10s %10s\n' "a file" iotape "$(med "${io_f[@]}")" "$(mib "$r_io")"
printf '  %-28s %10s %10s %10s %8s   (%s)\n' "" blkparse "$(med "${bp_f[@]}")" "$(mib "$r_bp")" \
	"$(ratio "$(med "${bp_f[@]}")" "$(med "${io_f[@]}")")" "$(range "${per_f[@]}")"
printf '  %-28s %10s %10s\n' "/dev/null" iotape "$(med "${io_n[@]}")"
printf '  %-28s %10s %10s %21s   (%s)\n' "" blkparse "$(med "${bp_n[@]}")" \
	"$(ratio "$(med "${bp_n[@]}")" "$(med "${io_n[@]}")")" "$(range "${per_n[@]}")"

# the other exports' rates
rates() { # NAME CMD...: median seconds and events per second
	local ts=() s
	for _ in $(seq "$RUNS"); do
		read -r s _ < <(timed "${@:2}")
		ts+=("$s")
	done
	s=$(med "${ts[@]}")
	printf '  %-28s %10s s %12s events/s\n' "$1" "$s" \
		"$(awk -v e="$events" -v s="$s" 'BEGIN { printf "%.2fM", e / s / 1e6 }')"
}
echo "other exports of the same trace:"
rm -rf "$out/iolog"
rates "fio-iolog (v3, D events)" "$IOTAPE" export "$t/trace" -f fio-iolog -o "$out/iolog"
ios=$(cat "$out"/iolog/*.iolog | grep -cE ' (read|write|datasync|trim) ')
echo "    ($ios IO lines, $(du -sm "$out/iolog" | cut -f1) MB of iologs)"
rates "csv (a row per event)" "$IOTAPE" export "$t/trace" -f csv -o "$out/ev.csv"
rates "csv --timeline" "$IOTAPE" export "$t/trace" -f csv --timeline -o "$out/tl.csv"
rm -rf "$out/iolog" "$out/ev.csv" "$out/tl.csv"
echo "(medians of $RUNS interleaved rounds; ratio = blkparse's time / iotape's; trace from blkgen, synthetic)"
