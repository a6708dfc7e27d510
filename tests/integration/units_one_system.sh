#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One unit system (docs/units.md): what analyze, report (page and SVGs), compare (text,
# markdown, CSV, JSON units), sweep, replay and the NFS views print shows sizes and rates of
# bytes in binary units only. Any decimal byte unit (kB, MB, GB, MB/s, ...) in a rendered
# output fails, as does a page without the binary ones (a check that could not fail).
source "$SRCDIR/tests/integration/lib.bash"

S=$SRCDIR/samples
O=$TMP/out
mkdir -p "$O"
export ASAN_OPTIONS=detect_leaks=0

"$IOTAPE" analyze "$S/ext4" >"$O/analyze-ext4.txt"
"$IOTAPE" analyze "$S/nfs/run" >"$O/analyze-nfs.txt"
"$IOTAPE" report "$S/ext4" -o "$O/report1.html" --svg "$O/svg1"
"$IOTAPE" report "$S/ext4" "$S/xfs" -o "$O/report2.html" --svg "$O/svg2"
"$IOTAPE" report "$S/nfs/run" -o "$O/report-nfs.html"
for fmt in text markdown csv json; do
	"$IOTAPE" compare "$S/ext4" "$S/xfs" "$S/btrfs" --format "$fmt" >"$O/compare.$fmt"
done
# a sweep whose command reports a rate in bytes per second (fio's bw_bytes)
"$IOTAPE" sweep -o "$TMP/sw" --no-capture -p n=1,2 -r 2 --seed 1 \
	-m 'bw:B/s=json:bw_bytes' -- sh -c 'echo "{\"bw_bytes\": $((n * 300000000))}"' \
	>"$O/sweep.txt" 2>&1
"$IOTAPE" compare "$TMP/sw" >"$O/compare-sweep.txt"
"$IOTAPE" report "$TMP/sw" -o "$O/report-sweep.html" --svg "$O/svg-sweep"
truncate -s 1G "$TMP/target.img"
"$IOTAPE" replay "$S/ext4" --target "$TMP/target.img" --timing afap --writes-as-reads \
	>"$O/replay.txt" 2>&1

# a decimal byte unit: a number's k/K/M/G/T/P then B (not KiB), alone or per second
bad=$(grep -rnoE '(^|[^A-Za-z])[kKMGTP]B(/s)?([^A-Za-z]|$)' "$O" || true)
[ -z "$bad" ] || fail "decimal byte units in rendered output:
$bad"
# the same outputs do show sizes and rates: in binary units
grep -q 'MiB' "$O/analyze-ext4.txt" || fail "analyze: no MiB: $(head "$O/analyze-ext4.txt")"
grep -q 'MiB/s' "$O/report1.html" || fail "report: no MiB/s"
grep -q 'MiB/s' "$O/svg1/"*-mbps.svg || fail "report: the throughput axis is not in MiB/s"
grep -q 'MiB' "$O/report-nfs.html" || fail "report (NFS): no MiB"
grep -q '^mbps,MiB/s,' "$O/compare.csv" || fail "compare csv unit: $(head -3 "$O/compare.csv")"
grep -q 'MiB/s' "$O/compare-sweep.txt" || fail "compare of a sweep: bw not in MiB/s: $(cat "$O/compare-sweep.txt")"
grep -q 'MiB/s' "$O/svg-sweep/"*bw*.svg || fail "sweep report: bw axis names no unit"
grep -q 'bw=600000000 B/s' "$O/sweep.txt" || fail "sweep's progress names no unit: $(cat "$O/sweep.txt")"
grep -q 'MiB/s' "$O/replay.txt" || fail "replay: $(cat "$O/replay.txt")"
# as Chromium renders them: the pages' text (tables, SVG axes and legends) after layout, and
# screenshots (kept in $IOTAPE_KEEP_SCREENSHOT, a directory, when set)
need_cmd chromium
chr() { # ARGS... URL
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$TMP/chr.XXXXXX")" --window-size=1400,2400 "$@" 2>/dev/null
}
for p in report1 report2 report-nfs report-sweep; do
	chr --dump-dom "file://$O/$p.html" >"$TMP/$p.dom" || true
	[ -s "$TMP/$p.dom" ] || fail "chromium rendered nothing of $p.html"
	! grep -noE '(^|[^A-Za-z])[kKMGTP]B(/s)?([^A-Za-z]|$)' "$TMP/$p.dom" >&2 ||
		fail "$p.html as rendered shows decimal byte units"
	grep -q 'MiB' "$TMP/$p.dom" || fail "$p.html as rendered shows no MiB"
	chr --screenshot="$TMP/$p.png" "file://$O/$p.html" >/dev/null || true
	[ -s "$TMP/$p.png" ] || fail "chromium wrote no screenshot of $p.html"
	if [ -n "${IOTAPE_KEEP_SCREENSHOT:-}" ]; then cp "$TMP/$p.png" "$IOTAPE_KEEP_SCREENSHOT/"; fi
done
echo "ok: one unit system in $(find "$O" -type f | wc -l) outputs"
