# SPDX-License-Identifier: MIT
# fio replays an exported iolog (fio --read_iolog) onto a loop device, and an iotape capture of
# that replay shows the trace's (sector, size, direction) sequence in what fio queued.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd fio
[ -x "$TOOLS/replaygen" ] || skip "replaygen not built"
replaygen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/replaygen" "$@"; }
cd "$TMP"

make_loop 128M
replaygen -o tr -n sdb --ios 500 --seed 8 --gap-us 400 --lat-us 300 --read-pct 50 \
	--flush-every 60 --span-mb 100 >/dev/null
"$IOTAPE" export tr/sdb -f fio-iolog -o x --map 8,16="$LOOP" >/dev/null || fail "export"
grep -q "replay_redirect=$LOOP" x/replay.fio || fail "the job file does not name $LOOP"

capture -o cap -d "$LOOP" -- fio --output-format=json --output="$TMP/fio.json" x/replay.fio ||
	fail "capture of fio's replay failed"
tracing_is_off

# what the trace issued, and what fio queued on the loop device (by fio's pids: udev and the
# like may read the device too), as (sector, bytes, R/W) with flushes as F
replaygen dump --action D tr/sdb |
	awk '{ if ($3 ~ /^F/ && $2 == 0) print "F"; else print $1, $2, ($3 ~ /W/ ? "W" : "R") }' \
	>want.txt
"$IOTAPE" export cap -f csv -o cap.csv || fail "csv of the capture"
# (fio's pids from their PROCESS notes, which may come after a pid's first events)
awk -F, 'NR == FNR { if ($11 ~ /^fio/) fio[$5] = 1; next }
	$6 == "queue" && ($5 in fio) {
	if ($9 == 0) { if ($7 ~ /^F/) print "F" } else print $8, $9, ($7 ~ /W/ ? "W" : "R") }' \
	cap.csv cap.csv >got.txt
[ -s got.txt ] || fail "no queue events of fio in the capture: $(head -5 cap.csv)"
# the data IOs exactly, in order
grep -v '^F$' want.txt >want_io.txt
grep -v '^F$' got.txt >got_io.txt
cmp -s want_io.txt got_io.txt || {
	diff want_io.txt got_io.txt | head -20 >&2
	fail "fio's replay queued another sequence than the trace issued"
}
# and every flush (fio syncs once the IOs before it are in, so its place among the queue
# events of the IOs in flight varies)
expect_eq "flushes" "$(grep -c '^F$' got.txt || true)" "$(grep -c '^F$' want.txt)"
echo "export_fio_loop: $(wc -l <got_io.txt) IOs in the trace's order and" \
	"$(grep -c '^F$' got.txt) flushes"
