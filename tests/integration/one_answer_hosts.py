#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# One run, one answer for the hosts of a run set or of --hosts (issue #24 item 2): called by
# one_answer.sh.
#   one_answer_hosts.py same HOSTS.json HOST ALONE.json
#     every device of HOST in HOSTS.json (`analyze --json --hosts`, or of a run set) has the
#     figures of ALONE.json's (`analyze --json` of HOST's run alone, the same options): each pass
#     of a run set reads its host's trace as the pass of a run; only the explanations of its
#     gaps may differ (the other hosts explain them too).
#   one_answer_hosts.py split HOSTS.json K OUT.json
#     host K's part of HOSTS.json as a document of its run (its devices, its span on its own
#     clock), for metrics_agree.py to hold the report's row of host K to.
#   one_answer_hosts.py compare SET-COMPARE.json HOST RUN-COMPARE.json
#     `iotape compare --format json` of the run set gives HOST's group every value it gives
#     RUN-COMPARE.json's one group (compare of HOST's part, split above: its gaps explained by
#     every host, idle_other_busy among them); SET-COMPARE.json may be a sweep's whose cell is
#     the set (its wall_s aside).
#   one_answer_hosts.py report HOSTS.json REPORT.html
#     the report of the run set gives each gap of each device (the hosts' in their order) the
#     causes HOSTS.json (`analyze --json` of the set) gives it: the other hosts explain it too.
import html
import json
import re
import sys

D = json.load(open(sys.argv[2]))
fails = []


def strip(dev):
    """dev without what the other hosts change: its host, its gaps' explanations."""
    d = json.loads(json.dumps(dev))
    d.pop("host", None)
    idle = d.get("idle", {})
    idle.pop("explain", None)
    for g in idle.get("longest", []):
        g.pop("explain", None)
    return d


def diff(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                fails.append(f"{path}.{k}: only in {'the hosts' if k in a else 'the run alone'}")
            else:
                diff(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            fails.append(f"{path}: {len(a)} entries with the hosts, {len(b)} alone")
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]")
    elif a != b:
        fails.append(f"{path}: {a!r} with the hosts, {b!r} alone")


if sys.argv[1] == "same":
    host, alone = sys.argv[3], json.load(open(sys.argv[4]))
    mine = [d for d in D["devices"] if d.get("host") == host]
    if not mine:
        fails.append(f"no device of host {host}")
    if len(mine) != len(alone["devices"]):
        fails.append(f"{len(mine)} devices with the hosts, {len(alone['devices'])} alone")
    for a, b in zip(mine, alone["devices"]):
        diff(strip(a), strip(b), f"{host} {a['dev']}")
    if "nfs" in D:
        fails.append("an \"nfs\" object beside the hosts: each host's is in its hosts[] entry")
    h = [x for x in D["hosts"] if x["host"] == host]
    if len(h) != 1:
        fails.append(f"hosts[] has {len(h)} entries for {host}")
    else:
        if alone["devices"] and h[0]["span_ns"] != alone["span_ns"]:
            fails.append(f"{host}: span {h[0]['span_ns']} with the hosts, {alone['span_ns']} alone")
        if "nfs" in h[0] or "nfs" in alone:
            diff(h[0].get("nfs"), alone.get("nfs"), f"{host} nfs")
elif sys.argv[1] == "split":
    k = int(sys.argv[3])
    h = D["hosts"][k]
    out = {key: D[key] for key in ("tool", "version", "command", "options", "timeline")
           if key in D}
    out["start_ns"], out["end_ns"], out["span_ns"] = h["start_ns"], h["end_ns"], h["span_ns"]
    out["devices"] = [d for d in D["devices"] if d.get("host") == h["host"]]
    if "nfs" in h:
        out["nfs"] = h["nfs"]
    json.dump(out, open(sys.argv[4], "w"))
elif sys.argv[1] == "compare":
    host, one = sys.argv[3], json.load(open(sys.argv[4]))
    group = [g["label"] for g in D["groups"] if g.get("params", {}).get("host") == host]
    if len(group) != 1:
        fails.append(f"compare has {len(group)} groups of host {host}")
    # a sweep's own metric (its runs' wall time) is no figure of the run
    mine = {m["key"]: [r["mean"] for r in m["rows"] if r["group"] in group] for m in D["metrics"]
            if m["key"] != "wall_s"}
    theirs = {m["key"]: [r["mean"] for r in m["rows"]] for m in one["metrics"]}
    if sorted(mine) != sorted(theirs):
        fails.append(f"{host}: metrics {sorted(mine)} in the set, {sorted(theirs)} alone")
    for k in sorted(set(mine) & set(theirs)):
        a, b = mine[k], theirs[k]
        if len(a) != len(b) or any((x is None) != (y is None) or
                                   (x is not None and abs(x - y) > 1e-9 * max(1, abs(y)))
                                   for x, y in zip(a, b)):
            fails.append(f"{host} {k}: {a} in the set, {b} alone")
elif sys.argv[1] == "report":
    want = [", ".join(g.get("explain", {}).get("causes", [])) for d in D["devices"]
            for g in d.get("idle", {}).get("longest", [])]
    page = open(sys.argv[3]).read()
    got = [html.unescape(re.sub(r"<[^>]*>", "", c)) for t in
           re.findall(r'<table class="idle-gaps">(.*?)</table>', page, re.S)
           for row in re.findall(r"<tr>(.*?)</tr>", t, re.S)
           for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)[5:6]]
    if not want:
        fails.append("analyze of the set explains no gap: nothing to hold the report to")
    if got != want:
        fails.append(f"the report's gap causes {got}, analyze's {want}")
else:
    sys.exit("usage: one_answer_hosts.py same|split ...")

for f in fails:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if fails else 0)
