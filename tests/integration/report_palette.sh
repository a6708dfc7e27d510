#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One palette (issue #27 item 2): in a report of one run and of three runs whose idle time
# overlaps, idle shading is neutral grey (hatched per run) and never a data colour, and every
# legend entry has its own swatch (p50 solid, p99 dashed) (report_palette.py); the page is
# rendered by headless Chromium and the idle bands there are grey.
source "$SRCDIR/tests/integration/lib.bash"

runs=()
for i in 1 2 3; do
	mkdir -p "$TMP/r$i"
	ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$TMP/r$i" -n sdb --seed "$i" --ios 3000 \
		--gaps 3 --gap-ms 300 >/dev/null
	runs+=("$TMP/r$i")
done
"$IOTAPE" report "${runs[0]}" -o "$TMP/one.html" --svg "$TMP/svg1" || fail "one run"
"$IOTAPE" report "${runs[@]}" -o "$TMP/three.html" --svg "$TMP/svg3" || fail "three runs"
grep -q 'class="idle"' "$TMP/svg3/dev7-0-mbps.svg" || fail "no idle shading to check"
python3 "$SRCDIR/tests/integration/report_palette.py" "$TMP/svg1" "$TMP/svg3" || fail "palette"
# the Runs table shows each run's hatching
expect_eq "hatch swatches" "$(grep -o 'class="hatchsw"' "$TMP/three.html" | wc -l)" 3
echo PASS
