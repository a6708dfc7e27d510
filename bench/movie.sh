#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: `iotape movie` against iowatcher's movie mode (`iowatcher -t TRACE --movie -o
# x.mp4`, Debian's blktrace package) on the 5 M-event trace of bench/analyze.sh: wall time, CPU
# time (user + system, children included: iowatcher runs blkparse, rsvg-convert per frame and
# ffmpeg) and peak RSS of the largest process. iotape makes the 20 s 720p movie of the issue
# and the movie iowatcher makes (750 frames of 1216x714 at 20 fps, which iowatcher does not
# let one change). Medians of RUNS interleaved rounds (default 1: iowatcher takes half an
# hour a round). Not a test: machines are noisy.
#   bench/movie.sh [EVENTS_MILLIONS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-1}
m=${1:-5}
scripts/build.sh release >/dev/null
IOTAPE=$PWD/build/iotape
BLKGEN=$PWD/build/tests/blkgen
out=${BENCH_DIR:-/tmp/iotape-bench-movie}
mkdir -p "$out"
. "$PWD/bench/lib.bash"
command -v iowatcher >/dev/null && command -v rsvg-convert >/dev/null ||
	{ echo "bench: needs iowatcher (blktrace) and rsvg-convert (librsvg2-bin)" >&2; exit 1; }

t="$out/t$m"
if [ ! -f "$t/trace.blktrace.0" ]; then
	mkdir -p "$t"
	"$BLKGEN" -o "$t" --ios $((m * 1000000 / 6)) --gaps 20 --seed 7 --merge-pct 10
fi
# iowatcher writes its blkparse dump and frames beside the trace: a directory of its own
mkdir -p "$out/iow"
ln -sf "$t"/trace.blktrace.* "$out/iow/"

# run CMD...: "wall_s cpu_s maxrss_kib" of one run (stop the script if CMD fails)
run() {
	local t0 t1
	t0=$EPOCHREALTIME
	/usr/bin/time -f "%U %S %M" -o "$out/time" "$@" >"$out/stdout" 2>"$out/stderr" || {
		echo "bench: '$*' failed:" >&2
		tail -5 "$out/stderr" >&2
		exit 1
	}
	t1=$EPOCHREALTIME
	read -r u s k <"$out/time"
	awk -v a="$t0" -v b="$t1" -v u="$u" -v s="$s" -v k="$k" \
		'BEGIN { printf "%.2f %.2f %d\n", b - a, u + s, k }'
}
frames() { ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }

events=$("$IOTAPE" analyze --json "$t/trace" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["input"]["events"])')
declare -A wall cpu rss
for _ in $(seq "$RUNS"); do
	read -r w c r < <(run "$IOTAPE" movie "$t/trace" -o "$out/a.mp4" -q)
	wall[a]+="$w " cpu[a]+="$c " rss[a]=$((r > ${rss[a]:-0} ? r : ${rss[a]:-0}))
	read -r w c r < <(run "$IOTAPE" movie "$t/trace" -o "$out/b.mp4" -q --length 37.5s \
		--fps 20 --size 1216x714)
	wall[b]+="$w " cpu[b]+="$c " rss[b]=$((r > ${rss[b]:-0} ? r : ${rss[b]:-0}))
	# (its output name must be relative: it names the frames after it)
	read -r w c r < <(cd "$out/iow" && run iowatcher -t trace --movie -o w.mp4)
	wall[w]+="$w " cpu[w]+="$c " rss[w]=$((r > ${rss[w]:-0} ? r : ${rss[w]:-0}))
	rm -f "$out"/iow/trace.dump
done
line() { # NAME KEY MOVIE
	local w c
	w=$(med ${wall[$2]})
	c=$(med ${cpu[$2]})
	printf '%-34s %7s %9s %9s %9s %10s\n' "$1" "$(frames "$3")" "$w" "$c" \
		"$(awk -v k="${rss[$2]}" 'BEGIN { printf "%.0f", k / 1024 }')" \
		"$(awk -v a="$(med ${wall[w]})" -v b="$w" 'BEGIN { printf "%.1fx", a / b }')"
}
echo "trace: $events events (blkgen, synthetic), $(nproc) CPUs"
printf '%-34s %7s %9s %9s %9s %10s\n' tool frames wall_s cpu_s rss_MiB "iowatcher/x"
line "iotape movie (20 s, 1280x720, 30)" a "$out/a.mp4"
line "iotape movie (37.5 s, 1216x714, 20)" b "$out/b.mp4"
line "iowatcher --movie (37.5 s, 1216x714)" w "$out/iow/w.mp4"
echo "(medians of $RUNS interleaved rounds; iowatcher/x: iowatcher's wall time / this one's)"
