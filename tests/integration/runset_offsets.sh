#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A run set's hosts on one time axis in every graph (issue #30 item 3): the report's NFS graphs
# and tables and the movie's panels put each host's times on the capturing host's clock by the
# offset runset.json measured, as the report's block graphs do. The set is made here from
# idle_gen.py's synthetic runs (realtime = trace time + the same OFFSET in each manifest), so the
# offsets are known, which a capture on one kernel (offset 0 within its error) cannot show:
#   h1  hostA: reads in bursts at 0-1 s and 2-3 s of its trace, offset 0: the axis' 0
#   h2  net: a block trace from 0 s and NFS calls at 2.2 s (replied at 3.9 s: the slowest),
#       2.3 s and 2.5 s on its clock pairs; offset -3 s (its clock 3 s behind): everything 3 s
#       later on the set's axis, the slowest call at 5.2 s
#   h3  net's packets alone (no devices: NFS graphs on the capture's own clock, from its first
#       call); offset +1 s (its clock 1 s ahead): the slowest call at 1.2 s
#   h4  hostA again, offset -1.5 s: the same bursts from 1.5 s (for the movie)
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/lib_runset.bash"

cd "$TMP"
G="$SRCDIR/tests/integration/idle_gen.py"
python3 "$G" hostA hostA
python3 "$G" net net
packets_only net pk
make_runset set h1=hostA h2=net@-3000000000 h3=pk@1000000000

# --- report: the slowest calls' times, and the NFS graphs' points, on the set's axis ---------
"$IOTAPE" report set -o r.html --svg svg 2>r.err || fail "report of the set: $(cat r.err)"
python3 - r.html svg <<'EOF' || fail "report: NFS times are not on the set's axis"
import re, sys
h = open(sys.argv[1]).read()
# the block graphs' starts, as before: h2's block trace 3 s after h1's
t0 = dict(re.findall(r'host ([^ <]+) of the run set: its graphs start <span class="host-t0" '
                     r'data-t0-s="([0-9.]+)"', h))
assert t0.get("h1") == "0.000000000" and t0.get("h2") == "3.000000000", t0
# the slowest calls: run, at (s), SRT (ms), ..., XID
sl = h[h.index("<h3>The slowest NFS calls</h3>"):]
sl = sl[:sl.index("</table>")]
rows = {}
for tr in re.findall(r"<tr>(.*?)</tr>", sl, re.S)[1:]:
    cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
    rows[(cells[0], cells[4])] = float(cells[1])
print("slowest calls:", rows)
for (run, xid), want in {("h2", "0x00000001"): 5.2, ("h2", "0x00000002"): 5.3,
                         ("h3", "0x00000001"): 1.2, ("h3", "0x00000003"): 1.5}.items():
    got = rows[(run, xid)]
    assert abs(got - want) < 1e-6, f"{run} {xid}: at {got} s, want {want}"
EOF
python3 - svg/nfs-outstanding.svg <<'EOF' || fail "report: the NFS graph is not on the set's axis"
import re, sys
svg = open(sys.argv[1]).read()
# the axis: ticks in seconds, the plot's x from them; each host's series of outstanding calls
g = re.search(r'<g fill="#333" text-anchor="middle">(.*?)</g>', svg, re.S).group(1)
ticks = [(float(x), float(v)) for x, v in re.findall(r'<text x="([0-9.]+)"[^>]*>([0-9.]+) s<', g)]
assert len(ticks) >= 2, ticks
(x0, s0), (x1, s1) = ticks[0], ticks[-1]
sec = lambda px: s0 + (px - x0) * (s1 - s0) / (x1 - x0)
lines = re.findall(r'<polyline[^>]*stroke="([^"]+)"[^>]*points="([^"]+)"', svg)
assert len(lines) >= 2, lines
pts = [[tuple(float(v) for v in p.split(",")) for p in ps.split()] for _, ps in lines]
zero = max(y for ps in pts for _, y in ps)  # the bottom of the plot: no call outstanding
spans = sorted((min(sec(x) for x, y in ps if y < zero - 0.5),
                max(sec(x) for x, y in ps if y < zero - 0.5)) for ps in pts)
print("calls outstanding (s):", spans)
# h3's calls 1.2-2.9 s on the axis (its series from its first call replied, 1.3 s), h2's
# 5.2-6.9 s (its series from its block trace's start, 3 s): each over its own calls
(a0, a1), (b0, b1) = spans[0], spans[-1]
assert 1.2 <= a0 <= 1.45 and 2.75 <= a1 <= 3.0, spans
assert 5.1 <= b0 <= 5.35 and 6.75 <= b1 <= 7.0, spans
EOF

# --- movie: h4's panel starts 1.5 s into the movie ---------------------------------------------
if command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null; then
	make_runset mset h1=hostA h4=hostA@-1500000000
	"$IOTAPE" movie mset -o m.mp4 --fps 10 --speed 1 --window 500ms --size 640x360 -q \
		2>m.err || fail "movie of the set: $(cat m.err)"
	movie_h1_h4 m.mp4
else
	[ -z "${IOTAPE_NO_SKIP:-}" ] || fail "ffmpeg is missing: the movie of a run set is not checked"
	echo "no ffmpeg: the movie of a run set is not checked" >&2
fi

echo ok
