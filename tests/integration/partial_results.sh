# SPDX-License-Identifier: MIT
# Bad bytes in the middle of a trace or capture, in report and compare as in analyze: exit 2,
# the error (file, offset, record) last, a warning, and what was read before the bad bytes
# reported, marked partial.
source "$SRCDIR/tests/integration/lib.bash"
ORACLE="$SRCDIR/tests/integration/analyze_oracle.py"
cd "$TMP"

python3 "$ORACLE" records good.bin 10
{ head -c 480 good.bin; printf 'this is not a blktrace record at all, no way!!!!'; } >mid.bin
python3 - "$SRCDIR/samples/nfs/run/net.pcap" big.pcap <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = 24
for _ in range(49):
    off += 16 + struct.unpack("<I", d[off + 8:off + 12])[0]
d[off + 8:off + 16] = b"\xff" * 8
open(sys.argv[2], "wb").write(d)
PY

# stopped WHAT PATTERN: exit 2 (in $rc), the error last, a partial-results warning before it
stopped() {
	expect_eq "$1: exit status" "$rc" 2
	tail -1 err | grep -Eq "$2" || fail "$1: last message '$(tail -1 err)' does not match '$2'"
	grep -q "warning: .*partial results" err || fail "$1: no partial-results warning: $(cat err)"
}
MID="'mid.bin': bad magic 0x[0-9a-f]+ at offset 480 \(record 11\)$"
BIG="'big.pcap': .* at offset [0-9]+ \(record 50\)$"

rc=0; "$IOTAPE" report mid.bin -o mid.html 2>err || rc=$?
stopped "report, trace" "$MID"
grep -q "partial results" mid.html || fail "report, trace: the page does not say partial"
rc=0; "$IOTAPE" report big.pcap -o big.html 2>err || rc=$?
stopped "report, capture" "$BIG"
grep -q "partial results" big.html || fail "report, capture: the page does not say partial"

rc=0; "$IOTAPE" compare --format csv mid.bin "$SRCDIR/samples/ext4" >mid.csv 2>err || rc=$?
stopped "compare, trace" "$MID"
[ "$(grep -c '^mbps,' mid.csv)" = 2 ] || fail "compare, trace: no table of both runs: $(cat mid.csv)"
rc=0; "$IOTAPE" compare --format csv big.pcap >big.csv 2>err || rc=$?
stopped "compare, capture" "$BIG"
grep -q "^nfs" big.csv || fail "compare, capture: no NFS rows: $(cat big.csv)"

# a saved summary of a partial analysis: compare warns that it is partial
rc=0; "$IOTAPE" analyze --json mid.bin >partial.json 2>/dev/null || rc=$?
expect_eq "analyze, trace: exit status" "$rc" 2
"$IOTAPE" compare partial.json >/dev/null 2>err || fail "compare of a saved partial summary: $(cat err)"
grep -q "warning: 'partial.json': partial results" err || fail "no warning for a partial summary: $(cat err)"
echo "partial_results: ok"
