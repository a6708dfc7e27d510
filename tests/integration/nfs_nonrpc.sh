#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Traffic that is not RPC beside NFS in one capture (a Ceph OSD host: messenger connections on
# 6800) is not NFS loss: a lossless capture reports no lost bytes, bad records or resyncs, and
# says how many connections and bytes were of another protocol; the NFS figures equal
# tshark's. A connection that carries RPC and loses bytes still counts them as lost.
source "$SRCDIR/tests/integration/lib.bash"
command -v tshark >/dev/null || fail "tshark missing (scripts/deps.sh installs it)"
read -r calls other < <(python3 "$SRCDIR/tests/integration/nfs_nonrpcgen.py" "$TMP/mix.pcap")
"$IOTAPE" analyze --json "$TMP/mix.pcap" >"$TMP/mix.json"
tshark -q -z rpc,srt,100003,3 -r "$TMP/mix.pcap" >"$TMP/tshark.txt" 2>/dev/null
python3 "$SRCDIR/tests/integration/nfs_compare.py" "$TMP/mix.json" "$TMP/tshark.txt" 3 ||
	fail "differs from tshark"
python3 - "$TMP/mix.json" "$calls" "$other" <<'PY' || fail "traffic that is not RPC"
import json, sys
s, calls, other = json.load(open(sys.argv[1]))["nfs"]["stream"], int(sys.argv[2]), int(sys.argv[3])
assert s["lost_bytes"] == 0 and s["bad_records"] == 0 and s["resyncs"] == 0, s
assert s["calls"] == s["replies"] == calls and s["unmatched_calls"] == 0, s
assert s["connections"] == 3 and s["non_rpc_connections"] == 2, s
assert s["non_rpc_bytes"] == other, (s, other)
PY
"$IOTAPE" analyze "$TMP/mix.pcap" >"$TMP/mix.txt"
grep -q "^stream: 3 connections (2 not RPC: $other bytes), 0 bytes lost" "$TMP/mix.txt" ||
	fail "text: $(grep '^stream' "$TMP/mix.txt")"

# the same NFS connection with a hole in its calls: those bytes are lost, as before
python3 - "$TMP/mix.pcap" "$TMP/hole.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
out, o, n = [d[:24]], 24, 0
while o < len(d):
    _, _, cl, _ = struct.unpack("<IIII", d[o:o + 16])
    rec = d[o:o + 16 + cl]
    o += 16 + cl
    sport = struct.unpack(">H", rec[16 + 34:16 + 36])[0]
    if sport == 801 and cl > 54:
        n += 1
        if n == 10:  # the tenth GETATTR call never reached the capture
            continue
    out.append(rec)
open(sys.argv[2], "wb").write(b"".join(out))
PY
"$IOTAPE" analyze --json "$TMP/hole.pcap" >"$TMP/hole.json"
python3 - "$TMP/hole.json" "$other" <<'PY' || fail "a hole in the RPC connection"
import json, sys
s = json.load(open(sys.argv[1]))["nfs"]["stream"]
assert s["lost_bytes"] > 0 and s["non_rpc_bytes"] == int(sys.argv[2]), s
assert s["non_rpc_connections"] == 2, s
PY
echo ok
