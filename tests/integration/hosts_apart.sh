#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# analyze --hosts of runs not captured together warns (issue #27 item 8): two hosts whose
# traces, put on one clock by their manifests, lie 1200 s apart (far more than ten times the
# longer run, and not overlapping) get a warning on stderr and in input.warnings; the two hosts
# of idle_explain.sh, captured together, get none.
source "$SRCDIR/tests/integration/lib.bash"

cd "$TMP"
for h in hostA hostB; do python3 "$SRCDIR/tests/integration/idle_gen.py" $h $h; done
cp -r hostB late
python3 - late/manifest.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for k in ("start", "end"):
    m["clock"][k]["realtime_ns"] += 1200 * 10**9
json.dump(m, open(sys.argv[1], "w"))
PY
"$IOTAPE" analyze --json --hosts hostA hostB >together.json 2>together.err || fail "together"
! grep -q "captured together" together.err || fail "a warning for hosts captured together: $(cat together.err)"
"$IOTAPE" analyze --json --hosts hostA late >apart.json 2>apart.err || fail "apart"
grep -q "captured together" apart.err || fail "no warning for hosts 1200 s apart: $(cat apart.err)"
python3 - apart.json <<'PY' || fail "the warning is not in input.warnings"
import json, sys
w = json.load(open(sys.argv[1]))["input"]["warnings"]
assert any("captured together" in x for x in w), w
PY
echo PASS
