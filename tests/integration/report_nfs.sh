#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape report with packets: a run directory holding a block trace and net.pcap, and a
# capture on its own. NFS graphs and table present, SVGs well-formed, compare sees NFS SRT.
source "$SRCDIR/tests/integration/lib.bash"

mkdir -p "$TMP/run1" "$TMP/run2"
ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$TMP/run1" -n sdb --ios 3000 --seed 3 --gaps 1 --gap-ms 100 >/dev/null
python3 "$SRCDIR/tests/integration/report_nfsgen.py" "$TMP/run1/net.pcap" 1
python3 "$SRCDIR/tests/integration/report_nfsgen.py" "$TMP/run2/net.pcap" 2

"$IOTAPE" report "$TMP/run1" -o "$TMP/one.html" --svg "$TMP/svg"
for g in nfs-ops nfs-outstanding nfs-srt dev7-0-offset dev7-0-d2c; do
	[ -s "$TMP/svg/$g.svg" ] || fail "no $g graph"
	xmllint --noout "$TMP/svg/$g.svg" || fail "$g.svg is not well-formed"
done
grep -q '<h2>NFS</h2>' "$TMP/one.html" || fail "no NFS section"
for op in GETATTR READ WRITE; do
	grep -q ">v3 $op</text>" "$TMP/svg/nfs-ops.svg" || fail "no $op line in nfs-ops"
	grep -q "<td>$op</td>" "$TMP/one.html" || fail "no $op row in the NFS table"
done

# the clients, files and slowest calls tables and the graph per procedure: the figures of
# analyze --json (the same sink), in the page
for t in "NFS clients by time waited" "NFS files by time waited" "The slowest NFS calls"; do
	grep -q "<h3>$t</h3>" "$TMP/one.html" || fail "no table '$t'"
done
"$IOTAPE" analyze --json "$TMP/run1/net.pcap" >"$TMP/one.json"
python3 - "$TMP/one.json" "$TMP/one.html" "$TMP/svg" <<'PY'
import html, json, os, re, sys
n = json.load(open(sys.argv[1]))["nfs"]
page = html.unescape(open(sys.argv[2]).read())
def rows(title):
    t = page.split("<h3>%s</h3>" % title)[1].split("</table>")[0]
    return [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in t.split("<tr>")[2:]]
slow = rows("The slowest NFS calls")
assert len(slow) == len(n["slowest"]) > 0, (len(slow), len(n["slowest"]))
for r, x in zip(slow, n["slowest"]):
    assert float(r[2]) == round(x["srt_ns"] / 1e6, 3), (r, x["srt_ns"])
    assert r[4] == "0x%08x" % x["xid"] and r[5] == "%s %s" % (x["version"], x["name"]), r
files = rows("NFS files by time waited")
for r, x in zip(files, n["files"]["by_time"]):
    assert r[1].startswith(x["path"]) and int(r[2]) == x["ops"], (r, x["path"])
    assert float(r[7]) == round(x["wait_ns"] / 1e6, 3), (r, x["wait_ns"])
conns = [r for r in rows("NFS clients by time waited") if r[1] == "connection"]
for r, x in zip(conns, n["clients"]["by_connection"]):
    assert int(r[3]) == x["calls"] and float(r[6]) == round(x["wait_ns"] / 1e6, 3), (r, x)
for p in n["timeline_by_procedure"]["procedures"]:
    if "version" in p:
        f = os.path.join(sys.argv[3], "nfs-srt-%s-%s.svg" % (p["version"], p["name"]))
        assert os.path.getsize(f) > 0, f
PY
[ $? = 0 ] || fail "the NFS tables differ from analyze --json"
for f in "$TMP"/svg/nfs-srt-*.svg; do xmllint --noout "$f" || fail "$f is not well-formed"; done

# a run with packets only, beside one with both: shared axes, one colour per run
"$IOTAPE" report "$TMP/run1" "$TMP/run2" -o "$TMP/two.html" --svg "$TMP/svg2"
for f in "$TMP"/svg2/*.svg; do xmllint --noout "$f" || fail "$f is not well-formed"; done
grep -q '>run2 p50</text>' "$TMP/svg2/nfs-srt.svg" || fail "run2 not in the response-time legend"
# a capture file on its own is a run too
"$IOTAPE" report "$TMP/run2/net.pcap" -o "$TMP/pcap.html"
grep -q '<h2>NFS</h2>' "$TMP/pcap.html" || fail "no NFS section for a bare capture"

# a manifest with clock pairs puts the packets on the block trace's clock: the NFS graphs read
# in the trace's seconds, over the capture's own calls (#27 item 5: not squeezed into the
# block trace's axis). The capture starts 0.5 s of trace time after the trace clock's zero.
python3 - "$TMP/run1/manifest.json" <<'PY'
import json, sys
s = 1_700_000_000_000_000_000
json.dump({"format": "iotape-run", "format_version": 1,
           "devices": [{"name": "loop0", "major": 7, "minor": 0}],
           "clock": {"trace_clock": "mono",
                     "start": {"realtime_ns": s - 500_000_000, "trace_ns": 0},
                     "end": {"realtime_ns": s + 9_500_000_000, "trace_ns": 10_000_000_000}}},
          open(sys.argv[1], "w"))
PY
"$IOTAPE" report "$TMP/run1" -o "$TMP/aligned.html" --svg "$TMP/svg3"
grep -q "Times on the block trace's clock" "$TMP/aligned.html" || fail "not aligned"
python3 - "$TMP/svg3/nfs-ops.svg" "$TMP/svg3/dev7-0-mbps.svg" <<'PY'
import re, sys
nfs, blk = open(sys.argv[1]).read(), open(sys.argv[2]).read()
sec = lambda v, u: float(v) * {"s": 1, "ms": 1e-3}[u]
lab = lambda s: [sec(v, u) for v, u in
                 re.findall(r'<text x="[0-9.]+" y="[0-9.]+">([0-9.]+) (m?s)</text>', s)]
n, b = lab(nfs), lab(blk)
# the trace's seconds: the first call is 0.5 s in, the axis begins there, inside the block's
if not (0.45 <= min(n) and max(n) <= max(b) + 1e-9):
    sys.exit(f"NFS axis {n} not over the capture inside the block axis {b}")
PY

# compare: NFS response time per main operation, from the run directories
"$IOTAPE" compare "$TMP/run1" "$TMP/run2" --label run1 --label run2 --format csv >"$TMP/c.csv"
for op in GETATTR READ WRITE; do
	grep -q "^nfs3.$op,ms,run1,1," "$TMP/c.csv" || fail "no nfs3.$op for run1: $(cat "$TMP/c.csv")"
	grep -q "^nfs3.$op,ms,run2,1," "$TMP/c.csv" || fail "no nfs3.$op for run2"
done
# the generator's WRITE replies take 0.45 .. 1.35 ms
python3 - "$TMP/c.csv" <<'PY'
import csv, sys
rows = {(r["metric"], r["group"]): r for r in csv.DictReader(open(sys.argv[1]))}
m = float(rows[("nfs3.WRITE", "run1")]["mean"])
if not 0.45 <= m <= 1.35:
    sys.exit(f"WRITE mean {m} ms outside the generator's range")
PY
echo PASS
