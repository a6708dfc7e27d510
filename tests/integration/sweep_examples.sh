#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The three worked examples of docs/sweep.md, run from the page itself in a small form (fewer
# repetitions and values: the substitutions below), on a loop device: their tables have the
# seed shapes, and each gives an HTML report. Example 1 is also the issue's CI sweep
# (fs=ext4,xfs,btrfs x bs=4k,128k, 2 repetitions, mkfs and mount in the setup, fio with a JSON
# metric): every run directory is complete and analyzable, and the table's numbers equal the
# runs' own `iotape analyze` figures.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd fio
need_cmd mkfs.xfs
need_cmd mkfs.btrfs
need_cmd wipefs
need_cmd python3

make_loop 1G
export DEV=$LOOP MNT=$TMP/mnt
mkdir -p "$MNT"
OLD_SCHED=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$LOOPNAME/queue/scheduler")
cleanup_hooks=("echo $OLD_SCHED > /sys/block/$LOOPNAME/queue/scheduler" "${cleanup_hooks[@]}")

# example N: the block after "<!-- example N -->" in docs/sweep.md, with the substitutions
# given (each must change the text: a page that moved on fails here, not silently)
example() {
	local n=$1 text sub
	shift
	text=$(awk -v m="<!-- example $n -->" '
		$0 == m { on = 1; next }
		on && /^```sh$/ { inside = 1; next }
		inside && /^```$/ { exit }
		inside { print }' "$SRCDIR/docs/sweep.md")
	[ -n "$text" ] || fail "no example $n in docs/sweep.md"
	for sub in "$@"; do
		local before=$text
		text=$(sed "$sub" <<<"$text")
		[ "$text" != "$before" ] || fail "example $n: '$sub' changed nothing"
	done
	printf '%s\n' "$text" >"$TMP/example$n.sh"
}

cd "$TMP"
# the page says `iotape`: this build's
PATH=$(dirname "$IOTAPE"):$PATH

# run_example N: the example's commands, each must succeed
run_example() {
	local rc=0
	bash -e "$TMP/example$1.sh" 2>"$TMP/ex$1.err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$TMP/ex$1.err"; fail "example $1: exit $rc"; }
}

# 1: filesystem x request size (x scheduler)
example 1 's/-r 3/-r 2/' 's/-p bs=4k,128k,4m/-p bs=4k,128k/' 's/sched=none,mq-deadline/sched=none/' \
	's/--size=256m/--size=16m/' 's/iotape compare fs-bs --metrics mbps --format markdown/& >fs-bs.md/'
run_example 1
tracing_is_off
runs=$(find fs-bs -name result.json | wc -l)
expect_eq "example 1 runs" "$runs" 12
for r in fs-bs/bs=*/sched=*/fs=*/rep-*; do
	expect_eq "$r" "$(json '["state"]' "$r/result.json")" done
	expect_eq "$r manifest" "$(json '["state"]' "$r/manifest.json")" complete
	fs=$(json '["params"]["fs"]' "$r/result.json")
	expect_eq "$r mounted fs" "$(json '["devices"][0]["mounts"][0]["fstype"]' "$r/manifest.json")" "$fs"
	expect_eq "$r label" "$(json '["labels"]["bs"]' "$r/manifest.json")" \
		"$(json '["params"]["bs"]' "$r/result.json")"
	ls "$r/$LOOPNAME.blktrace."* >/dev/null || fail "$r: no trace"
	"$IOTAPE" analyze --json "$r" >"$r/analysis.json" || fail "$r: not analyzable"
	[ "$(json '["metrics"]["fio_bw"]' "$r/result.json" | cut -d. -f1)" -gt 0 ] || fail "$r: fio_bw"
	grep -q '"jobname" : "osd"' "$r/stdout" || fail "$r: fio's JSON is not in stdout"
