# SPDX-License-Identifier: MIT
# An NFS call from both ends (#30 items 4, 5): nfs-ganesha in one "host" (a network namespace
# with its own sshd, lib_hosts.bash), a libnfs client (tests/tools/nfsload) in another, both
# captured by `iotape capture --host h1::IFACE --host h2::IFACE` (packets only) into a run set;
# `iotape analyze SET` matches each call across the two captures and splits its time: the
# server's part must equal tshark's rpc.time at the server, the total tshark's at the client,
# per call (XID and connection), within 1 us; every call is matched (none dropped unsaid).
# Then the same with NFSv4 (COMPOUNDs through the pseudo root /export).
source "$SRCDIR/tests/integration/lib.bash"
# the test's own network namespace and /run (ganesha.bash), the hosts inside it
source "$SRCDIR/tests/integration/ganesha.bash"
source "$SRCDIR/tests/integration/lib_hosts.bash"
require_cmd tshark
cd "$TMP"
make_hosts 2
# h1 reaches h2 through this namespace (its own: the machine's forwarding is not touched)
sysctl -qw net.ipv4.ip_forward=1
NS2=${HOST_NS[2]}
SRV=${HOST_ADDR[2]}

# ganesha and its rpcbind in h2, one test server at a time on this machine (ganesha.bash)
ganesha_lock
ip netns exec "$NS2" rpcbind -w -f &
cleanup_hooks+=("kill $! 2>/dev/null; wait $! 2>/dev/null")
wait_port 111 50 "$SRV" "$NS2" || fail "rpcbind did not start in h2"
ganesha_conf "$GANESHA_EXPORT=/export"
ip netns exec "$NS2" ganesha.nfsd -F -f "$GANESHA_DIR/ganesha.conf" -L "$GANESHA_DIR/ganesha.log" \
	-p "$GANESHA_DIR/ganesha.pid" -N NIV_WARN &
cleanup_hooks+=("kill $! 2>/dev/null; wait $! 2>/dev/null")
wait_port 2049 100 "$SRV" "$NS2" || { cat "$GANESHA_DIR/ganesha.log" >&2; fail "ganesha did not start in h2"; }

# two_ends SET NFSLOAD_ARGS...: the client in h1, both ends captured (packets only), the
# command run here; the split checked against tshark's times at each end
two_ends() {
	local set=$1
	shift
	"$IOTAPE" capture -o "$set" --ssh-config "$SSH_CONFIG" \
		--host "h1::${HOST_IF[1]}" --host "h2::${HOST_IF[2]}" -- \
		ip netns exec "${HOST_NS[1]}" "$TOOLS/nfsload" "$@" >cap.out 2>cap.err || {
		cat cap.err >&2
		fail "$set: capture --host of the two ends failed"
	}
	for h in h1 h2; do
		[ -s "$set/$h/net.pcap" ] || fail "$set/$h/net.pcap missing: $(ls -R "$set")"
	done

	"$IOTAPE" analyze --json "$set" >ends.json 2>analyze.err || {
		cat analyze.err >&2
		fail "$set: analyze --json of the run set failed"
	}
	"$IOTAPE" analyze "$set" >ends.txt 2>>analyze.err || fail "analyze of the run set failed"
	grep -q "NFS calls seen from both ends" ends.txt || { cat ends.txt >&2; fail "no split in the text"; }
	grep -q "FLAGGED" ends.txt && { cat ends.txt >&2; fail "a call flagged beyond the clocks' bound"; }

	# each end's reply times as tshark sees them, by (client address, client port, XID)
	for h in h1 h2; do
		tshark -o tcp.try_heuristic_first:TRUE -r "$set/$h/net.pcap" -Y "rpc.msgtyp == 1" \
			-T fields -E 'separator=;' -E aggregator=, -e ip.dst -e tcp.dstport -e udp.dstport \
			-e rpc.xid -e rpc.time \
			>"tshark_$h.txt" 2>/dev/null || fail "tshark failed on $set/$h/net.pcap"
	done

	python3 - ends.json tshark_h1.txt tshark_h2.txt "$set" <<-'PY' || { cat ends.txt >&2; fail "$set: the split differs from tshark's times at each end"; }
	import json, sys
	from decimal import Decimal

	d = json.load(open(sys.argv[1]))["nfs_ends"]

	def times(path):
	    t = {}
	    for line in open(path):
	        addr, tport, uport, xids, secs = line.rstrip("\n").split(";")
	        port = tport or uport
	        for x, s in zip(xids.split(","), secs.split(",")):
	            t[(addr, int(port), int(x, 16))] = int(Decimal(s) * 1000000000)
	    return t

	cli, srv = times(sys.argv[2]), times(sys.argv[3])
	both = set(cli) & set(srv)
	calls = d["calls"]
	hosts = {h["host"]: h for h in d["hosts"]}
	assert d["calls_left_off"] == 0, d["calls_left_off"]
	assert len(both) >= 50, "only %d calls seen at both ends by tshark" % len(both)
	assert d["matched"] == len(calls) == len(both), (d["matched"], len(calls), len(both))
	assert d["unreplied"] == 0, d["unreplied"]
	assert hosts["h1"]["as_client"] == len(both) and hosts["h2"]["as_server"] == len(both), hosts
	# each end saw every call the other did: none unmatched
	assert hosts["h1"]["unmatched"] == 0 and hosts["h2"]["unmatched"] == 0, hosts
	TOL = 1000  # ns
	worst = 0
	for c in calls:
	    k = (c["client"], c["client_port"], c["xid"])
	    assert k in both, k
	    assert c["client_host"] == "h1" and c["server_host"] == "h2", c
	    ds, dt = abs(c["server_ns"] - srv[k]), abs(c["total_ns"] - cli[k])
	    worst = max(worst, ds, dt)
	    assert ds <= TOL, ("server part", c, srv[k])
	    assert dt <= TOL, ("total", c, cli[k])
	    assert c["rest_ns"] == c["total_ns"] - c["server_ns"], c
	    assert c["out_ns"] + c["back_ns"] == c["rest_ns"], c
	    assert c["flag"] != "beyond_alignment", c
	# the percentiles: of the same calls, per procedure
	n = sum(p["calls"] for p in d["procedures"])
	assert n == len(calls), (n, len(calls))
	for p in d["procedures"]:
	    assert p["server_ns"]["count"] == p["calls"] == p["total_ns"]["count"], p
	    assert p["server_ns"]["p50"] <= p["total_ns"]["p50"], p
	print(sys.argv[4] + ": %d calls matched, worst difference from tshark %d ns" % (len(calls), worst))
	PY
}

two_ends set -v 3 -n 4 -s 65536 -b 16384 -x "$SRV" "$GANESHA_EXPORT" /w3
# libnfs 4.0 cannot encode NFSv4 WRITEs over a few KiB: small IOs for v4 (as nfs_tshark.sh)
two_ends set4 -v 4 -n 4 -s 16384 -b 1024 "$SRV" /export /w4
exit 0
