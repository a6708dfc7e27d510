#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Numbers never past their quantity's bounds, with their units (issue #27 items 6 and 12):
# two very different runs pooled under one label give compare 95 % confidence intervals that
# Student's t would stretch below 0 and above 100 %: they end at 0 and at 100. The CSV and JSON
# name a unit for every iotape metric (MB/s, IOPS, seeks/s too), --metrics keeps its order,
# and a sweep report of two repetitions far apart draws no axis or error bar below 0.
source "$SRCDIR/tests/integration/lib.bash"

gen() { # DIR SEED ARGS...
	local d=$1 s=$2
	shift 2
	mkdir -p "$d"
	ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$d" -n sdb --seed "$s" "$@" >/dev/null
}
gen "$TMP/busy" 1 --ios 4000 --depth 16
gen "$TMP/idle" 2 --ios 200 --depth 1 --gaps 6 --gap-ms 400
"$IOTAPE" compare "$TMP/busy" "$TMP/idle" --label x --label x --format json >"$TMP/c.json" ||
	fail "compare json"
"$IOTAPE" compare "$TMP/busy" "$TMP/idle" --label x --label x --format csv >"$TMP/c.csv" ||
	fail "compare csv"
"$IOTAPE" compare "$TMP/busy" "$TMP/idle" --metrics seeks,mbps,lat_p99,iops --format json \
	>"$TMP/order.json" || fail "compare --metrics"
"$IOTAPE" compare "$TMP/busy" "$TMP/idle" --metrics seeks,mbps,lat_p99,iops --format csv \
	>"$TMP/order.csv" || fail "compare --metrics csv"
python3 - "$TMP/c.json" "$TMP/c.csv" "$TMP/order.json" "$TMP/order.csv" <<'PY' || fail "compare"
import csv, json, sys
c = json.load(open(sys.argv[1]))
wide = 0
for m in c["metrics"]:
    for r in m["rows"]:
        lo, hi = r.get("ci95") or [None, None]
        if lo is None:
            continue
        wide += 1
        assert lo >= 0, f"{m['key']}: CI lower bound {lo} below 0"
        if m["unit"] == "%":
            assert hi <= 100, f"{m['key']}: CI upper bound {hi} above 100 %"
assert wide >= 5, f"only {wide} intervals"
rows = list(csv.DictReader(open(sys.argv[2])))
units = {r["metric"]: r["unit"] for r in rows}
for k in ("mbps", "iops", "seeks", "lat_p50", "idle_pct"):
    assert units.get(k), f"CSV: no unit for {k}: {units}"
want = ["seeks", "mbps", "lat_p99", "iops"]
got = [m["key"] for m in json.load(open(sys.argv[3]))["metrics"]]
assert got == want, f"JSON --metrics order {got}"
got = []
for r in csv.DictReader(open(sys.argv[4])):
    if r["metric"] not in got:
        got.append(r["metric"])
assert got == want, f"CSV --metrics order {got}"
PY

# a sweep of two repetitions far apart: its report's error bars end at 0
cat >"$TMP/work.sh" <<'SH'
#!/bin/sh
[ "$1" = 1 ] && echo "rate 1" || echo "rate 900"
SH
chmod +x "$TMP/work.sh"
"$IOTAPE" sweep -o "$TMP/sw" --no-capture -p n=1,2,4 -r 2 -m rate='rate ([0-9]+)' \
	-- "$TMP/work.sh" '{rep}' >/dev/null 2>&1 || fail "sweep"
"$IOTAPE" report "$TMP/sw" -o "$TMP/sw.html" || fail "sweep report"
python3 - "$TMP/sw.html" <<'PY' || fail "sweep report axes"
import re, sys
h = open(sys.argv[1]).read()
svgs = re.findall(r"<svg.*?</svg>", h, re.S)
assert svgs, "no graphs"
for s in svgs:
    labels = re.findall(r'<text[^>]*text-anchor="end"[^>]*>([^<]*)</text>', s)
    for lab in labels:
        assert not lab.strip().startswith("-"), f"a negative tick {lab!r}: {labels}"
PY
echo PASS
