#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An idle gap's "IO waiting" and its explanation agree (issue #27 item 4): a gap whose ending
# request was queued before it was issued does not say "nothing waited on the device"; the
# explanation says how long the request waited, as the row's column does, in analyze's JSON,
# its text and the report's idle table.
source "$SRCDIR/tests/integration/lib.bash"

mkdir -p "$TMP/r"
ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$TMP/r" -n sdb --seed 1 --ios 3000 --gaps 3 \
	--gap-ms 300 >/dev/null
"$IOTAPE" analyze --json "$TMP/r" >"$TMP/a.json" || fail "analyze --json"
"$IOTAPE" analyze "$TMP/r" >"$TMP/a.txt" || fail "analyze"
"$IOTAPE" report "$TMP/r" -o "$TMP/r.html" || fail "report"
python3 - "$TMP/a.json" "$TMP/a.txt" "$TMP/r.html" <<'PY' || fail "IO waiting against the explanation"
import json, sys
gaps = json.load(open(sys.argv[1]))["devices"][0]["idle"]["longest"]
waited = [g for g in gaps if g["queued"] and g["queued_ns"] > 0]
assert waited, "no gap whose ending request waited: nothing to check"
for g in waited:
    for r in g["explain"]["reasons"]:
        assert "nothing waited" not in r["because"], r["because"]
    assert any("waited" in r["because"] for r in g["explain"]["reasons"]), g["explain"]
for name in sys.argv[2:]:
    assert "nothing waited on the device" not in open(name).read(), f"{name} says nothing waited"
PY
echo PASS
