# SPDX-License-Identifier: MIT
# Replies cut by the snaplen (#12 item 11): the real sample capture cut with editcap -s N.
# NFSv3 errors are counted from the status word when it was captured (as many as tshark
# finds), the text says that messages were cut, and NFSv4 COMPOUNDs cut before their main op
# are counted as COMPOUND_CUT, never renamed to a bookkeeping op (PUTFH) or to COMPOUND.
source "$SRCDIR/tests/integration/lib.bash"
require_cmd() { command -v "$1" >/dev/null 2>&1 || fail "$1 missing (scripts/deps.sh installs it)"; }
require_cmd tshark
require_cmd editcap
SAMPLE=$SRCDIR/samples/nfs/run/net.pcap
"$IOTAPE" analyze --json "$SAMPLE" >"$TMP/full.json"
for s in 96 128 160 200 300; do
	editcap -s "$s" "$SAMPLE" "$TMP/cut$s.pcap"
	"$IOTAPE" analyze --json "$TMP/cut$s.pcap" >"$TMP/cut$s.json"
	"$IOTAPE" analyze "$TMP/cut$s.pcap" >"$TMP/cut$s.txt"
	grep -q "cut by the snaplen" "$TMP/cut$s.txt" || fail "snaplen $s: the text does not say so"
	tshark -o tcp.try_heuristic_first:TRUE -r "$TMP/cut$s.pcap" \
		-Y "rpc.msgtyp == 1 && rpc.programversion == 3 && nfs.status != 0" \
		-T fields -e nfs.procedure_v3 >"$TMP/err$s.txt" 2>/dev/null
	python3 - "$TMP/full.json" "$TMP/cut$s.json" "$TMP/err$s.txt" "$s" <<'PY' ||
import collections, json, sys
full, cut = (json.load(open(f))["nfs"] for f in sys.argv[1:3])
names = {1: "GETATTR", 3: "LOOKUP", 4: "ACCESS", 6: "READ", 7: "WRITE", 8: "CREATE"}
theirs = collections.Counter(names.get(int(p), p) for line in open(sys.argv[3])
                             for p in line.split(",") if line.strip())
rows = lambda d: {(p["version"], p["name"]): p for p in d["procedures"] if p["program"] == "NFS"}
f, c = rows(full), rows(cut)
mine = collections.Counter({k[1]: p["errors"] for k, p in c.items() if k[0] == "3" and p["errors"]})
assert mine == theirs, ("v3 errors", sys.argv[4], dict(mine), dict(theirs))
for k, p in c.items():
    if k[0] == "3":  # NFSv3 procedures are in the RPC header: never lost
        assert p["calls"] == f[k]["calls"], (k, p["calls"], f[k]["calls"])
    elif p["kind"] == "main_op":  # a v4 main op known from the captured part, or cut
        assert k in f and p["calls"] <= f[k]["calls"], (k, p["calls"])
assert not [k for k in c if k[1] in ("PUTFH", "SEQUENCE", "COMPOUND") and k not in f], c.keys()
v4 = lambda r: sum(p["calls"] for k, p in r.items() if k[0].startswith("4") and k[1] != "NULL")
assert v4(c) == v4(f), (v4(c), v4(f))
assert cut["stream"]["cut_replies"] > 0
PY
		fail "snaplen $s"
done
echo ok
