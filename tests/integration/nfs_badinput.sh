# SPDX-License-Identifier: MIT
# Bad captures through the CLI: empty, truncated, non-capture bytes after a valid header,
# garbage gzip. No crash; a truncated file is a warning with the frames before it analyzed.
source "$SRCDIR/tests/integration/lib.bash"
SAMPLE=$SRCDIR/samples/nfs/run/net.pcap
[ -s "$SAMPLE" ] || fail "missing $SAMPLE"

# run_ok WANT_STATUS FILE: iotape analyze must exit with WANT_STATUS (not a signal)
run_status() {
	local rc=0
	"$IOTAPE" analyze --json "$2" >"$TMP/out.json" 2>"$TMP/err.txt" || rc=$?
	[ "$rc" -lt 128 ] || fail "$2: killed by signal $((rc - 128))"
	expect_eq "exit status for $(basename "$2")" "$rc" "$1"
}

# truncated in the middle of a record: warning, the rest analyzed
size=$(stat -c %s "$SAMPLE")
head -c $((size / 2 + 7)) "$SAMPLE" >"$TMP/trunc.pcap"
run_status 0 "$TMP/trunc.pcap"
grep -q "truncated" "$TMP/err.txt" || fail "no truncation warning: $(cat "$TMP/err.txt")"
python3 - "$TMP/out.json" <<'PY' || fail "truncated capture not analyzed"
import json, sys
n = json.load(open(sys.argv[1]))["nfs"]
assert n["input"]["truncated"] is True
assert sum(p["calls"] for p in n["procedures"]) > 10
PY

# a pcap header and then garbage frames: analyzed, nothing decoded, no crash
head -c 24 "$SAMPLE" >"$TMP/garbage.pcap"
head -c 200000 /dev/urandom >>"$TMP/garbage.pcap"
rc=0
"$IOTAPE" analyze --json "$TMP/garbage.pcap" >/dev/null 2>"$TMP/err.txt" || rc=$?
[ "$rc" -lt 128 ] || fail "garbage: killed by signal $((rc - 128))"

# the sample with its TCP payload bytes scrambled after the first 2000 bytes of every frame
python3 - "$SAMPLE" "$TMP/scrambled.pcap" <<'PY'
import random, struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
random.seed(4)
off = 24
while off + 16 <= len(d):
    cl = struct.unpack("<I", d[off + 8:off + 12])[0]
    s = off + 16
    for i in range(s + 66, min(s + cl, len(d)), 7):
        d[i] = random.randrange(256)
    off = s + cl
open(sys.argv[2], "wb").write(d)
PY
run_status 0 "$TMP/scrambled.pcap"

# gzip header with a broken body: an input error, not a crash
head -c 64 <(gzip -c "$SAMPLE") >"$TMP/broken.pcap.gz"
head -c 1000 /dev/urandom >>"$TMP/broken.pcap.gz"
rc=0
"$IOTAPE" analyze --json "$TMP/broken.pcap.gz" >/dev/null 2>"$TMP/err.txt" || rc=$?
[ "$rc" -lt 128 ] || fail "broken gzip: killed by signal $((rc - 128))"

# captures that start mid-stream: still the same numbers as tshark for what is left
command -v editcap >/dev/null || fail "editcap missing (Debian wireshark-common, with tshark)"
command -v tshark >/dev/null || fail "tshark missing (scripts/deps.sh installs it)"
{
	# frames cut by a small snaplen: headers decoded, counts still equal to tshark's
	for snap in 200 128 96; do
		editcap -s "$snap" "$SAMPLE" "$TMP/snap.pcap"
		run_status 0 "$TMP/snap.pcap"
		for v in 3 4; do
			tshark -o tcp.try_heuristic_first:TRUE -q -z "rpc,srt,100003,$v" \
				-r "$TMP/snap.pcap" >"$TMP/snap$v.txt" 2>/dev/null
			python3 "$SRCDIR/tests/integration/nfs_compare.py" "$TMP/out.json" \
				"$TMP/snap$v.txt" $v >/dev/null ||
				fail "snaplen $snap: NFSv$v differs from tshark"
		done
	done
	for start in 57 163 250; do
		editcap -r "$SAMPLE" "$TMP/mid.pcap" "$start-1000000"
		run_status 0 "$TMP/mid.pcap"
		tshark -o tcp.try_heuristic_first:TRUE -q -z rpc,srt,100003,3 -r "$TMP/mid.pcap" \
			>"$TMP/mid3.txt" 2>/dev/null
		python3 "$SRCDIR/tests/integration/nfs_compare.py" "$TMP/out.json" "$TMP/mid3.txt" 3 \
			>/dev/null || fail "mid-stream capture from frame $start differs from tshark"
	done
}

# a hostile capture (6000 connections stuck inside records, parked segments, an XID flood of
# LOOKUPs with long names, made-up programs, then 70000 answered calls past every table's
# cap): bounded memory, counted
python3 "$SRCDIR/tests/integration/nfs_floodgen.py" "$TMP/flood.pcap"
# peak RSS by GNU time (a fork of python3 would lend the child its own size, kept across exec)
/usr/bin/time -f %M -o "$TMP/time" "$IOTAPE" analyze --json "$TMP/flood.pcap" \
	>"$TMP/flood.json" || fail "flood: analyze failed"
rss=$(tail -1 "$TMP/time")
# sanitizer builds carry shadow memory: the bound is for normal builds (the start itself is
# about 6 MiB: tests/integration/lean_start.sh keeps FFmpeg's libraries out of it)
asan=$(nm -D "$IOTAPE" 2>/dev/null | grep -c __asan_init || true)
if [ "$asan" = 0 ]; then
	[ "$rss" -le $((64 * 1024)) ] || fail "flood: peak RSS $rss KiB > 64 MiB"
fi
python3 - "$TMP/flood.json" <<'PY' || fail "flood counters"
import json, sys
s = json.load(open(sys.argv[1]))["nfs"]["stream"]
assert s["evicted_connections"] > 0 and s["evicted_calls"] > 0, s
assert s["unmatched_calls"] == 40000 and s["lost_bytes"] > 0, s
assert s["rows_untracked"] > 0, s
n = json.load(open(sys.argv[1]))["nfs"]
assert s["machines_untracked"] > 0, s
f = n["files"]
assert f["tracked"] == f["cap"] and f["evicted"] > 0 and f["names"]["untracked"] > 0, f
c = n["clients"]
for k in ("by_connection", "by_uid", "by_machine"):
    assert c["tracked"][k] == c["caps"][k] and c["other"][k]["calls"] > 0, (k, c["tracked"])
assert len(n["timeline"]) <= 2048 and n["interval_ns"] > 10**9, n["interval_ns"]
PY

# empty file named .pcap: an input error with the name in the message
: >"$TMP/empty.pcap"
rc=0
"$IOTAPE" analyze "$TMP/empty.pcap" >/dev/null 2>"$TMP/err.txt" || rc=$?
expect_eq "empty capture status" "$rc" 2
grep -q "empty.pcap" "$TMP/err.txt" || fail "message lacks the file name: $(cat "$TMP/err.txt")"
echo ok
