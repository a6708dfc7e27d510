#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packets with -i lo against a local TCP listener: net.pcap with nanosecond timestamps holds
# the conversation, the manifest counts it, and block tracing runs beside it.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd python3

make_loop 256M
make_fs ext4
echo "hello from iotape" >"$MNT/index.html"

PORT=$((20000 + RANDOM % 20000))
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$MNT" >/dev/null 2>&1 &
srv=$!
cleanup_hooks=("kill $srv" "${cleanup_hooks[@]}")
for _ in $(seq 50); do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null && break
	sleep 0.1
done

RUN="$TMP/run"
capture -o "$RUN" -d "$LOOP" -i lo --filter "tcp port $PORT" -- \
	python3 -c "import urllib.request as u
for i in range(5): assert b'hello' in u.urlopen('http://127.0.0.1:$PORT/index.html').read()" ||
	fail "capture exited $?"
tracing_is_off
[ -s "$RUN/net.pcap" ] || fail "no net.pcap"
magic=$(od -An -tx4 -N4 "$RUN/net.pcap" | tr -d ' ')
expect_eq "pcap magic (nanosecond)" "$magic" "a1b23c4d"
packets=$(json '["network"]["packets"]' "$RUN/manifest.json")
[ "$packets" -ge 20 ] || fail "only $packets packets captured for 5 HTTP requests"
expect_eq "packet drops" "$(json '["counts"]["packet_drops"]' "$RUN/manifest.json")" "0"
expect_eq "filter" "$(json '["network"]["filter"]' "$RUN/manifest.json")" "tcp port $PORT"
if command -v tshark >/dev/null; then
	n=$(tshark -r "$RUN/net.pcap" -Y "http.request" 2>/dev/null | wc -l)
	expect_eq "HTTP requests seen by tshark" "$n" "5"
fi
# one timeline: every block record (trace clock) and every packet (wall clock, mapped through
# the manifest's clock pairs) falls between the run's start and end
python3 - "$RUN" <<'PY' || fail "clock alignment"
import glob, json, struct, sys
run = sys.argv[1]
m = json.load(open(run + "/manifest.json"))
s, e = m["clock"]["start"], m["clock"]["end"]
lo, hi = s["trace_ns"], e["trace_ns"]
n = 0
for f in glob.glob(run + "/*.blktrace.*"):
    d = open(f, "rb").read()
    off = 0
    while off + 48 <= len(d):
        t = struct.unpack_from("<Q", d, off + 8)[0]
        assert lo <= t <= hi, (f, t, lo, hi)
        n += 1
        off += 48 + struct.unpack_from("<H", d, off + 46)[0]
assert n > 0
def to_trace(w):  # wall ns -> trace ns, offset interpolated between the pairs
    o0, o1 = s["realtime_ns"] - s["trace_ns"], e["realtime_ns"] - e["trace_ns"]
    f = (w - s["realtime_ns"]) / max(e["realtime_ns"] - s["realtime_ns"], 1)
    return w - (o0 + (o1 - o0) * min(max(f, 0), 1))
d = open(run + "/net.pcap", "rb").read()
assert struct.unpack_from("<I", d, 0)[0] == 0xa1b23c4d
off, k = 24, 0
while off + 16 <= len(d):
    sec, nsec, caplen = struct.unpack_from("<III", d, off)
    t = to_trace(sec * 10**9 + nsec)
    assert lo <= t <= hi, ("packet", k, t, lo, hi)
    off += 16 + caplen
    k += 1
assert k > 0
print("clock: %d block records and %d packets inside [%d, %d]" % (n, k, lo, hi))
PY

# packet-only capture (no -d) also works
capture -o "$TMP/run2" -i lo --filter "tcp port $PORT" -- \
	python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/index.html').read()" ||
	fail "packet-only capture exited $?"
[ "$(json '["network"]["packets"]' "$TMP/run2/manifest.json")" -ge 4 ] || fail "packet-only: too few packets"

# the default filter (issue #23 item 6): NFS/RPC whole, the headers of every other TCP and
# UDP packet: a big HTTP answer is in the capture with 128 bytes of each packet, a UDP
# datagram to port 2049 whole; the manifest says what was kept
head -c 200000 /dev/urandom >"$MNT/big.bin"
capture -o "$TMP/run3" -i lo -- python3 -c "import socket, urllib.request as u
assert len(u.urlopen('http://127.0.0.1:$PORT/big.bin').read()) == 200000
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(bytes(1000), ('127.0.0.1', 2049))" ||
	fail "default filter: capture exited $?"
python3 - "$TMP/run3" "$PORT" <<'PY' || fail "default filter"
import json, struct, sys
run, port = sys.argv[1], int(sys.argv[2])
m = json.load(open(run + "/manifest.json"))
kept = m["network"]["kept"]
assert [k["snaplen"] for k in kept] == [262144, 128], kept
assert kept[0]["filter"] == "port 2049 or port 111", kept
d = open(run + "/net.pcap", "rb").read()
off, http, http_bytes, nfs = 24, 0, 0, None
while off + 16 <= len(d):
    caplen, length = struct.unpack_from("<II", d, off + 8)
    fr = d[off + 16:off + 16 + caplen]
    if len(fr) >= 38 and fr[12:14] == b"\x08\x00":
        ihl = (fr[14] & 15) * 4
        sp, dp = struct.unpack_from("!HH", fr, 14 + ihl)
        if port in (sp, dp):
            http += 1
            http_bytes += length
            assert caplen <= 128, ("HTTP packet kept whole", caplen, length)
        if dp == 2049 and fr[23] == 17:
            nfs = (caplen, length)
    off += 16 + caplen
assert http >= 10 and http_bytes > 200000, (http, http_bytes)
assert nfs == (1042, 1042), nfs
print("default filter: %d HTTP packets (%d bytes on the wire) as headers, the NFS port's whole" % (http, http_bytes))
PY
# analyze counts the payload from the IP lengths: the headers-only packets' bytes are all there
"$IOTAPE" analyze --json "$TMP/run3" >/dev/null || fail "analyze of a headers-only capture"
echo "ok"
