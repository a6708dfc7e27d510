# SPDX-License-Identifier: MIT
# Several packet captures given together are merged by time (#12 item 6): the real sample
# split into two files (the NFSv3 connection, everything else; and by time), given in
# either order, and mixed formats (pcapng, gzip) give the NFS document of the whole capture.
source "$SRCDIR/tests/integration/lib.bash"
command -v editcap >/dev/null || fail "editcap missing (scripts/deps.sh installs it)"
command -v tshark >/dev/null || fail "tshark missing (scripts/deps.sh installs it)"
SAMPLE=$SRCDIR/samples/nfs/run/net.pcap
"$IOTAPE" analyze --json "$SAMPLE" >"$TMP/whole.json"

# by connection: the NFSv3 client's port in one file, the rest in the other
tshark -r "$SAMPLE" -Y "tcp.port == 639" -w "$TMP/a.pcap" 2>/dev/null
tshark -r "$SAMPLE" -Y "!(tcp.port == 639)" -w "$TMP/b.pcap" 2>/dev/null
# by time: the first 200 frames, then the rest (as pcapng, gzip-compressed)
editcap -r "$SAMPLE" "$TMP/t1.pcap" 1-200
editcap -F pcapng "$SAMPLE" "$TMP/t2.pcapng" 1-200
gzip "$TMP/t2.pcapng"

check() {
	local name=$1
	shift
	"$IOTAPE" analyze --json "$@" >"$TMP/$name.json" || fail "$name: exit status $?"
	python3 - "$TMP/whole.json" "$TMP/$name.json" "$#" <<'PY' || fail "$name: differs from the whole"
import json, sys
a, b = (json.load(open(f))["nfs"] for f in sys.argv[1:3])
assert len(b["input"]["files"]) == int(sys.argv[3]), b["input"]
assert b["input"]["frames"] == a["input"]["frames"], (b["input"], a["input"])
assert (b["input"]["first_ns"], b["input"]["last_ns"]) == (a["input"]["first_ns"], a["input"]["last_ns"])
for k in a:
    if k not in ("input", "events"):
        assert a[k] == b[k], k
PY
	"$IOTAPE" analyze "$@" >"$TMP/$name.txt" || fail "$name: text, exit status $?"
	grep -q "^NFS      3       READ " "$TMP/$name.txt" || fail "$name: text lacks the READ row"
}
check conn "$TMP/a.pcap" "$TMP/b.pcap"
check conn-reversed "$TMP/b.pcap" "$TMP/a.pcap"
check time "$TMP/t2.pcapng.gz" "$TMP/t1.pcap"
echo ok
