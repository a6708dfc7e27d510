#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Durations a person reads are in a readable unit (issue #27 item 7): replay's issue lag and
# latency lines (block and NFS) never give a number of 1000 or more of a unit (no
# "434110.5 us"), and the report's manifest facts give the run's duration in a unit, not
# "duration (ns) 498924772". One formatter (common/units.c) makes them all.
source "$SRCDIR/tests/integration/lib.bash"

readable() { # FILE WHAT: every "N unit" in the lag and latency lines has N < 1000 (s excepted)
	python3 - "$1" "$2" <<'PY'
import re, sys
lines = [l for l in open(sys.argv[1]) if re.search(r"issue lag:|latency:", l)]
assert lines, f"{sys.argv[2]}: no issue lag or latency line"
for l in lines:
    for num, unit in re.findall(r"([0-9][0-9.]*) ?(ns|us|ms|s)\b", l):
        assert unit == "s" or float(num) < 1000, f"{sys.argv[2]}: {num} {unit} in {l.strip()!r}"
    assert not re.search(r"p50 [0-9.]+ +p", l), f"{sys.argv[2]}: a number without a unit: {l!r}"
PY
}

# block replay onto a file; a slow --speed makes the lag large
"$TOOLS/replaygen" -o "$TMP/tr" -n sdb --ios 300 --seed 5 --gap-us 200 --lat-us 400 \
	--read-pct 100 --span-mb 8 >/dev/null
head -c $((16 << 20)) /dev/zero >"$TMP/target.img"
"$IOTAPE" replay --timing afap --target "$TMP/target.img" "$TMP/tr/sdb" >"$TMP/blk.txt" \
	2>/dev/null || fail "block replay"
readable "$TMP/blk.txt" "block replay" || fail "block replay durations"

# NFS replay onto a directory
python3 "$SRCDIR/tests/integration/nfs_v42gen.py" "$TMP/w.pcap"
mkdir "$TMP/t"
"$IOTAPE" replay --timing afap "$TMP/w.pcap" --target "$TMP/t" >"$TMP/nfs.txt" 2>/dev/null ||
	fail "NFS replay"
grep -q "issue lag:" "$TMP/nfs.txt" && { readable "$TMP/nfs.txt" "NFS replay" || fail "NFS replay durations"; }

# the report's manifest facts
mkdir -p "$TMP/run"
ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$TMP/run" -n sdb --seed 1 --ios 200 >/dev/null
printf '{"format": "iotape-run", "duration_ns": 498924772, "devices": []}\n' >"$TMP/run/manifest.json"
"$IOTAPE" report "$TMP/run" -o "$TMP/r.html" || fail "report"
! grep -q "(ns)" "$TMP/r.html" || fail "the report gives a duration in ns"
grep -q "<td>duration</td><td>498.92 ms</td>" "$TMP/r.html" || fail "no readable duration in the report"
echo PASS
