#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The movie of a run set in which one host captured packets only (issue #30): the movie draws
# block IO and has no packet panel, so that host is left out with a one-line note and the
# others are drawn as they would be without it, on the set's clock. A set of packets alone is
# refused. The set is made from idle_gen.py's synthetic runs, as runset_offsets.sh makes its:
#   h1  hostA: reads in bursts at 0-1 s and 2-3 s of its trace, offset 0
#   h3  net's packets alone (no devices), offset +1 s
#   h4  hostA again, offset -1.5 s: the same bursts from 1.5 s
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/lib_runset.bash"
need_cmd ffmpeg
need_cmd ffprobe

cd "$TMP"
G="$SRCDIR/tests/integration/idle_gen.py"
python3 "$G" hostA hostA
python3 "$G" net net
packets_only net pk
make_runset set h1=hostA h3=pk@1000000000 h4=hostA@-1500000000

# --- the movie: h1 and h4, h3 left out with a note ---------------------------------------------
"$IOTAPE" movie set -o m.mp4 --fps 10 --speed 1 --window 500ms --size 640x360 -q \
	2>m.err || fail "movie of a set with a packets-only host: $(cat m.err)"
cat m.err >&2
grep -q "host h3: packets only" m.err || fail "no note that h3 is left out: $(cat m.err)"
expect_eq "lines on stderr" "$(wc -l <m.err)" 1
# two panels, as for h1 and h4 alone (runset_offsets.sh's movie)
movie_h1_h4 m.mp4

# --- a set of packets alone: nothing to draw, refused (usage), no file -------------------------
make_runset pset h3=pk
rc=0
"$IOTAPE" movie pset -o p.mp4 -q 2>p.err || rc=$?
expect_eq "movie of packets alone: exit status" "$rc" 2
grep -q "no host with a block trace" p.err || fail "packets alone: $(cat p.err)"
[ ! -e p.mp4 ] || fail "packets alone: p.mp4 written"

echo ok
