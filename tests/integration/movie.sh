#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape movie: what ffprobe says of the files (codec, size, frame count, duration) for several
# options; pixels of decoded frames of a generated trace (inside its idle gap: the idle band and
# no IO; inside each burst: points in the right quarter of the offset axis); two runs, two
# panels; the sample runs; time and sectors near 2^64; memory that does not grow with the
# trace; bad options and inputs; no ffmpeg; an interrupt (ffmpeg ended with it).
source "$SRCDIR/tests/integration/lib.bash"
need_cmd ffprobe
need_cmd ffmpeg

G="$SRCDIR/tests/integration/movie_gen.py"
PIX="$SRCDIR/tests/integration/movie_pixels.py"

run() { # WHAT CMD...: must succeed within 5 minutes (ASan builds are slow)
	local what=$1 rc=0
	shift
	timeout 300 "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" != 124 ] || fail "$what: did not finish in 300 s"
	[ "$rc" = 0 ] || { cat "$TMP/err" >&2; fail "$what: exit $rc"; }
}

# probe FILE: "codec width height frames duration" (frames counted by decoding)
probe() {
	local s f
	s=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries \
		stream=codec_name,width,height,nb_read_frames -of csv=p=0 "$1")
	f=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$1")
	echo "${s//,/ } $(printf '%.2f' "$f")"
}

# frame MOVIE N OUT.rgb: decoded frame N as raw RGB24
frame() {
	ffmpeg -v error -y -i "$1" -vf "select=eq(n\,$2)" -frames:v 1 -f rawvideo -pix_fmt rgb24 "$3"
}

python3 "$G" "$TMP/t"

# --speed: 100 ms of trace a frame; the trace spans 3.998 s, so 40 frames show all of it
run "mp4 at speed 1" "$IOTAPE" movie "$TMP/t" -o "$TMP/t.mp4" --fps 10 --speed 1 \
	--window 500ms --size 640x360 -q
expect_eq "mp4 at speed 1" "$(probe "$TMP/t.mp4")" "h264 640 360 40 4.00"
[ ! -s "$TMP/err" ] || fail "-q still printed: $(cat "$TMP/err")"

# frame k shows the trace up to (k + 1) x 100 ms: k=7 is 0.3-0.8 s (writes, top quarter),
# k=24 is 2.0-2.5 s (inside the gap from 1.0 to 3.0 s), k=37 is 3.3-3.8 s (reads, bottom)
"$TOOLS/movielayout" 640 360 1 >"$TMP/l1.json"
for kc in "7 writes-top" "24 idle" "37 reads-bottom"; do
	set -- $kc
	frame "$TMP/t.mp4" "$1" "$TMP/f$1.rgb"
	python3 "$PIX" "$TMP/f$1.rgb" 640 360 "$TMP/l1.json" 0 "$2" || fail "frame $1: $2"
done

# --length in WebM: VP9, 3 s at 20 frames a second
run "webm by length" "$IOTAPE" movie "$TMP/t" -o "$TMP/t.webm" --length 3s --fps 20 \
	--size 480x270 -q
expect_eq "webm by length" "$(probe "$TMP/t.webm")" "vp9 480 270 60 3.00"

# two runs: two panels, each with its own points and idle gap
run "two runs" "$IOTAPE" movie "$TMP/t" "$TMP/t" --label one --label two -o "$TMP/two.mp4" \
	--fps 10 --speed 1 --window 500ms --size 960x360
"$TOOLS/movielayout" 960 360 1 1 >"$TMP/l2.json"
frame "$TMP/two.mp4" 7 "$TMP/two7.rgb"
frame "$TMP/two.mp4" 24 "$TMP/two24.rgb"
for p in 0 1; do
	python3 "$PIX" "$TMP/two7.rgb" 960 360 "$TMP/l2.json" $p writes-top || fail "panel $p"
	python3 "$PIX" "$TMP/two24.rgb" 960 360 "$TMP/l2.json" $p idle || fail "panel $p"
done
# not on a terminal, a progress line every 10 %: frames done, time spent, the time left
grep -Eq '^iotape: movie: frame 4/40 \(10%\), [0-9]+ s, [0-9]+ s left$' "$TMP/err" ||
	fail "no progress line at 10 %: $(cat "$TMP/err")"
grep -Eq '^iotape: movie: frame 40/40 \(100%\), [0-9]+ s, 0 s left$' "$TMP/err" ||
	fail "no progress line at the end: $(cat "$TMP/err")"
expect_eq "progress lines" "$(grep -c '^iotape: movie: frame' "$TMP/err")" 10

