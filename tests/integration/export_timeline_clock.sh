#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# export --timeline's start_ns is on the clock of the event CSV's time_ns (issue #27 item 13):
# nanoseconds from the trace's first event, not the trace's absolute clock. A trace starting
# at 5 s on its clock: the first interval starts at 0, and every event of an interval falls
# inside [start_ns, start_ns + width_ns).
source "$SRCDIR/tests/integration/lib.bash"

mkdir -p "$TMP/r"
ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$TMP/r" -n sdb --seed 5 --ios 2000 \
	--start-ns 5000000000 >/dev/null
"$IOTAPE" export "$TMP/r" --format csv -o "$TMP/ev.csv" || fail "export"
"$IOTAPE" export "$TMP/r" --format csv --timeline --interval 10ms -o "$TMP/tl.csv" ||
	fail "export --timeline"
python3 - "$TMP/ev.csv" "$TMP/tl.csv" <<'PY' || fail "the two clocks differ"
import csv, sys
ev = list(csv.DictReader(open(sys.argv[1])))
tl = list(csv.DictReader(open(sys.argv[2])))
assert int(ev[0]["time_ns"]) == 0, ev[0]
starts = [int(r["start_ns"]) for r in tl]
assert starts[0] == 0, f"first interval starts at {starts[0]}, the first event at 0"
width = int(tl[0]["width_ns"])
last = max(int(r["time_ns"]) for r in ev)
assert starts[-1] <= last < starts[-1] + width + 1, (starts[-1], last, width)
# completions counted per interval land in the interval their time_ns says
done = {}
for r in ev:
    if r["action"] == "complete" and int(r["bytes"]) > 0 and r["rwbs"][0] in "RW":
        k = int(r["time_ns"]) // width * width
        done[k] = done.get(k, 0) + 1
got = {int(r["start_ns"]): int(r["ios"]) for r in tl if int(r["ios"])}
assert got == done, "per-interval completions differ"
PY
echo PASS
