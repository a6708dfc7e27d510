#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The report of a sweep whose cells are run sets (sweep --host, issue #30): each metric's table
# has a line per host (h1, h2, in the set's order) and a column per cell, and every figure in it
# is `iotape analyze --json` of that cell's set for that host, formatted as the report does (an
# empty cell where analyze has none); the wall time is the run's result.json. The sweep is made
# as one_answer.sh makes its (no capture, no root): a sweep of runs that captured nothing, each
# run given a set of idle_gen.py's synthetic runs and the sweep made one that captured on h1, h2.
# sweep_hosts.sh captures such a sweep on two network namespaces.
#   n=1  h1 hostA, h2 hostB: block traces, each device busy in the other's gaps
#   n=2  h1 hostA, h2 net: a block trace with packets and NFS calls
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/lib_runset.bash"
cd "$TMP"

for h in hostA hostB net; do python3 "$SRCDIR/tests/integration/idle_gen.py" $h $h; done
"$IOTAPE" sweep -o sw --no-capture -p n=1,2 -- true 2>/dev/null || fail "sweep"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["capture"]=True
d["hosts"]=["h1", "h2"]; json.dump(d, open(sys.argv[1], "w"))' sw/sweep.json
make_runset "sw/n=1/rep-1/set" h1=hostA h2=hostB
make_runset "sw/n=2/rep-1/set" h1=hostA h2=net

"$IOTAPE" report sw -o sw.html 2>r.err || fail "report of a sweep of run sets: $(cat r.err)"
for n in 1 2; do
	"$IOTAPE" analyze --json "sw/n=$n/rep-1/set" >"a$n.json" || fail "analyze of cell n=$n"
done
python3 - sw.html a1.json a2.json <<'EOF' || fail "report of a sweep of run sets: not analyze's"
import html, json, re, sys

MIB = 1048576.0
page = open(sys.argv[1]).read()
A = {"1": json.load(open(sys.argv[2])), "2": json.load(open(sys.argv[3]))}
fails = []


def d2c(d, key):
    lat = d["latency_ns"].get("d2c_request") or {"count": 0}
    if not lat["count"]:
        lat = d["latency_ns"]["d2c"]
    return lat[key] / 1e3 if lat["count"] else None


def longest(d):
    return max((g["duration_ns"] for g in d["idle"]["longest"]), default=0) / 1e6


def other_busy(d):
    ex = d["idle"].get("explain") or {}
    b = [o["busy_pct"] for o in ex.get("devices", []) if "busy_pct" in o]
    return max(b) if ex.get("gaps_ns") and b else None


def nfs_work(d):
    ex = d["idle"].get("explain") or {}
    nfs = ex.get("nfs") or []
    return nfs[0].get("idle_with_work_pct") if ex.get("gaps_ns") and nfs else None


# a block figure: (decimals, from the host's device)
BLOCK = {"MiB/s": (2, lambda d: d["throughput"]["mbps"] * 1e6 / MIB),
         "IOPS": (1, lambda d: d["throughput"]["iops"]),
         "D2C p50 (us)": (1, lambda d: d2c(d, "p50")),
         "D2C p99 (us)": (1, lambda d: d2c(d, "p99")),
         "idle (%)": (1, lambda d: d["idle"]["pct"]),
         "longest gap (ms)": (2, longest),
         "seeks/s": (1, lambda d: d["seeks"]["per_sec"]),
         "sequential (%)": (1, lambda d: d["seeks"]["sequential_pct"]),
         "other device busy while idle (%)": (1, other_busy),
         "idle with NFS calls outstanding (%)": (1, nfs_work)}


def want(title, n, host):
    doc = A[n]
    if title == "wall time (s)":
        r = json.load(open("sw/n=%s/rep-1/result.json" % n))
        return 3, r["wall_ns"] / 1e9
    m = re.fullmatch(r"NFSv(\d) (\w+) \(ms\)", title)
    if m:
        h = [x for x in doc["hosts"] if x["host"] == host][0]
        for p in h.get("nfs", {}).get("procedures", []):
            if str(p["version"]) == m[1] and p["name"] == m[2] and p["calls"] and p.get("srt_ns"):
                return 3, p["srt_ns"]["mean"] / 1e6
        return 3, None
    if title not in BLOCK:
        fails.append(f"a table the test does not know: {title!r}")
        return 0, None
    devs = [d for d in doc["devices"] if d.get("host") == host]
    if len(devs) != 1:
        fails.append(f"n={n} {host}: {len(devs)} devices in analyze's set")
        return 0, None
    dec, f = BLOCK[title]
    return dec, f(devs[0])


tables = re.findall(r"<h4>(.*?)</h4>\s*<table class=\"cmp\">(.*?)</table>", page, re.S)
titles = [html.unescape(t) for t, _ in tables]
for need in list(BLOCK) + ["wall time (s)", "NFSv3 GETATTR (ms)"]:
    if need not in titles:
        fails.append(f"no table {need!r} (the report's: {titles})")
checked = 0
for title, body in tables:
    title = html.unescape(title)
    head = [html.unescape(c) for c in re.findall(r"<th>(.*?)</th>", body)]
    if head != ["host \\ n", "1", "2"]:
        fails.append(f"{title}: columns {head}")
        continue
    rows = [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
             for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            for tr in re.findall(r"<tr>(.*?)</tr>", body, re.S)]
    rows = [r for r in rows if r]  # the head's line has no <td>
    if [r[0] for r in rows] != ["h1", "h2"]:
        fails.append(f"{title}: lines {[r[0] for r in rows]}, want a line per host h1, h2")
        continue
    for r in rows:
        for n, cellv in zip(("1", "2"), r[1:]):
            dec, w = want(title, n, r[0])
            got = cellv.split(" ")[0] if cellv else ""
            exp = "" if w is None else "%.*f" % (dec, w)
            if got != exp:
                fails.append(f"{title}, {r[0]}, n={n}: report {cellv!r}, analyze {exp!r}")
            checked += exp != ""
print(f"{checked} figures of {len(tables)} tables are analyze's")
if checked < 40:
    fails.append(f"only {checked} figures checked")
for f in fails:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if fails else 0)
EOF
echo ok
