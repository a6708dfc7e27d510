#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# More devices than the block pass keeps apart (4096): every output says that events were not
# analyzed (text, stderr, JSON, compare, report), and memory stays bounded: 1.4 MB of such a
# trace took 1.66 GB when each device's histograms took their 30 KiB at once.
source "$SRCDIR/tests/integration/lib.bash"

# many_devices OUT APART_NS: 10000 devices, one write each (Q, D, C), APART_NS apart
many_devices() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
WRITE, QUEUE, ISSUE, COMPLETE, FS = 2, 16, 64, 128, 256
recs, seq = [], 0
for d in range(10000):
    t = 1000000 + d * int(sys.argv[2])
    for act, cat, dt in ((1, QUEUE, 0), (7, ISSUE, 10000), (8, COMPLETE, 30000)):
        seq += 1
        recs.append(struct.pack("<IIQQIIIIIHH", 0x65617407, seq, t + dt, 4096, 4096,
                                (WRITE | cat | FS) << 16 | act, 77,
                                (8 + d // 256) << 20 | d % 256, 0, 0, 0))
open(sys.argv[1], "wb").write(b"".join(recs))
PY
}
# 1.44 MB, as in the report of the problem
many_devices "$TMP/many.blktrace.0" 100
# events of the devices past the 4096th: 3 records each
dropped=$(((10000 - 4096) * 3))

# analyze's text and stderr, and its peak memory (ru_maxrss of the child)
python3 - "$IOTAPE" "$TMP" <<'PY' || fail "analyze"
import resource, subprocess, sys
iotape, tmp = sys.argv[1], sys.argv[2]
with open(tmp + "/out.txt", "w") as out, open(tmp + "/err.txt", "w") as err:
    rc = subprocess.call([iotape, "analyze", tmp + "/many.blktrace.0"], stdout=out, stderr=err)
assert rc == 0, rc
open(tmp + "/rss", "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
grep -q "^not analyzed: $dropped events on devices past the first 4096 " "$TMP/out.txt" ||
	fail "text: $(head -3 "$TMP/out.txt")"
grep -q "warning: $dropped events on devices past the first 4096 were not analyzed" \
	"$TMP/err.txt" || fail "analyze stderr: $(cat "$TMP/err.txt")"
# sanitizer builds keep freed memory in quarantine and shadow it: the bound is a release one
if ! ldd "$IOTAPE" | grep -q libasan; then
	[ "$(cat "$TMP/rss")" -lt $((512 * 1024)) ] ||
		fail "analyze took $(cat "$TMP/rss") KiB for a 1.4 MB trace"
fi

"$IOTAPE" analyze --json "$TMP/many.blktrace.0" >"$TMP/many.json" 2>/dev/null
expect_eq "JSON count" "$(json "['events_dropped_devices']" "$TMP/many.json")" "$dropped"
expect_eq "JSON devices" "$(json "['devices'].__len__()" "$TMP/many.json")" 4096
json "['input']['warnings']" "$TMP/many.json" | grep -q "$dropped events on devices past" ||
	fail "no warning in the JSON document"

# compare says so for a saved summary and for a trace it analyzes itself
"$IOTAPE" compare "$TMP/many.json" "$TMP/many.blktrace.0" >/dev/null 2>"$TMP/cmp.err" ||
	fail "compare: $(cat "$TMP/cmp.err")"
expect_eq "compare warnings" "$(grep -c "$dropped events on devices past the first 4096" \
	"$TMP/cmp.err")" 2

# report: on stderr, and in its Runs table
"$IOTAPE" report "$TMP/many.blktrace.0" -o "$TMP/r.html" 2>"$TMP/rpt.err" ||
	fail "report: $(cat "$TMP/rpt.err")"
grep -q "$dropped events on devices past the first 4096 were not analyzed" "$TMP/rpt.err" ||
	fail "report stderr: $(cat "$TMP/rpt.err")"
grep -q "$dropped events on devices past the first 4096 were not analyzed" "$TMP/r.html" ||
	fail "report: no note in the Runs table"

# the same devices over 10000 s: the timeline's bins are shared by the devices (4096 x 100000
# bins of 1 s took 1.36 GB in analyze, 888 MB in report), wider, the sums kept
many_devices "$TMP/long.blktrace.0" 1000000000
# peak_kib CMD...: the command's peak RSS (it must succeed)
peak_kib() {
	/usr/bin/time -f %M -o "$TMP/time" "$@" >/dev/null 2>"$TMP/err" || fail "$*: $(cat "$TMP/err")"
	tail -1 "$TMP/time"
}
a=$(peak_kib "$IOTAPE" analyze --json "$TMP/long.blktrace.0" -o "$TMP/long.json")
r=$(peak_kib "$IOTAPE" report "$TMP/long.blktrace.0" -o "$TMP/long.html")
# (the idle explainer compares the first 256 devices with each other, each of their listed gaps
# naming the 255 others in the JSON: 564 MB and 657 MB here, 333 MB and 427 MB at 64)
if ! ldd "$IOTAPE" | grep -q libasan; then
	[ "$a" -lt $((640 * 1024)) ] || fail "analyze took $a KiB for 4096 devices over 10000 s"
	[ "$r" -lt $((768 * 1024)) ] || fail "report took $r KiB for 4096 devices over 10000 s"
fi
python3 - "$TMP/long.json" <<'PY' || fail "the shared timeline"
import json, sys
d = json.load(open(sys.argv[1]))
tl = d["timeline"]
# the 4096 devices analyzed span 4096 s: 256 bins of 16 s
assert tl["max_bins"] == 256 and tl["bins"] == 256 and tl["widened"] == 4, tl
assert tl["interval_ns"] == 16 * tl["requested_interval_ns"], tl
for dev in d["devices"]:
    assert len(dev["timeline"]) == tl["bins"], len(dev["timeline"])
    assert sum(b["ios"] for b in dev["timeline"]) == 1, dev["dev"]
PY
exit 0
