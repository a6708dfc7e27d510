#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape sweep --host (issue #30 item 3): a sweep whose every run is a run set, on two "hosts"
# (network namespaces with their own sshd, lib_hosts.bash) that capture packets only (no blk
# tracer). 2 cells x 2 hosts: each run's set is complete, its metric and wall time read; compare
# of the sweep has a row per host and a column per cell; compare of the sweep with a run set of
# the same hosts has each cell as a set, host by host; report draws it; a run whose host's
# capture dies fails with that host's reason and the sweep goes on.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/lib_hosts.bash"
need_cmd tar
cd "$TMP"

make_hosts 2
H1="h1::${HOST_IF[1]}"
H2="h2::${HOST_IF[2]}"

# --- 2 cells (n=1,3) x 2 hosts: COMMAND reaches each host n times over ssh -------------------
"$IOTAPE" sweep -o sw --param n=1,3 --host "$H1" --host "$H2" \
	--capture-arg=--ssh-config="$SSH_CONFIG" -m 'calls=^calls ([0-9]+)$' -- sh -c "
	for i in \$(seq {n}); do ssh -F $SSH_CONFIG h1 true; ssh -F $SSH_CONFIG h2 true; done
	echo calls {n}" 2>sweep.err || fail "sweep --host: $(cat sweep.err)"
for n in 1 3; do
	run="sw/n=$n/rep-1"
	python3 - "$run" "$n" <<'EOF' || fail "sweep --host: run n=$n: $(cat "$run"/result.json "$run"/stderr)"
import json, sys, os
run, n = sys.argv[1], int(sys.argv[2])
r = json.load(open(run + "/result.json"))
assert r["state"] == "done" and r["exit_status"] == 0, r
assert r["metrics"]["calls"] == n, r
s = json.load(open(run + "/set/runset.json"))
assert s["complete"] is True, s
assert [h["name"] for h in s["hosts"]] == ["h1", "h2"], s["hosts"]
assert s["command"]["status"] == 0 and s["command"]["wall_ns"] > 0, s["command"]
# the sweep's wall time is the set's
assert r["wall_ns"] == s["command"]["wall_ns"], (r["wall_ns"], s["command"])
for h in ("h1", "h2"):
    m = json.load(open("%s/set/%s/manifest.json" % (run, h)))
    assert m["labels"]["n"] == str(n) and m["labels"]["rep"] == "1", m["labels"]
    assert os.path.getsize("%s/set/%s/net.pcap" % (run, h)) > 0, h
# COMMAND's output (with the hosts' greetings, lib_hosts.bash) is the run's
out = open(run + "/stdout").read()
assert out.endswith("calls %d\n" % n) and out.count("welcome to h2") == n, out
EOF
done
[ ! -e sw/n=1/rep-1/capture.log ] || fail "sweep --host: a capture.log beside the run set"

# compare SWEEPDIR: the hosts first, a row per host, a column per cell
"$IOTAPE" compare sw --metrics calls,wall_s --format json >c.json 2>c.err ||
	fail "compare of a sweep of run sets: $(cat c.err)"
python3 - c.json <<'EOF' || fail "compare of a sweep of run sets: $(cat c.json)"
import json, sys
d = json.load(open(sys.argv[1]))
g = {(x["params"]["host"], x["params"]["n"]): x for x in d["groups"]}
assert sorted(g) == [("h1", "1"), ("h1", "3"), ("h2", "1"), ("h2", "3")], list(g)
for (h, n), x in g.items():
    assert x["row"] == "host=" + h or x["row"] == h, x
    assert x["runs"] == ["sw/n=%s/rep-1/set/%s" % (n, h)], x
EOF

# a run set of the same hosts beside the sweep: each cell a set, host by host
"$IOTAPE" capture -o set --ssh-config "$SSH_CONFIG" --host "$H1" --host "$H2" -- \
	ssh -F "$SSH_CONFIG" h1 true 2>cap.err || fail "capture --host: $(cat cap.err)"
"$IOTAPE" compare sw set --format json >c2.json 2>c2.err ||
	fail "compare of a sweep with a run set: $(cat c2.err)"
python3 - c2.json <<'EOF' || fail "compare of a sweep with a run set: $(cat c2.json)"
import json, sys
d = json.load(open(sys.argv[1]))
g = {(x["params"]["host"], x["params"]["set"]): x for x in d["groups"]}
want = [(h, s) for h in ("h1", "h2") for s in ("set", "sw/n=1", "sw/n=3")]
assert sorted(g) == want, list(g)
for h in ("h1", "h2"):
    # the sweep came first: its first cell is every host's baseline
    assert g[(h, "set")]["baseline"] == g[(h, "sw/n=1")]["label"], g[(h, "set")]
    assert g[(h, "sw/n=3")]["runs"] == ["sw/n=3/rep-1/set/" + h], g[(h, "sw/n=3")]
EOF
"$IOTAPE" report sw -o sw.html 2>r.err || fail "report of a sweep of run sets: $(cat r.err)"
grep -q "host" sw.html || fail "report of a sweep of run sets: no host in it"

# --- a host whose capture dies mid-run: the run fails with its reason, the next one runs ----
# (its COMMAND kills h2's iotape; sequential: n=1 then n=2)
"$IOTAPE" sweep -o sw2 --param n=1,2 --order sequential --host "$H1" --host "$H2" \
	--capture-arg=--ssh-config="$SSH_CONFIG" -- sh -c "
	if [ {n} = 1 ]; then
		for p in \$(ip netns pids ${HOST_NS[2]}); do
			[ \"\$(cat /proc/\$p/comm 2>/dev/null)\" = iotape ] && kill -KILL \$p
		done
		sleep 0.5
	fi
	true" 2>sweep2.err || rc=$?
expect_eq "sweep --host, a host killed: exit status" "${rc:-0}" 1
python3 - sw2 <<'EOF' || fail "sweep --host, a host killed: $(cat sw2/n=*/rep-1/result.json)"
import json, sys
r1 = json.load(open(sys.argv[1] + "/n=1/rep-1/result.json"))
r2 = json.load(open(sys.argv[1] + "/n=2/rep-1/result.json"))
assert r1["state"] == "failed" and r1["error"].startswith("host h2 failed: "), r1
assert "status 137" in r1["error"], r1
assert r2["state"] == "done", r2
EOF
[ -s sw2/n=1/rep-1/set/h1/manifest.json ] || fail "a host killed: h1's run was not kept"
"$IOTAPE" compare sw2 --metrics wall_s --format json >c3.json 2>c3.err ||
	fail "compare of a sweep with a failed run: $(cat c3.err)"
grep -q "1 of 2 runs are in the tables; 1 failed" c3.err || fail "compare: $(cat c3.err)"

# --- usage: --host with -d, a parameter named host -------------------------------------------
rc=0
"$IOTAPE" sweep -o x --host "$H1" -d /dev/null -- true 2>x.err || rc=$?
expect_eq "sweep --host with -d" "$rc" 2
grep -q -- "--host captures on the hosts only" x.err || fail "sweep --host with -d: $(cat x.err)"
rc=0
"$IOTAPE" sweep -o x --host "$H1" --param host=a,b -- true 2>x.err || rc=$?
expect_eq "sweep --host with --param host" "$rc" 2
grep -q -- "--param host: with --host" x.err || fail "sweep --param host: $(cat x.err)"

echo ok