# a run directory whose manifest gives the axes (the trace's first and last event, the sectors
# issued, as capture records them) is read once, while the frames are drawn: its trace file
# may be a pipe. The same axes as the first pass over the bare trace: the same pixels.
mkdir -p "$TMP/rd"
python3 "$G" "$TMP/rd/sdb"
# rundir_manifest LAST_EVENT_NS: the run's manifest, the span from analyze (or LAST); movie_gen
# issues 1002 IOs of 8 sectors in [0, 1,000,000)
rundir_manifest() {
	"$IOTAPE" analyze --json "$TMP/rd/sdb" | python3 -c '
import json, sys
a = json.load(sys.stdin)
last = int(sys.argv[2]) if sys.argv[2] else a["end_ns"]
json.dump({"format": "iotape-run", "format_version": 1, "state": "complete",
           "devices": [{"name": "sdb", "major": 8, "minor": 16, "files": "sdb.blktrace",
                        "events": a["input"]["events"], "first_event_ns": a["start_ns"],
                        "last_event_ns": last,
                        "issued": {"ios": 1002, "lo_sector": 0, "end_sector": 1000000}}]},
          open(sys.argv[1], "w"))' "$TMP/rd/manifest.json" "$1"
}
rundir_manifest ""
mv "$TMP/rd/sdb.blktrace.0" "$TMP/sdb.data"
mkfifo "$TMP/rd/sdb.blktrace.0"
cat "$TMP/sdb.data" >"$TMP/rd/sdb.blktrace.0" &
cleanup_hooks+=("kill $! 2>/dev/null")
run "run directory, one pass" "$IOTAPE" movie "$TMP/rd" -o "$TMP/rd.mp4" --fps 10 --speed 1 \
	--window 500ms --size 640x360 -q
expect_eq "run directory, one pass" "$(probe "$TMP/rd.mp4")" "h264 640 360 40 4.00"
for kc in "7 writes-top" "24 idle" "37 reads-bottom"; do
	set -- $kc
	frame "$TMP/rd.mp4" "$1" "$TMP/rd$1.rgb"
	python3 "$PIX" "$TMP/rd$1.rgb" 640 360 "$TMP/l1.json" 0 "$2" || fail "one pass, frame $1: $2"
done
# a manifest whose span ends early: the movie ends there and says what it left out
rm "$TMP/rd/sdb.blktrace.0"
mv "$TMP/sdb.data" "$TMP/rd/sdb.blktrace.0"
rundir_manifest 2000000000
run "span short of the trace" "$IOTAPE" movie "$TMP/rd" -o "$TMP/short.mp4" --fps 10 \
	--speed 1 --size 640x360
expect_eq "span short of the trace" "$(probe "$TMP/short.mp4" | cut -d' ' -f4)" 21
grep -q "'$TMP/rd': 1500 events after the last event its manifest records were not drawn" \
	"$TMP/err" || fail "span short of the trace said: $(cat "$TMP/err")"

# the defaults on a real sample: 20 s of 1280x720 at 30 fps
run "sample" "$IOTAPE" movie "$SRCDIR/samples/ext4" -o "$TMP/fs.mp4" -q
expect_eq "sample" "$(probe "$TMP/fs.mp4")" "h264 1280 720 600 20.00"

# time and sectors at the ends of the u64 clock and axis
mkdir -p "$TMP/probe" "$TMP/late" "$TMP/wide"
"$TOOLS/blkgen" -o "$TMP/probe" --seed 4 --ios 2000 --gaps 2 --gap-ms 20 \
	--truth "$TMP/probe.json" >/dev/null
start=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"][0]
print(2**64 - 50000 - d["last_ns"])' "$TMP/probe.json")
"$TOOLS/blkgen" -o "$TMP/late" --seed 4 --ios 2000 --gaps 2 --gap-ms 20 --start-ns "$start" \
	>/dev/null
run "near 2^64" "$IOTAPE" movie "$TMP/late" -o "$TMP/late.mp4" --length 2s --fps 10 -q
expect_eq "near 2^64" "$(probe "$TMP/late.mp4" | cut -d' ' -f4)" 20
"$TOOLS/blkgen" -o "$TMP/wide" --ios 2000 --sector-max 0xfffffffffffff000 >/dev/null
run "sectors to 2^64" "$IOTAPE" movie "$TMP/wide" -o "$TMP/wide.webm" --length 2s --fps 10 -q

# streaming: iotape's own peak memory follows the frame and the window, not the trace (a trace
# twice as long adds under 4 MiB; bench/peaks.py tells iotape's peak from its ffmpeg child's);
# sanitizer builds carry shadow memory and quarantine, so the bounds are for normal builds
if ! nm -D "$IOTAPE" 2>/dev/null | grep __asan_init >/dev/null; then
	mkdir -p "$TMP/m1" "$TMP/m2"
	"$TOOLS/blkgen" -o "$TMP/m1" --ios 200000 --seed 5 --gaps 4 >/dev/null
	"$TOOLS/blkgen" -o "$TMP/m2" --ios 400000 --seed 5 --gaps 4 >/dev/null
	for m in m1 m2; do
		python3 "$SRCDIR/bench/peaks.py" "$TMP/out" "$TMP/err" "$IOTAPE" movie "$TMP/$m" \
			-o "$TMP/$m.mp4" --size 320x180 --length 2s --fps 10 -q >"$TMP/$m.peaks" ||
			fail "movie of $m: $(cat "$TMP/err")"
		rm -f "$TMP/$m.mp4"
	done
	read -r _ _ p1 _ <"$TMP/m1.peaks"
	read -r _ _ p2 _ <"$TMP/m2.peaks"
	rm -rf "$TMP/m1" "$TMP/m2"
	[ "$p1" -gt 0 ] && [ "$p2" -le $((64 * 1024)) ] ||
		fail "movie's own peak RSS: $p1 KiB (1.2 M events), $p2 KiB (2.4 M)"
	[ $((p2 - p1)) -le $((4 * 1024)) ] ||
		fail "movie's memory grows with the trace: $p1 KiB at 1.2 M events, $p2 KiB at 2.4 M"
