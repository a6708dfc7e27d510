# SPDX-License-Identifier: MIT
# NFSv4.1/4.2 through the CLI on a synthetic session (tests/integration/nfs_v42gen.py: libnfs
# has no 4.1/4.2 and ganesha no COPY): COMPOUND count and mean response time equal tshark's;
# main ops, CB_OFFLOAD on the back channel matched to its COPY, READ_PLUS bytes, a fragmented
# and partly retransmitted WRITE, errors by status.
source "$SRCDIR/tests/integration/lib.bash"
command -v tshark >/dev/null || fail "tshark missing (scripts/deps.sh installs it)"
python3 "$SRCDIR/tests/integration/nfs_v42gen.py" "$TMP/v42.pcap"
"$IOTAPE" analyze --json "$TMP/v42.pcap" >"$TMP/v42.json"
tshark -o tcp.try_heuristic_first:TRUE -q -z rpc,srt,100003,4 -r "$TMP/v42.pcap" \
	>"$TMP/tshark4.txt" 2>/dev/null
python3 "$SRCDIR/tests/integration/nfs_compare.py" "$TMP/v42.json" "$TMP/tshark4.txt" 4 ||
	fail "NFSv4.2 differs from tshark"
python3 - "$TMP/v42.json" <<'PY' || fail "NFSv4.2 details"
import json, sys
n = json.load(open(sys.argv[1]))["nfs"]
rows = {(p["program"], p["version"], p["name"]): p for p in n["procedures"]}
for op in ("EXCHANGE_ID", "CREATE_SESSION", "LOOKUP", "OPEN", "WRITE", "COPY", "READ_PLUS",
           "CLONE", "ALLOCATE", "DEALLOCATE", "CLOSE", "DESTROY_SESSION"):
    assert ("NFS", "4.2", op) in rows, op
assert rows[("NFS", "4.2", "WRITE")]["write_bytes"] == 4096
assert rows[("NFS", "4.2", "WRITE")]["srt_ns"]["mean"] == 412000
assert rows[("NFS", "4.2", "READ_PLUS")]["read_bytes"] == 4096
assert rows[("NFS", "4.2", "LOOKUP")]["errors_by_status"] == {"NFS4ERR_NOENT": 1}
assert rows[("NFS_CB", "4.2", "CB_OFFLOAD")]["calls"] == 1
ops = {o["name"]: o["count"] for o in n["v4_ops"] if o["version"] == "4.2"}
assert ops["SEQUENCE"] == 10 and ops["PUTFH"] == 11 and ops["COPY"] == 1, ops
assert ops["GETATTR"] == 1, ops  # the one after the WRITE's 4 KiB of data is not seen
c = n["copy"]
assert (c["calls"], c["asynchronous"], c["callbacks"]) == (1, 1, 1), c
assert c["callback_bytes"] == 1 << 20
assert c["copy_to_callback_ns"]["mean"] == 295000, c
s = n["stream"]
assert s["tcp_retransmits"] == 1 and s["lost_bytes"] == 0 and s["unmatched_calls"] == 0, s
fh = n["files"]["by_ops"][0]
assert fh["fh"] == b"file-handle-0001".hex() and fh["size"] == 4096, fh
# opened by name under a handle never named (the session starts with PUTFH)
assert fh["path"] == "<fh:%s>/f" % b"root-handle-0001".hex(), fh["path"]
assert fh["read"]["bytes"] == 4096 and fh["write"]["bytes"] == 4096, fh
assert n["v4_op_errors"] == [{"version": "4.2", "name": "LOOKUP", "errors": 1,
                              "errors_by_status": {"NFS4ERR_NOENT": 1}}], n["v4_op_errors"]
assert n["slowest"][0]["name"] == "WRITE" and n["slowest"][0]["srt_ns"] == 412000
PY
echo ok
