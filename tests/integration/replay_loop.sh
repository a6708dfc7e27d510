#!/bin/bash
# SPDX-License-Identifier: MIT
# iotape replay onto a loop device, with each engine: unchanged without --allow-writes, the
# exact sequence with it; a mounted loop device, and one with a filesystem signature, are
# refused without --force.
source "$SRCDIR/tests/integration/lib.bash"
need_root
need_cmd losetup
need_cmd mkfs.ext4
need_cmd sha256sum

head -c $((64 << 20)) /dev/urandom >"$TMP/disk.img"
loop=$(losetup -f --show "$TMP/disk.img" 2>/dev/null) || skip "no loop devices"
cleanup_hooks+=("umount '$TMP/mnt' 2>/dev/null; losetup -d '$loop'")

gen="$TOOLS/replaygen"
"$gen" -o "$TMP/tr" -n sdb --ios 2000 --seed 3 --gap-us 300 --lat-us 500 --read-pct 60 \
	--flush-every 40 --span-mb 60
norm() {
	awk '{d=$3; if (d ~ /^F/ && $2 == 0) d="F"; else if (d ~ /D/) d="D";
	      else if (d ~ /W/) d="W"; else d="R"; print $1, $2, d}'
}
"$gen" dump "$TMP/tr/sdb" | norm >"$TMP/want"
orig=$(sha256sum <"$loop")
name=$(basename "$loop")

for eng in io_uring psync; do
	echo "== engine $eng"
	"$IOTAPE" replay --engine "$eng" --timing afap --json --target "$loop" "$TMP/tr/sdb" \
		>"$TMP/ro.json"
	expect_eq "$eng: errors" "$(json '["replay"]["errors"]' "$TMP/ro.json")" 0
	expect_eq "$eng: direct" "$(json '["options"]["direct"]' "$TMP/ro.json")" True
	expect_eq "$eng: checksum after a read-only replay" "$(sha256sum <"$loop")" "$orig"

	rm -rf "$TMP/rec"
	"$IOTAPE" replay --engine "$eng" --timing afap --allow-writes --json --record "$TMP/rec" \
		--target "$loop" "$TMP/tr/sdb" >"$TMP/rw.json"
	expect_eq "$eng: errors" "$(json '["replay"]["errors"]' "$TMP/rw.json")" 0
	"$gen" dump "$TMP/rec/$name" | norm >"$TMP/got"
	cmp -s "$TMP/want" "$TMP/got" || fail "$eng: recorded sequence differs from the trace's"
	expect_eq "$eng: manifest device" "$(json '["devices"][0]["name"]' "$TMP/rec/manifest.json")" "$name"

	# --map by name and by MAJ,MIN
	"$IOTAPE" replay --engine "$eng" --timing afap --json --map 8,16="$loop" "$TMP/tr/sdb" \
		>"$TMP/map.json"
	expect_eq "$eng: --map unmapped" "$(json '["skipped"]["unmapped"]' "$TMP/map.json")" 0
	"$IOTAPE" replay --engine "$eng" --timing afap --json --map sdx=/nonexistent "$TMP/tr/sdb" \
		>/dev/null 2>&1 && fail "$eng: --map with an unknown device name accepted"
	orig=$(sha256sum <"$loop")
done

# IOs longer than the device takes in one request are split by the kernel: counted (the
# prediction against the kernel's own view: replay_split.sh)
"$gen" -o "$TMP/big" -n sdb --ios 20 --seed 4 --gap-us 300 --lat-us 500 --read-pct 100 \
	--fixed-kb 2048 --span-mb 60
# what one request holds: max_sectors_kb (the replay's large buffers are on huge pages, so the
# segments do not bind first; without huge pages the prediction says it is an estimate)
max=$(($(cat /sys/block/"$name"/queue/max_sectors_kb) * 1024))
"$IOTAPE" replay --timing afap --json --target "$loop" "$TMP/big/sdb" >"$TMP/big.json"
if [ "$max" -lt $((2048 * 1024)) ]; then
	expect_eq "split IOs" "$(json '["replay"]["split"]["ios"]' "$TMP/big.json")" 20
	[ "$(json '["replay"]["split"]["estimate"]' "$TMP/big.json")" = True ] ||
		expect_eq "split requests" "$(json '["replay"]["split"]["requests"]' "$TMP/big.json")" \
			$((20 * ((2048 * 1024 + max - 1) / max)))
else
	expect_eq "split IOs" "$(json '["replay"]["split"]["ios_max"]' "$TMP/big.json")" 0
fi

