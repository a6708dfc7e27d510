#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Holds report, compare and analyze to one set of numbers (issue #11 item 2): called by
# metrics_agree.sh with one run's outputs.
#   metrics_agree.py ANALYZE.json COMPARE.json REPORT.html LABEL [RUN]
# COMPARE.json '-' skips compare; RUN is the run's place in the report (0: the first).
# - every number in the report's tables (Runs, Summary, NFS) is analyze's, formatted as the
#   report formats it ('-' where analyze has none);
# - every value compare gives (one group per device) is analyze's, to compare's 10 digits;
# - the report's idle shading of each device: the exact bands are analyze's idle.longest,
#   the per-interval bands add up to idle.total_ns;
# - analyze's own timeline adds up to its totals.
import html
import json
import re
import sys

MIB = 1048576.0  # sizes and rates are shown in binary units (docs/units.md)

A = json.load(open(sys.argv[1]))
C = json.load(open(sys.argv[2])) if sys.argv[2] != "-" else None
H = open(sys.argv[3]).read()
label = sys.argv[4]
run = int(sys.argv[5]) if len(sys.argv) > 5 else 0
U64 = 1 << 64
fails = []


def check(what, got, want):
    if got != want:
        fails.append(f"{what}: got {got!r}, want {want!r}")


def u64(v):  # past 2^63 - 1 a u64 is written as a string of its digits (docs/json.md)
    if isinstance(v, str):
        assert v.isdigit() and int(v) >= 1 << 63, v
        return int(v)
    assert v >= 0, v
    return v


def fmt(v, dec):
    return "-" if v is None else "%.*f" % (dec, v)


def table(title):
    """Rows of the first table after <h2>title</h2>, as lists of cell texts."""
    i = H.index("<h2>%s</h2>" % title)
    t = H[i:H.index("</table>", i)]
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", t, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        rows.append([html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells])
    return rows


def longest_ns(idle):
    return max((g["duration_ns"] for g in idle["longest"]), default=0)


def d2c(dev, key, scale):
    # the D2C compared (report, compare): per request, else btt's per bio
    lat = dev["latency_ns"].get("d2c_request") or {"count": 0}
    if not lat["count"]:
        lat = dev["latency_ns"]["d2c"]
    return lat[key] / scale if lat["count"] else None


devs = A["devices"]

# ---- Runs table
runs = [r for r in table("Runs") if r and r[0] == label]
check("runs rows", len(runs), 1)
if runs:
    r = runs[0]
    check("runs span", r[2], fmt(A["span_ns"] / 1e9, 3))
    events = sum(d["events"] for d in devs) + A.get("events_dropped_devices", 0)
    check("runs events", r[3], fmt(events, 0))
    check("runs devices", r[4], fmt(len(devs), 0))

# ---- Summary table: one row per device, in analyze's order
rows = [r for r in table("Summary") if r and r[0] == label]
check("summary rows", len(rows), len(devs))
for r, d in zip(rows, devs):
    want = [label, d["dev"],
            fmt(d["reads"]["ios"], 0), fmt(d["reads"]["bytes"] / MIB, 1),
            fmt(d["writes"]["ios"], 0), fmt(d["writes"]["bytes"] / MIB, 1),
            fmt(d["throughput"]["mbps"] * 1e6 / MIB, 2), fmt(d["throughput"]["iops"], 1),
            fmt(d2c(d, "mean", 1e3), 1), fmt(d2c(d, "p50", 1e3), 1),
            fmt(d2c(d, "p99", 1e3), 1), fmt(d2c(d, "max", 1e3), 1),
            fmt(d["idle"]["gaps"], 0), fmt(d["idle"]["pct"], 1),
            fmt(longest_ns(d["idle"]) / 1e6, 2),
            fmt(d["seeks"]["per_sec"], 1), fmt(d["seeks"]["sequential_pct"], 1)]
    heads = ["run", "device", "reads", "read MiB", "writes", "write MiB", "MiB/s", "IOPS",
             "D2C mean", "D2C p50", "D2C p99", "D2C max", "idle gaps", "idle %",
             "longest gap", "seeks/s", "sequential %"]
    for h, g, w in zip(heads, r, want):
        check(f"summary {d['dev']} {h}", g, w)

# ---- NFS table
procs = A.get("nfs", {}).get("procedures", [])
if procs:
    rows = [r for r in table("NFS") if r and r[0] == label]
    check("nfs rows", len(rows), len(procs))
    for r, p in zip(rows, procs):
        srt = p.get("srt_ns") or {}
        want = [fmt(p["calls"], 0), fmt(p["errors"], 0), fmt(p["bytes"] / MIB, 2)] + [
            fmt(srt[k] / 1e6, 3) if isinstance(srt.get(k), (int, float)) else "-"
            for k in ("mean", "p50", "p99", "max")]
        # the program: PORTMAP's NULL and GETPORT are no "NFS version 2" (#27 item 5)
        check(f"nfs {p['name']} program", r[1], p["program"])
        check(f"nfs {p['name']}", r[4:], want)

