#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A run set of more devices than the idle explainer once compared (64 over all hosts, issue
# #30): 40 hosts, each idle_gen.py's "pair" (8,0 and 8,16, each busy exactly in the other's
# gaps), on one clock. `iotape analyze --json SET` explains every device's gaps: each has
# idle.explain, its gaps name the 79 other devices (those seen by the gap's end), and the last
# host's gaps are its other device's (busy 90 % of each, other_device_busy), as the first's are.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/lib_runset.bash"
cd "$TMP"

python3 "$SRCDIR/tests/integration/idle_gen.py" pair pair
# shellcheck disable=SC2046
make_runset set $(for i in $(seq 1 40); do echo "p$i=pair"; done)
"$IOTAPE" analyze --json set >a.json 2>a.err || fail "analyze of 40 hosts: $(cat a.err)"
python3 - a.json <<'EOF' || fail "analyze of 40 hosts x 2 devices: not every gap explained"
import json, sys
devs = json.load(open(sys.argv[1]))["devices"]
assert len(devs) == 80, len(devs)
for d in devs:
    name = "%s %s" % (d["host"], d["dev"])
    assert "explain" in d["idle"], name + ": no idle.explain"
    assert d["idle"]["longest"], name + ": no gap"
    # a gap names the devices seen by its end (one that began with the trace, fewer)
    seen = []
    for g in d["idle"]["longest"]:
        e = g.get("explain")
        assert e, name + ": a gap without explain"
        seen.append(len(e["devices"]))
        assert e["cause"] == "other_device_busy", (name, e["cause"])
        # its host's other device was busy through it, as every host's same-numbered one
        own = [o for o in e["devices"] if o["host"] == d["host"]]
        assert len(own) == 1 and own[0]["busy_pct"] > 85, (name, own)
    assert max(seen) == 79, (name, seen)
print("80 devices on 40 hosts: every gap explained by the 79 others")
EOF
echo ok
