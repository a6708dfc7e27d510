#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Discards, write-zeroes and flushes each on their own line in analyze's text summary, not as
# writes (fstrim's discards read as "writes 34 ios 592 MiB"); JSON keeps blkparse's writes and
# adds data_writes, write_zeroes and flushes; MB/s is data; replay counts the trace alike.
source "$SRCDIR/tests/integration/lib.bash"

# a version 8 trace (write-zeroes has no category bit in version 7): Q, D and C per IO
python3 - "$TMP/ops.blktrace.0" <<'PY'
import struct, sys
READ, WRITE, FLUSH, QUEUE, ISSUE, COMPLETE, FS = 1, 2, 4, 16, 64, 128, 256
FUA, DISCARD, WZERO = 1 << 15, 1 << 13, 1 << 22
ios = ([(READ, 16)] * 3 + [(WRITE, 32)] * 3 + [(WRITE | FLUSH | FUA, 32)] +
       [(WRITE | DISCARD, 2048)] * 2 + [(WRITE | WZERO, 128)] * 2 + [(READ | FLUSH, 0)] * 3)
recs, seq = [], 0
for i, (flags, sectors) in enumerate(ios):
    t = 1000000 + i * 50000
    for act, cat, dt in ((1, QUEUE, 0), (7, ISSUE, 10000), (8, COMPLETE, 30000)):
        seq += 1
        recs.append(struct.pack("<IIQQIIQIIHH12x", 0x65617408, seq, t + dt,
                                0 if not sectors else 4096 * (i + 1), sectors * 512, 77,
                                (flags | cat | FS) << 16 | act, 8 << 20 | 16, 0, 0, 0))
open(sys.argv[1], "wb").write(b"".join(recs))
PY
"$IOTAPE" analyze "$TMP/ops" >"$TMP/out.txt"
"$IOTAPE" analyze --json "$TMP/ops" >"$TMP/out.json"
j() { json "['devices'][0]$1" "$TMP/out.json"; }

# JSON: blkparse's writes (discards and write-zeroes among them), and each kind apart
expect_eq "writes" "$(j "['writes']['ios']")" 8
expect_eq "data_writes" "$(j "['data_writes']['ios']") $(j "['data_writes']['bytes']")" "4 65536"
expect_eq "discards" "$(j "['discards']['ios']") $(j "['discards']['bytes']")" "2 2097152"
expect_eq "write_zeroes" "$(j "['write_zeroes']['ios']") $(j "['write_zeroes']['bytes']")" \
	"2 131072"
expect_eq "flushes" "$(j "['flushes']")" 3
expect_eq "reads" "$(j "['reads']['ios']")" 3
# MB/s and IOPS of the data only: 24 KiB of reads and 64 KiB of writes, 7 IOs
python3 - "$TMP/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
dev, span = d["devices"][0], d["span_ns"]
want = ((3 * 8192 + 65536) / span * 1e3, 7 / span * 1e9)
got = (dev["throughput"]["mbps"], dev["throughput"]["iops"])
assert all(abs(g - w) < 1e-9 * w for g, w in zip(got, want)), (got, want)
# the timeline's bins count the same data
tl = dev["timeline"]
got = [sum(b[k] for b in tl) for k in ("ios", "write_ios", "read_bytes", "write_bytes")]
assert got == [7, 4, 3 * 8192, 65536], got
PY

# text: writes are data; discards, write-zeroes and flushes on lines of their own
grep -Eq '^  reads +3 ios +24\.0 KiB +writes +4 ios +64\.0 KiB$' "$TMP/out.txt" ||
	fail "reads/writes line: $(cat "$TMP/out.txt")"
grep -Eq '^  discards +2 ios +2\.0 MiB covered \(no data: not in writes\)$' "$TMP/out.txt" ||
	fail "no discards line: $(cat "$TMP/out.txt")"
grep -Eq '^  w-zeroes +2 ios +128\.0 KiB covered \(no data: not in writes\)$' "$TMP/out.txt" ||
	fail "no write-zeroes line: $(cat "$TMP/out.txt")"
grep -Eq '^  flushes +3 requests \(no data\)$' "$TMP/out.txt" ||
	fail "no flushes line: $(cat "$TMP/out.txt")"
# a trace without them has no such lines
mkdir "$TMP/gen"
ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$TMP/gen" --ios 300 --seed 2 >/dev/null
"$IOTAPE" analyze "$TMP/gen" >"$TMP/gen.txt"
! grep -Eq '^  (discards|w-zeroes|flushes) ' "$TMP/gen.txt" || fail "lines for nothing"
# the samples' flushes are blkparse's completions of flush requests without data (C FN)
if command -v blkparse >/dev/null; then
	for fs in ext4 xfs btrfs; do
		want=$(cd "$TMP" && blkparse -q -i "$SRCDIR/samples/$fs/loop0" |
			awk '$6 == "C" && $7 ~ /^F/ && $9 != "+"' | wc -l)
		"$IOTAPE" analyze --json "$SRCDIR/samples/$fs" >"$TMP/$fs.json"
		expect_eq "$fs flushes" "$(json "['devices'][0]['flushes']" "$TMP/$fs.json")" "$want"
	done
fi

# replay counts the same trace's operations alike (read-only: nothing is written)
head -c $((16 << 20)) /dev/zero >"$TMP/target.img"
"$IOTAPE" replay --timing afap --json --target "$TMP/target.img" "$TMP/ops" \
	>"$TMP/replay.json" 2>/dev/null
expect_eq "replay's trace ops" "$(json "['trace']['ops']" "$TMP/replay.json")" \
	"{'read': 3, 'write': 4, 'flush': 3, 'discard': 2, 'write_zeroes': 2}"
echo PASS