fi

# bad options and inputs: exit 2, a message naming the problem, no file left behind
bad() { # WANT-IN-MESSAGE ARGS...
	local want=$1 rc=0
	shift
	"$IOTAPE" movie "$@" >/dev/null 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "movie $*: exit $rc, want 2 ($(cat "$TMP/err"))"
	grep -q -- "$want" "$TMP/err" || fail "movie $*: no '$want' in: $(cat "$TMP/err")"
}
: >"$TMP/empty"
python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import analyze_oracle as o
o.write_set(sys.argv[2], [], 1)' "$SRCDIR/tests/integration" "$TMP/notify"
bad "is required" "$TMP/t"
bad "name a .mp4 or .webm" "$TMP/t" -o "$TMP/x.avi"
bad "give one of them" "$TMP/t" -o "$TMP/x.mp4" --length 2s --speed 2
bad "even numbers" "$TMP/t" -o "$TMP/x.mp4" --size 641x360
bad "even numbers" "$TMP/t" -o "$TMP/x.mp4" --size 100x100
bad "not WIDTHxHEIGHT" "$TMP/t" -o "$TMP/x.mp4" --size big
bad "give 1 to 240" "$TMP/t" -o "$TMP/x.mp4" --fps 0
bad "above zero" "$TMP/t" -o "$TMP/x.mp4" --speed -1
bad "more than zero" "$TMP/t" -o "$TMP/x.mp4" --window 0
bad "not a duration" "$TMP/t" -o "$TMP/x.mp4" --length soon
bad "more than 100000" "$TMP/t" -o "$TMP/x.mp4" --speed 0.000001
bad "too small" "$TMP/t" "$TMP/t" "$TMP/t" "$TMP/t" "$TMP/t" "$TMP/t" -o "$TMP/x.mp4" \
	--size 320x180
bad "at most 16" $(for _ in $(seq 17); do echo "$TMP/t"; done) -o "$TMP/x.mp4"
bad "reads its input twice" - -o "$TMP/x.mp4"
bad "unknown option" "$TMP/t" -o "$TMP/x.mp4" --frobnicate
bad "no runs" -o "$TMP/x.mp4"
bad "no such file" "$TMP/missing" -o "$TMP/x.mp4"
bad "empty trace file" "$TMP/empty" -o "$TMP/x.mp4"
bad "no block events" "$TMP/notify" -o "$TMP/x.mp4"
bad "No such file" "$TMP/t" -o "$TMP/no/such/dir/x.mp4"
# the frames are encoded by the ffmpeg program: without it, exit 3 saying so before reading
rc=0
PATH=/nonexistent "$IOTAPE" movie "$TMP/t" -o "$TMP/x.mp4" 2>"$TMP/err" || rc=$?
[ "$rc" = 3 ] || fail "movie without ffmpeg: exit $rc, want 3 ($(cat "$TMP/err"))"
grep -q "no 'ffmpeg' program on PATH.*apt install ffmpeg" "$TMP/err" ||
	fail "movie without ffmpeg said: $(cat "$TMP/err")"
[ ! -e "$TMP/x.mp4" ] || fail "a failed movie left $TMP/x.mp4"
ls "$TMP"/x.mp4.tmp* 2>/dev/null && fail "a failed movie left its temporary file"

# an interrupt stops the movie and leaves nothing behind
"$IOTAPE" movie "$TMP/t" -o "$TMP/int.mp4" --speed 0.01 --fps 60 --size 320x180 -q \
	2>"$TMP/err" &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
enc=
for _ in $(seq 600); do # its encoder: the ffmpeg child fed raw frames
	for c in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do
		grep -qa rawvideo "/proc/$c/cmdline" 2>/dev/null && enc=$c
	done
	[ -z "$enc" ] || break
	sleep 0.1
done
[ -n "$enc" ] || fail "no ffmpeg child encoding the movie within 60 s"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 3 ] || fail "interrupted movie: exit $rc, want 3 ($(cat "$TMP/err"))"
grep -q "interrupted" "$TMP/err" || fail "interrupted movie said: $(cat "$TMP/err")"
! kill -0 "$enc" 2>/dev/null || fail "ffmpeg ($enc) outlived the interrupted movie"
[ ! -e "$TMP/int.mp4" ] && ! ls "$TMP"/int.mp4.tmp* 2>/dev/null ||
	fail "an interrupted movie left a file"
echo "movie: ok"
