# SPDX-License-Identifier: MIT
# Three libnfs clients (two NFSv3, one NFSv4.0; their own ports, uids and machine names)
# against nfs-ganesha at once: per connection, per AUTH_SYS uid/gid and per machine name the
# call counts and mean response times equal tshark's, the slowest calls are the top of
# tshark's rpc.time, the files are named as the generator named them, and the capture as
# pcap, pcapng, gzip and zstd gives the same NFS document.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/ganesha.bash"
require_cmd tshark
require_cmd editcap
require_cmd zstd
ganesha_start

# every TCP port: MOUNT's (its own port) gives the NFSv3 export's root handle and path
capture_start "$TMP/nfs.pcap" "tcp"
"$TOOLS/nfsload" -v 3 -n 6 -s 262144 -b 32768 -u 1001 -g 100 -H client-a \
	127.0.0.1 "$GANESHA_EXPORT" /a >/dev/null &
a=$!
"$TOOLS/nfsload" -v 3 -n 4 -s 65536 -b 8192 -m 4 -u 1002 -g 100 -H client-b \
	127.0.0.1 "$GANESHA_EXPORT" /b >/dev/null &
b=$!
"$TOOLS/nfsload" -v 4 -n 4 -s 16384 -b 1024 -u 1003 -g 200 -H client-c \
	127.0.0.1 /export /c >/dev/null
wait $a $b
capture_stop

"$IOTAPE" analyze --json --top 1000 "$TMP/nfs.pcap" >"$TMP/nfs.json"
TS=(tshark -o tcp.try_heuristic_first:TRUE -r "$TMP/nfs.pcap")
"${TS[@]}" -Y "rpc.msgtyp == 0 && rpc.program == 100003" -T fields -e tcp.srcport \
	-e rpc.xid -e rpc.auth.uid -e rpc.auth.gid -e rpc.auth.machinename >"$TMP/calls.tsv" 2>/dev/null
"${TS[@]}" -Y "rpc.msgtyp == 1 && rpc.program == 100003" -T fields -e tcp.dstport \
	-e rpc.xid -e rpc.time >"$TMP/replies.tsv" 2>/dev/null
"${TS[@]}" -q -z conv,tcp >"$TMP/conv.txt" 2>/dev/null
python3 "$SRCDIR/tests/integration/nfs_clients.py" "$TMP/nfs.json" "$TMP/calls.tsv" \
	"$TMP/replies.tsv" "$TMP/conv.txt" || {
	cp "$TMP/nfs.pcap" /tmp/iotape-nfs-clients-failed.pcap
	fail "clients differ from tshark (capture kept in /tmp/iotape-nfs-clients-failed.pcap)"
}

# the names nfsload used: DIR/fI created, renamed to DIR/gI, the odd ones removed
python3 - "$TMP/nfs.json" "$GANESHA_EXPORT" <<'PY' || fail "file names"
import json, sys
n = json.load(open(sys.argv[1]))["nfs"]
exp = sys.argv[2]
files = {f["path"]: f for f in n["files"]["by_ops"]}
want = {"%s/a/g%d" % (exp, i): i % 2 == 1 for i in range(6)}
want.update({"%s/b/g%d" % (exp, i): i % 2 == 1 for i in range(4)})
# the NFSv4 client's pseudo path /export is the NFSv3 clients' export (the same handle, but
# for nfs-ganesha's padding of v3 handles): one export, its files named from its path
want.update({"%s/c/g%d" % (exp, i): i % 2 == 1 for i in range(4)})
for p, removed in want.items():
    assert p in files, (p, sorted(files))
    assert files[p]["name_state"] == ("removed" if removed else "named"), files[p]
    assert files[p]["write"]["bytes"] > 0 and files[p]["read"]["bytes"] > 0, files[p]
assert not [p for p in files if "<fh:" in p], [p for p in files if "<fh:" in p]
assert n["files"]["names"]["refused"] == 0
# every file of client a: written and read sequentially, in 32 KiB IOs
for i in range(6):
    f = files["%s/a/g%d" % (exp, i)]
    assert f["write"]["sequential"] == f["write"]["ops"] == 8, f["write"]
    assert f["read"]["min_size"] == f["read"]["max_size"] == 32768, f["read"]
PY

# the same capture as pcapng, gzip and zstd: the same NFS document but for the input part
editcap -F pcapng "$TMP/nfs.pcap" "$TMP/nfs.pcapng"
gzip -c "$TMP/nfs.pcap" >"$TMP/nfs.pcap.gz"
zstd -q -c "$TMP/nfs.pcapng" >"$TMP/nfs.pcapng.zst"
for f in nfs.pcapng nfs.pcap.gz nfs.pcapng.zst; do
	"$IOTAPE" analyze --json --top 1000 "$TMP/$f" >"$TMP/$f.json"
	python3 - "$TMP/nfs.json" "$TMP/$f.json" <<'PY' || fail "$f analyzed differently"
import json, sys
a, b = (json.load(open(f))["nfs"] for f in sys.argv[1:])
for d in (a, b):
    del d["input"]
for k in a:
    assert a[k] == b[k], k
PY
done
echo ok