# ---- compare: groups per device (a manifest names them), or one group for one device
metrics = {m["key"]: m for m in C["metrics"]} if C else {}


def near(what, got, want):
    if want is None or got is None:
        check(what, got, want)
    elif abs(got - want) > 1e-9 * max(1.0, abs(want)):
        fails.append(f"{what}: compare {got!r}, analyze {want!r}")


block = {"mbps": lambda d: d["throughput"]["mbps"] * 1e6 / MIB,
         "iops": lambda d: d["throughput"]["iops"],
         "lat_p50": lambda d: d2c(d, "p50", 1e3),
         "lat_p99": lambda d: d2c(d, "p99", 1e3),
         "idle_pct": lambda d: d["idle"]["pct"],
         "longest_gap": lambda d: longest_ns(d["idle"]) / 1e6,
         "seeks": lambda d: d["seeks"]["per_sec"],
         "seq_pct": lambda d: d["seeks"]["sequential_pct"]}
if devs and C:
    for key, f in block.items():
        rows = metrics[key]["rows"]
        check(f"compare {key} groups", len(rows), len(devs))
        for row, d in zip(rows, devs):
            near(f"compare {key} {d['dev']}", row["mean"], f(d))
for p in procs:
    key = "nfs%s.%s" % (p["version"], p["name"])
    if C and key in metrics and p.get("srt_ns") and p["calls"] > 0:
        near(f"compare {key}", metrics[key]["rows"][0]["mean"], p["srt_ns"]["mean"] / 1e6)

# ---- idle shading: in the first chart of each device (its MiB/s graph); the hosts of a run
# set each have their own ("dev8-0-1-mbps": the same device number on another host)
for d in devs:
    dev = d["dev"].replace(",", "-")
    svgs = [m.group(0) for m in re.finditer(r'<svg[^>]*id="dev%s(?:-\d+)?-mbps".*?</svg>' % dev,
                                            H, re.S)]
    if not svgs:
        if devs.index(d) < 16:
            fails.append(f"no MiB/s chart for {d['dev']}")
        continue
    svg = "".join(s for s in svgs if 'data-run="%d"' % run in s)
    gaps = sorted((int(a), int(b)) for a, b in re.findall(
        r'class="idle-gap" data-run="%d" data-start-ns="(\d+)" data-end-ns="(\d+)"' % run, svg))
    t0 = u64(A["start_ns"])
    want = sorted(((u64(g["start_ns"]) - t0) % U64, (u64(g["end_ns"]) - t0) % U64)
                  for g in d["idle"]["longest"])
    check(f"shaded gaps {d['dev']}", gaps, want)
    idle = sum(int(v) for v in re.findall(
        r'class="idle" data-run="%d" data-idle-ns="(\d+)"' % run, svg))
    check(f"shaded idle {d['dev']}", idle, d["idle"]["total_ns"])

# ---- analyze's timeline adds up to its totals
for d in devs:
    tl = d.get("timeline") or []
    if not tl:
        continue
    check(f"timeline ios {d['dev']}", sum(b["ios"] for b in tl),
          d["reads"]["ios"] + d["data_writes"]["ios"])
    check(f"timeline write_ios {d['dev']}", sum(b["write_ios"] for b in tl),
          d["data_writes"]["ios"])
    check(f"timeline read_bytes {d['dev']}", sum(b["read_bytes"] for b in tl), d["reads"]["bytes"])
    check(f"timeline write_bytes {d['dev']}", sum(b["write_bytes"] for b in tl),
          d["data_writes"]["bytes"])
    check(f"timeline seeks {d['dev']}", sum(b["seeks"] for b in tl), d["seeks"]["count"])
    check(f"timeline idle {d['dev']}", sum(b["idle_ns"] for b in tl), d["idle"]["total_ns"])
    check(f"timeline depth max {d['dev']}", max(b["depth_max"] for b in tl), d["depth"]["max"])
    area = sum(b["depth"] * b["width_ns"] for b in tl)
    if abs(area - d["depth"]["mean"] * A["span_ns"]) > 1e-6 * max(1.0, area):
        fails.append(f"timeline depth area {d['dev']}: {area} against "
                     f"{d['depth']['mean'] * A['span_ns']}")

for f in fails:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if fails else 0)
