#!/bin/bash
# SPDX-License-Identifier: MIT
# The replay's split prediction (replay.split) against what the kernel did (--capture): on a
# RAM device, which takes a bio of any size, nothing is split; on a loop device, IOs of 4 KiB
# to 2 MiB (its max_sectors_kb 1280, max_segments 128) are predicted as the capture shows
# them, or the prediction says it is an estimate and the capture lies within its bounds (#25
# item 16: 46 IOs predicted split where the capture showed 26).
source "$SRCDIR/tests/integration/lib.bash"
need_root
need_cmd losetup
[ -e /sys/class/zram-control/hot_add ] || modprobe zram num_devices=0 2>/dev/null || true
[ -e /sys/class/zram-control/hot_add ] || skip "no zram"

gen="$TOOLS/replaygen"
# the blk tracer is global: the capture tests' lock orders us among them
exec 9>/tmp/iotape-capture-tests.lock
flock 9

# capture_replay TRACE TARGET: replay with --capture $TMP/cap, --json into $TMP/cap.json
# (another capture starting or stopping meanwhile can refuse or cut ours short: try again)
capture_replay() {
	local try rc
	for try in $(seq 20); do
		rm -rf "$TMP/cap"
		rc=0
		"$IOTAPE" replay --timing afap --allow-writes --json --capture "$TMP/cap" \
			--target "$2" "$1" >"$TMP/cap.json" 2>"$TMP/err" || rc=$?
		[ $rc -ne 0 ] && grep -q "tracer is in use" "$TMP/err" && { sleep 3; continue; }
		break
	done
	expect_eq "--capture exit code ($(grep -v warning "$TMP/err" | head -2))" "$rc" 0
}

# ---- zram: bio-based, completes in the caller; the kernel never splits for it
id=$(cat /sys/class/zram-control/hot_add)
cleanup_hooks+=("echo $id >/sys/class/zram-control/hot_remove")
echo 256M >/sys/block/zram$id/disksize
zram=/dev/zram$id
"$gen" -o "$TMP/z" -n sdb --ios 20 --seed 5 --gap-us 300 --lat-us 100 --fixed-kb 256 \
	--read-pct 50 --span-mb 200
capture_replay "$TMP/z/sdb" "$zram"
# what the kernel did: every IO queued whole, none split (X), on the zram device
"$gen" dump --action Q "$TMP/cap/zram$id" | awk '$2 == 262144' >"$TMP/zq"
expect_eq "256 KiB bios queued on zram" "$(wc -l <"$TMP/zq")" 20
expect_eq "splits on zram" "$("$gen" dump --action X "$TMP/cap/zram$id" | wc -l)" 0
expect_eq "predicted split IOs on zram" "$(json '["replay"]["split"]["ios"]' "$TMP/cap.json")" 0
expect_eq "predicted requests on zram" "$(json '["replay"]["split"]["requests"]' "$TMP/cap.json")" 0

# ---- a loop device: its queue's limits decide, and where the replay's buffers lie in memory
head -c $((64 << 20)) /dev/urandom >"$TMP/disk.img"
loop=$(losetup -f --show "$TMP/disk.img" 2>/dev/null) || skip "no loop devices"
cleanup_hooks+=("losetup -d '$loop'")
q=/sys/block/$(basename "$loop")/queue
echo "loop: max_sectors_kb $(cat $q/max_sectors_kb), max_segments $(cat $q/max_segments)," \
	"max_segment_size $(cat $q/max_segment_size)"
"$gen" -o "$TMP/l" -n sdb --ios 120 --seed 6 --gap-us 300 --lat-us 100 --max-kb 2048 \
	--read-pct 50 --span-mb 60
capture_replay "$TMP/l/sdb" "$loop"
python3 - "$TMP/cap.json" <<'PY' || fail "split prediction against the capture: $(cat "$TMP/cap.json")"
import json, sys
d = json.load(open(sys.argv[1]))
s, f = d["replay"]["split"], d["fidelity"]
print("predicted:", s)
print("captured: split %d into %d requests, missing %d" % (f["split"], f["split_requests"],
                                                          f["missing"]))
assert f["missing"] == 0 and f["merged"] == 0, f
assert f["split"] > 0, "nothing over the loop device's limits: the test sees nothing"
if not s.get("estimate"):
    assert s["ios"] == f["split"] and s["requests"] == f["split_requests"], (s, f)
else:
    assert s["ios"] <= f["split"] <= s["ios_max"], (s, f)
    assert s["requests"] <= f["split_requests"] <= s["requests_max"], (s, f)
PY
exec 9>&-
echo PASS
