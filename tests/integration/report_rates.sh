#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The report's rate graphs choose their interval from the data (issue #27 item 3): a 70 ms
# trace of 200 IOs is not drawn in 64 us intervals where one IO reads as 8000 MB/s; the
# interval is on each graph, and each graph's peak fits the run's totals (report_rates.py).
# Two runs of different IO counts share one interval, wide enough for both.
source "$SRCDIR/tests/integration/lib.bash"

gen() { # DIR SEED ARGS...
	local d=$1 s=$2
	shift 2
	mkdir -p "$d"
	ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$d" -n sdb --seed "$s" "$@" >/dev/null
}
gen "$TMP/few" 3 --ios 200
gen "$TMP/many" 4 --ios 20000 --gaps 2 --gap-ms 50
for r in few many; do
	"$IOTAPE" analyze --json "$TMP/$r" >"$TMP/$r.json" || fail "analyze $r"
	"$IOTAPE" report "$TMP/$r" -o "$TMP/$r.html" --svg "$TMP/svg-$r" || fail "report $r"
done
python3 "$SRCDIR/tests/integration/report_rates.py" "$TMP/few.json" "$TMP/svg-few" \
	"$TMP/many.json" "$TMP/svg-many" || fail "one run"
"$IOTAPE" report "$TMP/few" "$TMP/many" -o "$TMP/two.html" --svg "$TMP/svg-two" || fail "two"
rm -f "$TMP"/svg-two/*offset-run2.svg
python3 "$SRCDIR/tests/integration/report_rates.py" "$TMP/few.json" "$TMP/svg-two" ||
	fail "two runs: the interval must suit the run with fewer IOs"
# the Runs table names the bin the rate graphs plot, not the timeline's finer interval
runs_bin() { # HTML SVGDIR
	python3 - "$1" "$2" <<'PY'
import glob, re, sys
h = open(sys.argv[1]).read()
cells = re.findall(r'<td class="n bin">([^<]*)</td>', h)
titles = {re.search(r"per (\S+ \S+) interval", open(f).read()).group(1)
          for f in glob.glob(sys.argv[2] + "/*-mbps.svg")}
assert cells and len(titles) == 1, (cells, titles)
title = titles.pop()
assert all(c == title for c in cells), f"Runs table {cells}, graphs per {title}"
PY
}
for r in few many; do
	runs_bin "$TMP/$r.html" "$TMP/svg-$r" || fail "$r: the Runs table's bin is not the graphs'"
done
runs_bin "$TMP/two.html" "$TMP/svg-two" || fail "two runs: the Runs table's bin is not the graphs'"
echo PASS