done
# the Markdown: one table per request size, rows sched, columns the filesystems
expect_eq "tables" "$(grep -c '^## bs = ' fs-bs.md)" 2
grep -qF '| sched \\ fs | ext4 | xfs | btrfs |' fs-bs.md || fail "table header: $(cat fs-bs.md)"
expect_eq "rows" "$(grep -c '^| none |' fs-bs.md)" 2
# every cell's mean MiB/s is the mean of its two runs' own analyses
"$IOTAPE" compare fs-bs --format json >fs-bs.json || fail "compare --format json"
python3 - fs-bs.json <<'PY' || fail "compare's numbers are not the runs' analyses"
import json, sys, os
c = json.load(open(sys.argv[1]))
mb = next(m for m in c["metrics"] if m["key"] == "mbps")
groups = {g["label"]: g for g in c["groups"]}
checked = 0
for row in mb["rows"]:
    g = groups[row["group"]]
    vals = []
    for run in g["runs"]:
        a = json.load(open(os.path.join(run, "analysis.json")))
        for d in a["devices"]:
            vals.append(d["throughput"]["mbps"] * 1e6 / 1048576)  # shown in MiB/s
    want = sum(vals) / len(vals)
    assert len(vals) == 2, (row["group"], vals)
    assert abs(row["mean"] - want) <= 1e-9 * max(1, want), (row["group"], row["mean"], want)
    checked += 1
assert checked == 6, checked
PY
[ -s fs-bs.html ] && xmllint --html --noout fs-bs.html 2>/dev/null || fail "example 1 report"
grep -q '<svg' fs-bs.html || fail "example 1 report has no graph"

# 2: copy size x method, PASS/FAIL against dd
example 2 's/-r 10/-r 2/' 's/size=1K\.\.1G:x4/size=1K..1M:x32/' \
	's/^iotape compare copy .*/& >copy.txt || [ $? -eq 1 ]/' \
	's/^iotape report copy .*/& || [ $? -eq 1 ]/'
run_example 2
tracing_is_off
expect_eq "example 2 runs" "$(find copy -name result.json | xargs grep -l '"done"' | wc -l)" 12
grep -q '^size \\ method  dd' copy.txt || fail "copy table header: $(cat copy.txt)"
for s in 1K 32K 1M; do
	grep -qE "^$s +[0-9.]+ .*\(baseline\) +[0-9.]+ .*\([-+][0-9.]+%\) (PASS|FAIL)$" copy.txt ||
		fail "copy table row $s: $(cat copy.txt)"
done
grep -q "the group with method=dd and the same other values" copy.txt || fail "copy baseline note"
cmp -s copy/size=1K/method=cp/rep-1/stdout /dev/null || fail "cp printed something"
grep -q 'wall time by size' copy.html || fail "example 2 report has no wall-time graph"

# 3: data size x buffer size x method
example 3 's/-r 3/-r 2/' 's/data=64M,256M,1G/data=1M,4M/' 's/buf=128K\.\.32M:x4/buf=64K..1M:x16/' \
	's/^iotape compare vdi .*/& >vdi.txt/'
run_example 3
tracing_is_off
expect_eq "example 3 runs" "$(find vdi -name result.json | wc -l)" 16
expect_eq "vdi tables" "$(grep -c '^== data = ' vdi.txt)" 2
grep -q '^method \\ buf  64K' vdi.txt || fail "vdi table header: $(cat vdi.txt)"
grep -q '^pipe ' vdi.txt || fail "vdi table rows: $(cat vdi.txt)"
grep -q 'wall time by buf' vdi.html || fail "example 3: no graph against buf"
grep -q 'wall time by data' vdi.html || fail "example 3: no graph against data"
# --svg: each graph a standalone, well-formed SVG file
"$IOTAPE" report vdi -o "$TMP/vdi2.html" --svg "$TMP/svg" --metrics wall_s 2>/dev/null ||
	fail "report --svg"
expect_eq "graphs as files" "$(ls "$TMP/svg"/sweep-wall_s-by-*.svg | wc -l)" 2
xmllint --noout "$TMP/svg"/*.svg || fail "the graphs are not well-formed XML"
# the browser draws the page: graphs with four lines of the palette (common/palette.c's runs)
need_cmd chromium
shot() { # HTML PNG
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$TMP/chr.XXXXXX")" --screenshot="$2" \
		--window-size=1400,3000 "file://$1" >/dev/null 2>&1 || true
	[ -s "$2" ] || fail "chromium wrote no screenshot of $1"
}
shot "$TMP/vdi.html" "$TMP/vdi.png"
echo '<!DOCTYPE html><html><body></body></html>' >"$TMP/blank.html"
shot "$TMP/blank.html" "$TMP/blank.png"
python3 "$SRCDIR/tests/integration/report_png.py" "$TMP/blank.png" "$TMP/vdi.png" \
	orange=ff7f0e green=2ca02c purple=9467bd brown=8c564b
echo "worked examples: ok"
