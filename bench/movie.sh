#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: `iotape movie` against iowatcher's movie mode (`iowatcher -t TRACE --movie -o
# x.mp4`, Debian's blktrace package) on the 5 M-event trace of bench/analyze.sh: wall time, CPU
# time (user + system, children included: iotape runs ffmpeg, iowatcher runs blkparse,
# rsvg-convert per frame and ffmpeg), and peak RSS of the program's own process and of its
# largest child (bench/peaks.py; both encode through an ffmpeg process). iotape makes the 20 s
# 720p movie of the issue and the movie iowatcher makes (750 frames of 1216x714 at 20 fps,
# which iowatcher does not let one change). Medians of RUNS interleaved rounds (default 1:
# iowatcher takes half an hour a round; IOWATCHER=skip times iotape alone). Not a test:
# machines are noisy.
#   bench/movie.sh [EVENTS_MILLIONS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-1}
m=${1:-5}
scripts/build.sh release >/dev/null
IOTAPE=$PWD/build/iotape
PEAKS=$PWD/bench/peaks.py
BLKGEN=$PWD/build/tests/blkgen
out=${BENCH_DIR:-/tmp/iotape-bench-movie}
mkdir -p "$out"
. "$PWD/bench/lib.bash"
IOWATCHER=${IOWATCHER:-run}
if [ "$IOWATCHER" != skip ] &&
	! { command -v iowatcher >/dev/null && command -v rsvg-convert >/dev/null; }; then
	echo "bench: needs iowatcher (blktrace) and rsvg-convert (librsvg2-bin)" >&2
	exit 1
fi

# $t is a run directory (its manifest gives the movie its axes: one pass), $t/trace the bare
# per-CPU set (no manifest: a first pass for the axes, then the pass that draws)
t="$out/t$m"
if [ ! -f "$t/trace.blktrace.0" ] || [ ! -f "$t/manifest.json" ]; then
	mkdir -p "$t"
	"$BLKGEN" -o "$t" --ios $((m * 1000000 / 6)) --gaps 20 --seed 7 --merge-pct 10 --manifest
fi
# iowatcher writes its blkparse dump and frames beside the trace: a directory of its own
mkdir -p "$out/iow"
ln -sf "$t"/trace.blktrace.* "$out/iow/"

# run CMD...: "wall_s cpu_s top_kib child_kib" of one run (stop the script if CMD fails)
run() {
	python3 "$PEAKS" "$out/stdout" "$out/stderr" "$@" || {
		echo "bench: '$*' failed:" >&2
		tail -5 "$out/stderr" >&2
		exit 1
	}
}
frames() { ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }

events=$("$IOTAPE" analyze --json "$t/trace" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["input"]["events"])')
declare -A wall cpu top kid
# keep KEY W C T K: times of a round; peaks the largest of the rounds
keep() {
	wall[$1]+="$2 " cpu[$1]+="$3 "
	top[$1]=$(($4 > ${top[$1]:-0} ? $4 : ${top[$1]:-0}))
	kid[$1]=$(($5 > ${kid[$1]:-0} ? $5 : ${kid[$1]:-0}))
}
for _ in $(seq "$RUNS"); do
	r=$(run "$IOTAPE" movie "$t/trace" -o "$out/a.mp4" -q) || exit 1
	keep a $r
	r=$(run "$IOTAPE" movie "$t" -o "$out/r.mp4" -q) || exit 1
	keep r $r
	r=$(run "$IOTAPE" movie "$t/trace" -o "$out/b.mp4" -q --length 37.5s --fps 20 \
		--size 1216x714) || exit 1
	keep b $r
	[ "$IOWATCHER" = skip ] && continue
	# (its output name must be relative: it names the frames after it)
	r=$(cd "$out/iow" && run iowatcher -t trace --movie -o w.mp4) || exit 1
	keep w $r
	rm -f "$out"/iow/trace.dump
done
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
line() { # NAME KEY MOVIE
	local w c ratio=-
	w=$(med ${wall[$2]})
	c=$(med ${cpu[$2]})
	[ -z "${cpu[w]:-}" ] ||
		ratio=$(awk -v a="$(med ${cpu[w]})" -v b="$c" 'BEGIN { printf "%.1fx", a / b }')
	printf '%-38s %6s %8s %8s %8s %9s %8s %10s\n' "$1" "$(frames "$3")" "$w" "$c" \
		"$(mib "${top[$2]}")" "$(mib "${kid[$2]}")" "$(mib $((top[$2] + kid[$2])))" "$ratio"
}
echo "trace: $events events (blkgen, synthetic), $(nproc) CPUs"
printf '%-38s %6s %8s %8s %8s %9s %8s %10s\n' tool frames wall_s cpu_s rss_MiB child_MiB \
	sum_MiB "iowatcher/x"
line "iotape movie (20 s, 1280x720, 30)" a "$out/a.mp4"
line "  the same of the run directory" r "$out/r.mp4"
line "iotape movie (37.5 s, 1216x714, 20)" b "$out/b.mp4"
[ "$IOWATCHER" = skip ] || line "iowatcher --movie (37.5 s, 1216x714)" w "$out/iow/w.mp4"
echo "(medians of $RUNS interleaved rounds; rss: the program's own process, child: its largest"
echo " child (ffmpeg), sum: both; iowatcher/x: iowatcher's CPU time / this one's; the bare"
echo " set is read twice (the axes first), the run directory once: its manifest gives the axes)"
