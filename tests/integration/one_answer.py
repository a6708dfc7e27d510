#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# One run, one answer (issue #24 item 2): called by one_answer.sh with one run's outputs.
#   one_answer.py ANALYZE.json COMPARE-RUN.json COMPARE-DOC.json REPORT.html TOP
# ANALYZE.json is `iotape analyze --json [--top TOP]` of the run, COMPARE-RUN.json `iotape
# compare --format json` of the run (analyzed by compare), COMPARE-DOC.json the same of
# ANALYZE.json (compare reading analyze's figures), REPORT.html `iotape report` of the run.
# Report and compare have no --top: they list the default 10, analyze TOP.
# - compare gives every metric of the run the value it gives for analyze's document;
# - the report's rankings (NFS clients, files, slowest calls) are analyze's, in its order:
#   the whole list when TOP is the default, else analyze's TOP entries begin the report's;
# - each gap the report explains ("Why was it idle") has analyze's explanation.
import html
import json
import re
import sys

A = json.load(open(sys.argv[1]))
CR = json.load(open(sys.argv[2]))
CD = json.load(open(sys.argv[3]))
H = open(sys.argv[4]).read()
top = int(sys.argv[5])
DEFAULT_TOP = 10
fails = []


def check(what, got, want):
    if got != want:
        fails.append(f"{what}: got {got!r}, want {want!r}")


def rows_after(title):
    """The rows (lists of cell texts) of the first table after the heading that begins with
    title, or None when the report has no such heading."""
    i = H.find("<h3>" + title)
    if i < 0:
        return None
    t = H[i:H.index("</table>", i)]
    out = []
    for tr in re.findall(r"<tr>(.*?)</tr>", t, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        if cells:
            out.append([html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells])
    return out


def ranking(what, report, analyze):
    """report and analyze: the same ranking as lists of keys."""
    if not analyze:
        fails.append(what + ": analyze lists none, nothing is checked")
    if top >= DEFAULT_TOP:
        check(what, report, analyze)
    else:
        check(what + " (analyze's --top %d first)" % top, report[:len(analyze)], analyze)
        check(what + " entries", len(analyze), min(top, len(report)))


# ---- compare: the run analyzed by compare, and analyze's document read by compare
def metrics(c):
    return {m["key"]: [r.get("mean") for r in m["rows"]] for m in c["metrics"]}


mr, md = metrics(CR), metrics(CD)
check("compare's metrics", sorted(mr), sorted(md))
for k in sorted(set(mr) & set(md)):
    a, b = mr[k], md[k]
    if len(a) != len(b) or any(
            (x is None) != (y is None) or (x is not None and abs(x - y) > 1e-9 * max(1, abs(y)))
            for x, y in zip(a, b)):
        fails.append(f"compare {k}: the run gives {a}, analyze's document {b}")

# ---- the NFS rankings
nfs = A.get("nfs")
if nfs:
    ms = lambda ns: "%.3f" % (ns / 1e6)
    rows = rows_after("NFS clients by time waited") or []
    for kind, key in (("connection", "by_connection"), ("user", "by_uid"),
                      ("machine", "by_machine")):
        ranking("NFS clients by %s" % kind,
                [(r[3], r[6]) for r in rows if r[1] == kind],
                [(str(c["calls"]), ms(c["wait_ns"])) for c in nfs["clients"][key]])
    rows = rows_after("NFS files by time waited") or []
    ranking("NFS files by time", [(r[1], r[7]) for r in rows],
            [(f["path"] + (" (removed)" if f.get("name_state") == "removed" else ""),
              ms(f["wait_ns"])) for f in nfs["files"]["by_time"]])
    rows = rows_after("The slowest NFS calls") or []
    ranking("NFS slowest calls", [r[4] for r in rows], ["0x%08x" % s["xid"] for s in nfs["slowest"]])

# ---- each explained gap: analyze's explanation (the report's gap tables: duration, because)
gaps = {}
for i in [m.start() for m in re.finditer(r"<h3>Why was it idle", H)]:
    t = H[i:H.index("</table>", H.index("</table>", i) + 1)]
    for tr in re.findall(r"<tr>(.*?)</tr>", t, re.S):
        c = [html.unescape(re.sub(r"<[^>]+>", "", x)).strip()
             for x in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
        if len(c) >= 7 and re.fullmatch(r"[0-9.]+", c[1]):
            gaps.setdefault(c[1], []).append(c[-1])
explained = 0
for d in A.get("devices", []):
    for g in d["idle"]["longest"]:
        ex = g.get("explain")
        if not ex:
            continue
        explained += 1
        dur = "%.3f" % (g["duration_ns"] / 1e6)
        want = ex["cause"] + ": " + ex["because"]
        if want not in gaps.get(dur, []):
            fails.append(f"gap of {dur} ms: the report says {gaps.get(dur)}, analyze {want!r}")
if top >= DEFAULT_TOP:
    check("explained gaps", sum(len(v) for v in gaps.values()), explained)
if A.get("devices") and not explained:
    fails.append("no gap explained: nothing was checked")

for f in fails:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if fails else 0)
