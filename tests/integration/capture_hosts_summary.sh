#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The summaries-on-host route of a run set (issue #30 item 6): iotape capture --host ...
# --detail summary on two hosts (network namespaces with their own sshd, lib_hosts.bash; each
# its loop device, bpf captures at once on one kernel) brings back each host's summary.json
# and manifest only, and analyze, report and compare read the set: every host's figures, the
# hosts on one clock. The bytes that came back are printed (docs/capture.md "Scale on paper").
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
source "$SRCDIR/tests/integration/lib_hosts.bash"
hosts_with_loops 2 64M 2

# h1 writes 20 x 64 KiB, then 0.5 s later h2 does
"$IOTAPE" capture -o set --ssh-config "$SSH_CONFIG" --backend bpf --detail summary \
	--interval 100ms --host "h1:$L1" --host "h2:$L2" -- sh -c "
	dd if=/dev/zero of=$L1 bs=64k count=20 oflag=direct 2>/dev/null
	sleep 0.5
	dd if=/dev/zero of=$L2 bs=64k count=20 oflag=direct 2>/dev/null" 2>err.txt ||
	fail "capture at --detail summary on two hosts: $(cat err.txt)"
cat err.txt >&2
for h in h1 h2; do
	[ -s "set/$h/summary.json" ] || fail "$h: no summary.json came back"
	[ -s "set/$h/manifest.json" ] || fail "$h: no manifest came back"
	! ls set/$h/*.blktrace.* 2>/dev/null || fail "$h: a block trace at --detail summary"
	expect_eq "$h's level" "$(json '["detail"]["level"]' "set/$h/manifest.json")" summary
	echo "$h brought back $(tar -C "set/$h" -cf - . | wc -c) bytes (tar stream)" >&2
done

# analyze SET: each host's figures, the hosts on one clock (h2's first IO 0.5 s after h1's)
"$IOTAPE" analyze --json set >an.json 2>an.err || fail "analyze of a set of summaries: $(cat an.err)"
python3 - an.json <<'EOF' || fail "analyze SET: $(head -c 3000 an.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert [h["host"] for h in d["hosts"]] == ["h1", "h2"], d["hosts"]
assert d["detail"]["level"] == "summary", d.get("detail")
assert d["timeline"]["interval_ns"] == 100_000_000, d["timeline"]
devs = {x["host"]: x for x in d["devices"]}
assert sorted(devs) == ["h1", "h2"], list(devs)
for h, x in devs.items():
    assert x["writes"]["ios"] >= 20 and x["writes"]["bytes"] >= 20 * 65536, (h, x["writes"])
    assert x["latency_ns"]["d2c"]["count"] >= 20, (h, x["latency_ns"])
# each host's start on the first host's clock: start_ns + offset_ns
s = {h["host"]: h["start_ns"] + h["offset_ns"] for h in d["hosts"]}
assert 0.4e9 <= s["h2"] - s["h1"] <= 5e9, s
assert d["start_ns"] == s["h1"], (d["start_ns"], s)
EOF
"$IOTAPE" analyze set >an.txt 2>an.err || fail "analyze (text) of a set of summaries: $(cat an.err)"
grep -q "^device .* on h2: " an.txt || fail "analyze SET (text): no device of h2: $(cat an.txt)"
grep -q "^captured at --detail summary" an.txt || fail "analyze SET (text): the level unsaid"

# report and compare read it too
"$IOTAPE" report set -o r.html 2>r.err || fail "report of a set of summaries: $(cat r.err)"
grep -q 'host h2 of the run set' r.html || fail "report: no row of h2"
cp -r set set2
"$IOTAPE" compare set set2 --metrics mbps --format json >c.json 2>c.err ||
	fail "compare of two sets of summaries: $(cat c.err)"
python3 - c.json <<'EOF' || fail "compare of two sets of summaries: $(cat c.json)"
import json, sys
d = json.load(open(sys.argv[1]))
g = sorted((x["params"]["host"], x["params"]["set"]) for x in d["groups"])
assert g == [("h1", "set"), ("h1", "set2"), ("h2", "set"), ("h2", "set2")], g
EOF

# a set of summaries and records together is analyzed apart, said so
mkdir mixed
cp -r set/h1 mixed/h1
python3 "$SRCDIR/tests/integration/idle_gen.py" hostB mixed/h2
cp set/runset.json mixed/
rc=0
"$IOTAPE" analyze mixed >/dev/null 2>mx.err || rc=$?
expect_eq "analyze of a set of summaries and records: exit status" "$rc" 2
grep -q "analyze them apart" mx.err || fail "analyze of a mixed set: $(cat mx.err)"

echo ok