# --capture: the kernel's view of the replay, through the capture module
# (the blk tracer is global: the capture tests' lock orders us among them; another capture
# running on this machine makes us wait our turn, and one that starts or stops meanwhile can
# cut ours short: then we try again)
exec 9>/tmp/iotape-capture-tests.lock
flock 9
# capture_replay TRACE MIN-D-EVENTS: replay TRACE onto the loop device with --capture
# $TMP/cap (--json into $TMP/cap.json); $TMP/cap.d: the captured D events
capture_replay() {
	local try
	for try in $(seq 20); do
		rm -rf "$TMP/cap" "$TMP/rec"
		rc=0
		"$IOTAPE" replay --timing afap --allow-writes --json --capture "$TMP/cap" \
			--record "$TMP/rec" --target "$loop" "$1" >"$TMP/cap.json" 2>"$TMP/err" || rc=$?
		[ $rc -ne 0 ] && grep -q "tracer is in use" "$TMP/err" && { sleep 3; continue; }
		[ $rc -eq 0 ] || break
		"$gen" dump "$TMP/cap" | norm >"$TMP/cap.d"
		[ "$(wc -l <"$TMP/cap.d")" -ge "$2" ] && break
		echo "capture attempt $try: $(wc -l <"$TMP/cap.d") D events, trying again" >&2
		sleep 3
	done
	expect_eq "--capture exit code ($(grep -v warning "$TMP/err" | head -2))" "$rc" 0
}
capture_replay "$TMP/tr/sdb" 2000
# the kernel saw every replayed IO (and the safety check's read of the first 68 KiB)
n=$(wc -l <"$TMP/cap.d")
[ "$n" -ge 2000 ] || fail "--capture saw $n D events, want at least 2000"
# every IO of the trace is among them (the device may dispatch in another order)
missing=$(comm -23 <(sort "$TMP/want") <(sort "$TMP/cap.d") | wc -l)
expect_eq "trace IOs missing from the capture" "$missing" 0
expect_eq "capture manifest format" "$(json '["format"]' "$TMP/cap/manifest.json")" iotape-run
# the replay's own comparison with its capture says the same, IO by IO (flushes have no
# range to follow and are left out)
nrange=$(awk '$3 != "F"' "$TMP/want" | wc -l)
python3 - "$TMP/cap.json" "$nrange" <<'PY' || fail "--capture fidelity: $(cat "$TMP/cap.json")"
import json, sys
f = json.load(open(sys.argv[1]))["fidelity"]
n = int(sys.argv[2])
assert f["ios"] == n, f
assert f["missing"] == 0 and f["split"] == 0, f
assert f["equal"] + f["merged"] == n, f
assert f["requests_seen"] >= n - f["merged"], f
print("fidelity:", f)
PY

# 2 MiB writes onto a device that takes less at once: split, as predicted, and the capture
# shows it
if [ "$max" -lt $((2048 * 1024)) ]; then
	"$gen" -o "$TMP/bigw" -n sdb --ios 20 --seed 4 --gap-us 300 --lat-us 500 --read-pct 0 \
		--fixed-kb 2048 --span-mb 60
	capture_replay "$TMP/bigw/sdb" 40
	expect_eq "predicted split IOs" "$(json '["replay"]["split"]["ios"]' "$TMP/cap.json")" 20
	expect_eq "split IOs seen" "$(json '["fidelity"]["split"]' "$TMP/cap.json")" 20
	# as many as the kernel issued (the prediction assumes a page per segment; physically
	# contiguous pages make fewer)
	expect_eq "their requests" "$(json '["fidelity"]["split_requests"]' "$TMP/cap.json")" \
		"$(awk '$3 == "W"' "$TMP/cap.d" | wc -l)"
	expect_eq "missing" "$(json '["fidelity"]["missing"]' "$TMP/cap.json")" 0
	expect_eq "sequence equal" "$(json '["fidelity"]["sequence_equal"]' "$TMP/cap.json")" False
fi
exec 9>&-

# a filesystem signature: refused without --force, replayed read-only with it
mkfs.ext4 -q -F "$loop"
rc=0
"$IOTAPE" replay --timing afap --target "$loop" "$TMP/tr/sdb" >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "formatted target exit code" "$rc" 3
grep -q "signature (ext4)" "$TMP/err" || fail "no signature message: $(cat "$TMP/err")"
"$IOTAPE" replay --timing afap --force --target "$loop" "$TMP/tr/sdb" >/dev/null 2>&1 ||
	fail "--force did not allow a read-only replay"

# mounted: refused, with and without --allow-writes, with each engine
mkdir -p "$TMP/mnt"
mount "$loop" "$TMP/mnt"
for eng in io_uring psync; do
	for w in "" --allow-writes; do
		rc=0
		"$IOTAPE" replay --engine "$eng" $w --timing afap --target "$loop" "$TMP/tr/sdb" \
			>/dev/null 2>"$TMP/err" || rc=$?
		expect_eq "mounted target ($eng $w) exit code" "$rc" 3
		grep -q "mounted on" "$TMP/err" || fail "no mount message: $(cat "$TMP/err")"
	done
done
# the backing file of a mounted loop device is refused too
rc=0
"$IOTAPE" replay --allow-writes --timing afap --target "$TMP/disk.img" "$TMP/tr/sdb" \
	>/dev/null 2>"$TMP/err" || rc=$?
expect_eq "backing file of a mounted loop device" "$rc" 3
umount "$TMP/mnt"
echo PASS
