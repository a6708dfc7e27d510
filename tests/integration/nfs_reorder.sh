# SPDX-License-Identifier: MIT
# No false loss on lossless input (#12 item 13): a segment retransmitted after 1.5 MiB of
# later data (once inside a WRITE's data, once over a record marker), duplicates captured
# twice (tests/integration/nfs_reordergen.py). Nothing is lost, every call meets its reply,
# response times equal tshark's (with its out-of-order reassembly), and what the reordering
# cost (the most bytes held at once) is in the stream counters.
source "$SRCDIR/tests/integration/lib.bash"
command -v tshark >/dev/null || fail "tshark missing (scripts/deps.sh installs it)"
for held in 6 4; do
	read -r calls bytes < <(python3 "$SRCDIR/tests/integration/nfs_reordergen.py" \
		"$TMP/ro.pcap" 48 $((1536 * 1024)) "$held")
	"$IOTAPE" analyze --json "$TMP/ro.pcap" >"$TMP/ro.json"
	tshark -o tcp.try_heuristic_first:TRUE -o tcp.reassemble_out_of_order:TRUE -q \
		-z rpc,srt,100003,3 -r "$TMP/ro.pcap" >"$TMP/tshark.txt" 2>/dev/null
	python3 "$SRCDIR/tests/integration/nfs_compare.py" "$TMP/ro.json" "$TMP/tshark.txt" 3 ||
		fail "segment $held held back: differs from tshark"
	python3 - "$TMP/ro.json" "$calls" "$bytes" <<'PY' || fail "segment $held held back"
import json, sys
n = json.load(open(sys.argv[1]))["nfs"]
s, calls, wbytes = n["stream"], int(sys.argv[2]), int(sys.argv[3])
assert s["lost_bytes"] == 0 and s["resyncs"] == 0, s
assert s["calls"] == s["replies"] == calls and s["unmatched_replies"] == 0, s
assert s["unmatched_calls"] == 0, s
assert n["procedures"][0]["write_bytes"] == wbytes, n["procedures"][0]
assert s["out_of_order_peak_bytes"] >= 1536 * 1024 and s["out_of_order_given_up"] == 0, s
assert n["events"]["counts"]["gap"] == 0, n["events"]["counts"]
PY
done
echo ok
