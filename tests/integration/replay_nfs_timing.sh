# SPDX-License-Identifier: MIT
# NFS replay timing and streams (#13), on synthetic NFSv3 captures (nfs_v3gen.py): on the
# capture's clock a replay never runs ahead of it (its span at least the capture's, divided
# by --speed), every call's issue lag is measured; two clients whose calls overlapped replay
# as two concurrent streams, with the two calls in flight at once; an NFSv4.2 session replays.
source "$SRCDIR/tests/integration/lib.bash"

python3 "$SRCDIR/tests/integration/nfs_v3gen.py" load "$TMP/l.pcap" 2000 16 500
for speed in 1 4; do
	mkdir "$TMP/t$speed"
	"$IOTAPE" replay --speed $speed --json "$TMP/l.pcap" --target "$TMP/t$speed" \
		>"$TMP/s$speed.json" 2>/dev/null || fail "replay at --speed $speed failed"
	python3 - "$TMP/s$speed.json" $speed <<'PY' || fail "--speed $speed"
import json, sys
d = json.load(open(sys.argv[1]))
speed = float(sys.argv[2])
r, c = d["replay"], d["capture"]
assert r["calls"] == 2000 and r["diverged"] == 0, r
assert r["issue_lag"]["count"] == r["calls"], r["issue_lag"]
# the last call is due at (its time - the first's) / speed: the replay cannot end before
span = c["duration_ns"] / speed
assert r["duration_ns"] >= 0.95 * span, (r["duration_ns"], span)
assert d["options"]["timing"] == "original" and d["options"]["speed"] == speed
PY
done

python3 "$SRCDIR/tests/integration/nfs_v3gen.py" streams "$TMP/st.pcap" 50
mkdir "$TMP/st"
"$IOTAPE" replay --timing afap --json "$TMP/st.pcap" --target "$TMP/st" >"$TMP/st.json" \
	2>/dev/null || fail "streams replay failed"
python3 - "$TMP/st.json" <<'PY' || fail "streams"
import json, sys
r = json.load(open(sys.argv[1]))["replay"]
assert r["streams"] == 2 and r["max_inflight"] == 2, r
assert r["diverged"] == 0 and r["calls"] == 103, r
PY
expect_eq "a's size" "$(stat -c %s "$TMP/st/a")" 204800
expect_eq "b's size" "$(stat -c %s "$TMP/st/b")" 204800

# an NFSv4.1/4.2 session (synthetic, nfs_v42gen.py): sessions and COPY/CLONE skipped by name,
# the rest replayed with the capture's outcomes (its failing LOOKUP included)
python3 "$SRCDIR/tests/integration/nfs_v42gen.py" "$TMP/v42.pcap"
mkdir "$TMP/v42"
"$IOTAPE" replay --timing afap --json "$TMP/v42.pcap" --target "$TMP/v42" >"$TMP/v42.json" \
	2>/dev/null || fail "v4.2 replay failed"
python3 - "$TMP/v42.json" <<'PY' || fail "v4.2"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["replay"]
assert r["diverged"] == 0 and r["refused"] == 0 and r["errors"] == 1, r
p = {x["name"]: x for x in d["procedures"]}
for op in ("EXCHANGE_ID", "CREATE_SESSION", "COPY", "CLONE", "CLOSE"):
    assert p[op]["skipped"] == p[op]["captured"] == 1, op
for op in ("OPEN", "WRITE", "READ_PLUS", "ALLOCATE", "DEALLOCATE"):
    assert p[op]["replayed"] == 1, op
PY
echo ok
