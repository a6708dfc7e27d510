# SPDX-License-Identifier: MIT
# Capture gaps in both directions (#12 item 12): frames deleted from the middle of the real
# sample with editcap. The calls and replies after a gap are matched as tshark matches them
# (per procedure: calls and mean response time equal), every gap is a timestamped event, and
# a procedure no reply answered shows no response time in the text (not 0 ns).
source "$SRCDIR/tests/integration/lib.bash"
require_cmd() { command -v "$1" >/dev/null 2>&1 || fail "$1 missing (scripts/deps.sh installs it)"; }
require_cmd tshark
require_cmd editcap
SAMPLE=$SRCDIR/samples/nfs/run/net.pcap
for r in 50-55 100-110 150-153 200-230 250-260 300-301 340-349; do
	editcap "$SAMPLE" "$TMP/gap.pcap" "$r"
	"$IOTAPE" analyze --json "$TMP/gap.pcap" >"$TMP/gap.json"
	for v in 3 4; do
		tshark -o tcp.try_heuristic_first:TRUE -q -z "rpc,srt,100003,$v" -r "$TMP/gap.pcap" \
			>"$TMP/tshark$v.txt" 2>/dev/null
		python3 "$SRCDIR/tests/integration/nfs_compare.py" "$TMP/gap.json" \
			"$TMP/tshark$v.txt" "$v" --unanswered-ok >/dev/null ||
			fail "frames $r deleted: NFSv$v differs"
	done
	python3 - "$TMP/gap.json" "$r" <<'PY' || fail "frames $r deleted: events"
import json, sys
n = json.load(open(sys.argv[1]))["nfs"]
gaps = [e for e in n["events"]["list"] if e["type"] == "gap"]
assert gaps and n["events"]["counts"]["gap"] == len(gaps), n["events"]
assert sum(e["bytes"] for e in gaps) <= n["stream"]["lost_bytes"], (gaps, n["stream"])
assert all(e["ns"] >= n["input"]["first_ns"] and e["to_port"] for e in gaps), gaps
PY
done

# the MKDIR's only reply deleted: its row has a call, no reply and no response time
frame=$(tshark -o tcp.try_heuristic_first:TRUE -r "$SAMPLE" -Y "rpc.msgtyp == 1 && nfs.procedure_v3 == 9" \
	-T fields -e frame.number 2>/dev/null | head -1)
[ -n "$frame" ] || fail "no MKDIR reply in the sample"
editcap "$SAMPLE" "$TMP/noreply.pcap" "$frame"
"$IOTAPE" analyze "$TMP/noreply.pcap" >"$TMP/noreply.txt"
row=$(grep -E "^NFS +3 +MKDIR " "$TMP/noreply.txt") || fail "no MKDIR row: $(cat "$TMP/noreply.txt")"
read -r -a f <<<"$row"
[ "${f[3]}" = 1 ] || fail "MKDIR calls: $row"
for i in 6 7 8 9 10 11 12; do
	[ "${f[$i]}" = "-" ] || fail "MKDIR without a reply shows a time: $row"
done
echo ok
