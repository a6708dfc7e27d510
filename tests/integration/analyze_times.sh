#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times in analyze's JSON are on the trace's clock (start_ns, end_ns, call_ns); the text shows
# seconds from the start. The JSON gives both: *_offset_ns is what the text prints, and the
# text's first line names the clock time it counts from.
source "$SRCDIR/tests/integration/lib.bash"

"$IOTAPE" analyze "$SRCDIR/samples/ext4" >"$TMP/ext4.txt"
"$IOTAPE" analyze --json "$SRCDIR/samples/ext4" >"$TMP/ext4.json"
python3 - "$TMP/ext4.json" "$TMP/ext4.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
t0 = d["start_ns"]
gaps = [g for dev in d["devices"] for g in dev["idle"]["longest"]]
assert gaps, "the sample has idle gaps"
for g in gaps:
    assert g["start_offset_ns"] == g["start_ns"] - t0, g
    assert g["end_offset_ns"] == g["end_ns"] - t0, g
    # the text's row for the gap: seconds from the start, as the offsets say
    row = "%14.6f %14.6f" % (g["start_offset_ns"] / 1e9, g["end_offset_ns"] / 1e9)
    assert row in text, (row, text)
# the text names the trace-clock time its seconds count from
m = re.search(r"times in seconds from ([0-9.]+) s on the trace clock \(start_ns\)", text)
assert m and m.group(1) == "%.9f" % (t0 / 1e9), text.splitlines()[:3]
PY
[ $? -eq 0 ] || fail "ext4: offsets"

# NFS: the slowest calls' offsets from the capture's first call, as the text shows them
"$IOTAPE" analyze "$SRCDIR/samples/nfs/run/net.pcap" >"$TMP/nfs.txt"
"$IOTAPE" analyze --json "$SRCDIR/samples/nfs/run/net.pcap" >"$TMP/nfs.json"
python3 - "$TMP/nfs.json" "$TMP/nfs.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["nfs"]
text = open(sys.argv[2]).read()
slow = d["slowest"]
assert slow, "the sample has calls"
first = min(s["call_ns"] - s["call_offset_ns"] for s in slow)
for s in slow:
    assert s["call_ns"] - s["call_offset_ns"] == first, s
for s in slow[:5]:  # the text lists the five slowest
    assert "%10.6f s" % (s["call_offset_ns"] / 1e9) in text, s
assert d["first_call_ns"] == first, (d.get("first_call_ns"), first)
PY
[ $? -eq 0 ] || fail "nfs: offsets"

# times at and past 2^63 ns (issue #25 item 11): unsigned in the JSON (digits in a string past
# 2^63 - 1, never negative as they were), and the text's seconds exact, not through a double
printf '%s\n' "fio version 3 iolog" "9223372036854774 /dev/x add" \
	"9223372036854774 /dev/x open" "9223372036854774 /dev/x read 0 4096" \
	"9223372036854776 /dev/x read 4096 4096" "9223372036854776 /dev/x close" >"$TMP/late.iolog"
"$IOTAPE" analyze --json "$TMP/late.iolog" >"$TMP/late.json" || fail "late: analyze --json"
python3 - "$TMP/late.json" <<'PY' || fail "late: JSON times"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["start_ns"] == 9223372036854774000, d["start_ns"]
assert d["end_ns"] == "9223372036854776000", d["end_ns"]
assert d["span_ns"] == 2000, d["span_ns"]
PY
"$IOTAPE" analyze "$TMP/late.iolog" >"$TMP/late.txt" || fail "late: analyze"
grep -q "times in seconds from 9223372036.854774000 s" "$TMP/late.txt" ||
	fail "late: $(grep 'times in seconds' "$TMP/late.txt")"
exit 0
