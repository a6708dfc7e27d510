#!/bin/bash
# SPDX-License-Identifier: MIT
# iotape replay --timing original: the replay takes the trace's time (within 2 %), --speed
# divides it, and the issue lag stays small; with each engine.
source "$SRCDIR/tests/integration/lib.bash"

"$TOOLS/replaygen" -o "$TMP/tr" -n sdb --ios 800 --seed 9 --gap-us 2500 --jitter \
	--lat-us 300 --read-pct 80 --span-mb 60
truncate -s 64M "$TMP/target.img"

ratio_ok() { # FILE LO HI
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["replay"]["duration_ns"] / d["trace"]["duration_ns"]
lo, hi = float(sys.argv[2]), float(sys.argv[3])
print("duration ratio %.4f, lag p50 %d ns p99 %d ns" % (r, d["replay"]["issue_lag"]["p50_ns"],
      d["replay"]["issue_lag"]["p99_ns"]))
sys.exit(0 if lo <= r <= hi else 1)
PY
}

for eng in io_uring psync null; do
	echo "== engine $eng"
	"$IOTAPE" replay --engine "$eng" --json --target "$TMP/target.img" "$TMP/tr/sdb" \
		>"$TMP/orig.json"
	ratio_ok "$TMP/orig.json" 0.98 1.02 || fail "$eng: original timing off by more than 2 %"
	expect_eq "$eng: IOs" "$(json '["replay"]["ios"]' "$TMP/orig.json")" \
		"$(json '["replay"]["ios"]' "$TMP/orig.json")"
	# never early: issue lag is actual minus intended, a u64 histogram would show wrap-around
	p50=$(json '["replay"]["issue_lag"]["p50_ns"]' "$TMP/orig.json")
	[ "$p50" -lt 1000000 ] || fail "$eng: issue lag p50 ${p50} ns"

	"$IOTAPE" replay --engine "$eng" --speed 2 --json --target "$TMP/target.img" \
		"$TMP/tr/sdb" >"$TMP/fast.json"
	ratio_ok "$TMP/fast.json" 0.49 0.51 || fail "$eng: --speed 2 is not half the time"
done
echo PASS
