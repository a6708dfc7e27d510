#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape report: one run and two runs from blkgen; every --svg file is well-formed XML, the
# page has no outside references, its numbers match the generator's truth, and headless
# Chromium renders it to a screenshot that is not blank.
source "$SRCDIR/tests/integration/lib.bash"

gen() { # DIR SEED ARGS...
	local d=$1 s=$2
	shift 2
	mkdir -p "$d"
	ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$d" -n sdb --seed "$s" --truth "$d.truth.json" "$@" >/dev/null
}
gen "$TMP/a" 1 --ios 20000 --depth 4 --gaps 4 --gap-ms 200
gen "$TMP/b" 2 --ios 20000 --depth 16 --gaps 2 --gap-ms 500
# a manifest whose text must be escaped, not interpreted
cat >"$TMP/a/manifest.json" <<'JSON'
{"format": "iotape-run", "host": {"kernel": {"release": "6.1.0-test"},
 "distro": {"id": "debian", "version_id": "12"}},
 "devices": [{"name": "loop0", "major": 7, "minor": 0,
   "mounts": [{"fstype": "ext4", "mountpoint": "/mnt/<script>alert(1)</script>"}]}]}
JSON

"$IOTAPE" report "$TMP/a" -o "$TMP/a.html" --svg "$TMP/svg"
[ -s "$TMP/a.html" ] || fail "no report"
n=0
for f in "$TMP"/svg/*.svg; do
	xmllint --noout "$f" || fail "$f is not well-formed"
	n=$((n + 1))
done
expect_eq "svg files" "$n" 6
for g in offset mbps iops seeks qdepth d2c; do
	[ -s "$TMP/svg/dev7-0-$g.svg" ] || fail "no $g graph"
	grep -q "id=\"dev7-0-$g\"" "$TMP/a.html" || fail "$g graph not inline"
done
grep -q '/mnt/&lt;script&gt;alert(1)&lt;/script&gt;' "$TMP/a.html" || fail "manifest not escaped"
! grep -q '<script>alert' "$TMP/a.html" || fail "manifest text injected"
# self-contained: no scripts, no external references
! grep -Eq '<script|src="http|href="http|@import|url\(http' "$TMP/a.html" || fail "external reference"

# numbers against blkgen's ground truth (the summary compare and the tables use)
"$IOTAPE" compare "$TMP/a" --format json >"$TMP/a.cmp.json"
python3 - "$TMP/a.truth.json" "$TMP/a.cmp.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["devices"][0]
c = {m["key"]: m["rows"][0]["mean"] for m in json.load(open(sys.argv[2]))["metrics"]}
span = t["last_ns"] - t["first_ns"]
want = {
    "mbps": (t["reads"]["bytes"] + t["writes"]["bytes"]) / span * 1e9 / 1048576,  # MiB/s
    "iops": (t["reads"]["ios"] + t["writes"]["ios"]) / span * 1e9,
    "seq_pct": 100.0 * (t["requests"] - t["seeks"]) / t["requests"],
    "idle_pct": 100.0 * t["idle"]["total_ns"] / span,
    "longest_gap": max(e - s for s, e in t["idle"]["list"]) / 1e6,
    "lat_p50": None,
}
# sequential %: analyze counts transitions between requests (one fewer than requests)
tol = {"seq_pct": 0.05}
for k, v in want.items():
    if v is None:
        continue
    if abs(c[k] - v) > tol.get(k, 1e-6 * max(1.0, abs(v)) + 1e-9):
        sys.exit(f"{k}: report {c[k]} truth {v}")
# D2C percentiles come from a histogram: within its 1/64 resolution of the true mean region
if not (0.5 * t["d2c_mean_ns"] / 1e3 < c["lat_p50"] < 2 * t["d2c_mean_ns"] / 1e3):
    sys.exit(f"lat_p50 {c['lat_p50']} far from d2c mean {t['d2c_mean_ns']}")
PY

# two runs: shared axes, one colour per run, and the comparison table
"$IOTAPE" report "$TMP/a" "$TMP/b" --label fast --label slow -o "$TMP/ab.html" --svg "$TMP/svg2"
grep -q '<h2>Comparison</h2>' "$TMP/ab.html" || fail "no comparison section"
for f in "$TMP"/svg2/*.svg; do xmllint --noout "$f" || fail "$f is not well-formed"; done
expect_eq "two-run svg files" "$(ls "$TMP/svg2" | wc -l)" 7
# usage errors
rc=0; "$IOTAPE" report "$TMP/a" >/dev/null 2>&1 || rc=$?
expect_eq "no -o" "$rc" 2
rc=0; "$IOTAPE" report "$TMP/nope" -o "$TMP/x.html" 2>/dev/null || rc=$?
expect_eq "missing run" "$rc" 2
[ ! -e "$TMP/x.html" ] || fail "a failed report left a file"

# the browser: a screenshot with graphs in it, not a blank page
need_cmd chromium
shot() { # HTML PNG
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$TMP/chr.XXXXXX")" --screenshot="$2" \
		--window-size=1400,2000 "file://$1" >/dev/null 2>&1 || true
	[ -s "$2" ] || fail "chromium wrote no screenshot of $1"
}
shot "$TMP/ab.html" "$TMP/ab.png"
echo '<!DOCTYPE html><html><body></body></html>' >"$TMP/blank.html"
shot "$TMP/blank.html" "$TMP/blank.png"
python3 "$SRCDIR/tests/integration/report_png.py" "$TMP/blank.png" "$TMP/ab.png"
if [ -n "${IOTAPE_KEEP_SCREENSHOT:-}" ]; then cp "$TMP/ab.png" "$IOTAPE_KEEP_SCREENSHOT"; fi
echo PASS
