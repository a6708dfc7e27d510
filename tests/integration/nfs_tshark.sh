# SPDX-License-Identifier: MIT
# NFSv3 and NFSv4.0 traffic from libnfs against nfs-ganesha, captured on lo: per-procedure call
# counts equal tshark's rpc,srt exactly and mean response times agree within 1 us; the same
# capture gzip-compressed gives the same numbers.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/ganesha.bash"
require_cmd tshark
ganesha_start

capture_start "$TMP/nfs.pcap"
# two NFSv3 clients at once: interleaved connections, same XID ranges
"$TOOLS/nfsload" -v 3 -n 8 -s 262144 -b 32768 127.0.0.1 "$GANESHA_EXPORT" /d3 >/dev/null &
load=$!
"$TOOLS/nfsload" -v 3 -n 6 -s 65536 -b 8192 -m 4 127.0.0.1 "$GANESHA_EXPORT" /d3b >/dev/null
wait $load
# libnfs 4.0 cannot encode NFSv4 WRITEs over a few KiB: small IOs for v4
"$TOOLS/nfsload" -v 4 -n 4 -s 16384 -b 1024 127.0.0.1 /export /d4 >/dev/null
capture_stop

"$IOTAPE" analyze --json "$TMP/nfs.pcap" >"$TMP/nfs.json"
"$IOTAPE" analyze "$TMP/nfs.pcap" >"$TMP/nfs.txt"
grep -q "WRITE" "$TMP/nfs.txt" || fail "text output lacks WRITE"
for v in 3 4; do
	# RPC's heuristic first: libnfs binds a random privileged port, and tshark would take
	# 639 for MSDP or 635 for whatever is registered there before trying 2049
	tshark -o tcp.try_heuristic_first:TRUE -q -z "rpc,srt,100003,$v" -r "$TMP/nfs.pcap" \
		>"$TMP/tshark$v.txt" 2>/dev/null
	python3 "$SRCDIR/tests/integration/nfs_compare.py" "$TMP/nfs.json" "$TMP/tshark$v.txt" $v || {
		cat "$TMP/tshark$v.txt" >&2
		cp "$TMP/nfs.pcap" /tmp/iotape-nfs-failed.pcap
		fail "NFSv$v differs from tshark (capture kept in /tmp/iotape-nfs-failed.pcap)"
	}
done
expect_eq "lost bytes" "$(json '["nfs"]["stream"]["lost_bytes"]' "$TMP/nfs.json")" 0
expect_eq "unmatched replies" "$(json '["nfs"]["stream"]["unmatched_replies"]' "$TMP/nfs.json")" 0
expect_eq "clients" "$(json '["nfs"]["clients"]["by_address"][0]["address"]' "$TMP/nfs.json")" 127.0.0.1

# gzip: the same document
gzip -c "$TMP/nfs.pcap" >"$TMP/nfs.pcap.gz"
"$IOTAPE" analyze --json "$TMP/nfs.pcap.gz" >"$TMP/nfsgz.json"
python3 - "$TMP/nfs.json" "$TMP/nfsgz.json" <<'PY' || fail "gzip capture analyzed differently"
import json, sys
a, b = (json.load(open(f))["nfs"] for f in sys.argv[1:])
assert a["procedures"] == b["procedures"], "procedures differ"
assert b["input"]["gzip"] is True
PY

# a run directory holding net.pcap
mkdir -p "$TMP/run"
cp "$TMP/nfs.pcap" "$TMP/run/net.pcap"
"$IOTAPE" analyze --json "$TMP/run" >"$TMP/run.json"
python3 - "$TMP/nfs.json" "$TMP/run.json" <<'PY' || fail "run directory analyzed differently"
import json, sys
a, b = (json.load(open(f))["nfs"] for f in sys.argv[1:])
assert a["procedures"] == b["procedures"], "procedures differ"
PY
echo "ok"
