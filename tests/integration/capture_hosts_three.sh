#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape capture --host on three "hosts" (network namespaces with their own sshd,
# lib_hosts.bash; issue #30 item 5 past two hosts): h1 traces a loop device (tracefs: one
# tracer a kernel), h2 and h3 capture packets only. COMMAND writes on h1, pauses while it talks
# to h2 and h3 over ssh, writes again; analyze SET puts the three hosts on one clock and
# explains h1's gap by the traffic h2 and h3 captured in it.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
source "$SRCDIR/tests/integration/lib_hosts.bash"
hosts_with_loops 3 64M

wait_tracer_free
"$IOTAPE" capture -o set --ssh-config "$SSH_CONFIG" --backend tracefs --host "h1:$LOOP" \
	--host "h2::${HOST_IF[2]}" --host "h3::${HOST_IF[3]}" -- sh -c "
	dd if=/dev/zero of=$LOOP bs=64k count=16 oflag=direct 2>/dev/null
	sleep 0.1
	for i in 1 2 3; do ssh -F $SSH_CONFIG h2 true; ssh -F $SSH_CONFIG h3 true; done
	sleep 0.1
	dd if=/dev/zero of=$LOOP bs=64k count=16 seek=16 oflag=direct 2>/dev/null" 2>err.txt ||
	fail "capture on three hosts: $(cat err.txt)"
cat err.txt >&2
python3 - set/runset.json "${HOST_IF[2]}" "${HOST_IF[3]}" <<'EOF' || fail "runset.json: $(cat set/runset.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["complete"] is True and r["command"]["status"] == 0, r
hs = r["hosts"]
assert [h["name"] for h in hs] == ["h1", "h2", "h3"], hs
assert all(h["status"] == "ok" and h["run"] == h["name"] for h in hs), hs
assert hs[1]["interface"] == sys.argv[2] and hs[2]["interface"] == sys.argv[3], hs
assert hs[1]["devices"] == [] and hs[2]["devices"] == [], hs
# any two of three hosts agree within the sum of the two largest errors
e = sorted(h["clock"]["error_ns"] for h in hs)
assert r["alignment_error_ns"] == e[-1] + e[-2], r["alignment_error_ns"]
EOF
for h in h2 h3; do
	[ -s "set/$h/net.pcap" ] || fail "$h: no packets came back"
done
tracing_is_off

"$IOTAPE" analyze --json set >an.json 2>an.err || fail "analyze of three hosts: $(cat an.err)"
python3 - an.json <<'EOF' || fail "analyze of three hosts: $(head -c 4000 an.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert [h["host"] for h in d["hosts"]] == ["h1", "h2", "h3"], d["hosts"]
devs = [x for x in d["devices"] if x["host"] == "h1"]
assert len(devs) == 1 and devs[0]["writes"]["ios"] >= 32, devs
assert not [x for x in d["devices"] if x["host"] != "h1"], d["devices"]
g = devs[0]["idle"]["longest"][0]
assert g["duration_ns"] > 150e6, g
net = {n["host"]: n for n in g["explain"]["network"]}
# the ssh sessions to h2 and h3 ran in h1's gap: each host's capture saw them there
for h in ("h2", "h3"):
    assert net[h]["packets"] > 10 and net[h]["bytes"] > 0, (h, g["explain"]["network"])
EOF

echo ok
