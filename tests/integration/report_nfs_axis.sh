#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The report's NFS graphs are drawn over their capture's own time (issue #27 item 5): in
# idle_gen.py's "net" run (synthetic: a block trace of 8.7 s, NFS calls only between 2.1 and
# 4 s, on the block trace's clock through the manifest's clock pairs) the NFS graphs' time
# axis covers the calls, not the whole block trace, and still reads in the trace's seconds.
source "$SRCDIR/tests/integration/lib.bash"

cd "$TMP"
python3 "$SRCDIR/tests/integration/idle_gen.py" net net
"$IOTAPE" analyze --json net >net.json || fail "analyze"
"$IOTAPE" report net -o net.html --svg svg || fail "report"
python3 - net.json svg <<'PY' || fail "NFS time axis"
import glob, json, re, sys
d = json.load(open(sys.argv[1]))
UNIT = {"s": 1.0, "ms": 1e-3, "us": 1e-6}
files = sorted(glob.glob(sys.argv[2] + "/nfs-*.svg"))
assert files, "no NFS graphs"
for f in files:
    svg = open(f).read()
    g = re.search(r'<g fill="#333" text-anchor="middle">(.*?)</g>', svg, re.S).group(1)
    ticks = [float(v) * UNIT[u] for v, u in re.findall(r">([0-9.]+) (s|ms|us)<", g)]
    assert ticks, f"{f}: no time ticks"
    # the calls lie in 2.1 .. 4 s of the trace: the axis is theirs, give or take a tick
    assert min(ticks) >= 1.5, f"{f}: the axis starts at {min(ticks)} s, before the capture"
    assert max(ticks) <= 4.6, f"{f}: the axis runs to {max(ticks)} s, past the capture"
    xs = [float(x) for x in re.findall(r'points="([0-9.]+),', svg)]
PY
echo PASS
