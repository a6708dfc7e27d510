#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# report and compare take any number of runs (issue #11 item 3): 1, 2, 3, 6 and 16 runs, each
# with its own colour of the documented palette (distinct up to 20), every run's rows in the
# tables, compare's groups; in the 6-run report every run's numbers and shading are its own
# analyze's (metrics_agree.py). The ASan+UBSan build runs this too.
source "$SRCDIR/tests/integration/lib.bash"

runs=()
for i in $(seq 1 16); do
	mkdir -p "$TMP/r$i"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		"$TOOLS/blkgen" -o "$TMP/r$i" -n sdb --seed "$i" --ios 400 --gaps 1 \
		--gap-ms $((10 + i)) >/dev/null
	runs+=("$TMP/r$i")
done
for n in 1 2 3 6 16; do
	set -- "${runs[@]:0:n}"
	"$IOTAPE" report "$@" -o "$TMP/$n.html" --svg "$TMP/svg$n" || fail "$n runs: report"
	for f in "$TMP/svg$n"/*.svg; do xmllint --noout "$f" || fail "$n runs: $f"; done
	"$IOTAPE" compare "$@" --format json >"$TMP/$n.json" || fail "$n runs: compare"
	python3 - "$TMP/$n.html" "$TMP/$n.json" "$n" <<'PY' || fail "$n runs: tables, colours or groups"
import json, re, sys
h, c, n = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), int(sys.argv[3])
runs = h[h.index("<h2>Runs</h2>"):h.index("</table>", h.index("<h2>Runs</h2>"))]
colours = re.findall(r'<tr><td><span class="sw" style="background:(#[0-9a-f]{6})">', runs)
assert len(colours) == n, (len(colours), n)
assert len(set(colours)) == n, colours  # distinct up to 20 runs
summ = h[h.index("<h2>Summary</h2>"):h.index("</table>", h.index("<h2>Summary</h2>"))]
assert summ.count("<tr><td>") == n, summ.count("<tr><td>")
assert len(c["groups"]) == n, len(c["groups"])
if n > 1:
    assert "<h2>Comparison</h2>" in h
    # one line per run on the shared graphs
    mbps = re.search(r'<svg[^>]*id="dev7-0-mbps".*?</svg>', h, re.S).group(0)
    for col in colours:
        assert 'stroke="%s"' % col in mbps, col
PY
done
# every run of the six-run report is its own analyze's
for i in 1 2 3 4 5 6; do
	"$IOTAPE" analyze --json "$TMP/r$i" >"$TMP/a$i.json" || fail "analyze r$i"
	python3 "$SRCDIR/tests/integration/metrics_agree.py" "$TMP/a$i.json" - "$TMP/6.html" \
		"r$i" $((i - 1)) || fail "run $i of 6: the numbers differ"
done
echo "report_runs: ok"
