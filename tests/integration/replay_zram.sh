#!/bin/bash
# SPDX-License-Identifier: MIT
# iotape replay onto a RAM device (zram): the engine chosen for it (psync in RAM-device mode,
# the submitter doing IO itself) replays the exact sequence in afap mode and keeps the
# trace's clock in original mode.
source "$SRCDIR/tests/integration/lib.bash"
need_root
[ -e /sys/class/zram-control/hot_add ] || modprobe zram num_devices=0 2>/dev/null || true
[ -e /sys/class/zram-control/hot_add ] || skip "no zram"

id=$(cat /sys/class/zram-control/hot_add)
cleanup_hooks+=("echo $id >/sys/class/zram-control/hot_remove")
echo 256M >/sys/block/zram$id/disksize
dev=/dev/zram$id

gen="$TOOLS/replaygen"
# 4 KiB-aligned IOs: zram's logical block is 4 KiB
"$gen" -o "$TMP/tr" -n sdb --ios 20000 --seed 11 --gap-us 2 --lat-us 40 --read-pct 60 \
	--span-mb 200 --flush-every 500
norm() {
	awk '{d=$3; if (d ~ /^F/ && $2 == 0) d="F"; else if (d ~ /D/) d="D";
	      else if (d ~ /W/) d="W"; else d="R"; print $1, $2, d}'
}
"$gen" dump "$TMP/tr/sdb" | norm >"$TMP/want"

"$IOTAPE" replay --timing afap --allow-writes --json --record "$TMP/rec" --target "$dev" \
	"$TMP/tr/sdb" >"$TMP/afap.json"
expect_eq "engine for zram" "$(json '["options"]["engine"]' "$TMP/afap.json")" psync
expect_eq "errors" "$(json '["replay"]["errors"]' "$TMP/afap.json")" 0
expect_eq "unaligned" "$(json '["replay"]["unaligned_buffered"]' "$TMP/afap.json")" 0
"$gen" dump "$TMP/rec/zram$id" | norm >"$TMP/got"
cmp -s "$TMP/want" "$TMP/got" || fail "recorded sequence differs from the trace's"
[ "$(json '["replay"]["max_inflight"]' "$TMP/afap.json")" -le \
  "$(json '["trace"]["max_depth"]' "$TMP/afap.json")" ] || fail "deeper than the trace"
# IOs that overlapped in the trace went to the engine's threads, not all done inline
[ "$(json '["replay"]["inline"]' "$TMP/afap.json")" -lt 20000 ] || fail "overlapping IOs inline"

# original timing: 4000 IOs over 2 s
"$gen" -o "$TMP/slow" -n sdb --ios 4000 --seed 12 --gap-us 500 --jitter --lat-us 40 \
	--span-mb 200
"$IOTAPE" replay --allow-writes --json --target "$dev" "$TMP/slow/sdb" >"$TMP/orig.json"
python3 - "$TMP/orig.json" <<'PY' || fail "original timing off by more than 2 %"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["replay"]["duration_ns"] / d["trace"]["duration_ns"]
print("duration ratio %.4f, lag p50 %d ns, p99 %d ns" % (r, d["replay"]["issue_lag"]["p50_ns"],
      d["replay"]["issue_lag"]["p99_ns"]))
sys.exit(0 if 0.98 <= r <= 1.02 else 1)
PY
# a depth-1 trace: each IO done in the scheduler's own thread (the next one waited for it)
expect_eq "done inline" "$(json '["replay"]["inline"]' "$TMP/orig.json")" 4000
echo PASS
