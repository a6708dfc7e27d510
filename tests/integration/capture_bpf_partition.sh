#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A partition through the bpf backend at each level of detail, beside the blk tracer on the same
# partition: a loop device with an sfdisk table (losetup -P, else partx -a) and a scheduler,
# reads on both partitions; each capture of the second one holds its IOs and only its IOs, at
# the disk's sectors (the partition's start added, as the blk tracer records them), and the
# summary counts them alone.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd sfdisk
need_cmd python3
need_cmd bpftool
need_bpf

# the captures end before the loop device goes (cleanup runs the hooks in order)
PIDS=()
stop_captures() {
	local p
	for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
cleanup_hooks=(stop_captures "${cleanup_hooks[@]}")

truncate -s 64M "$TMP/disk.img"
printf 'label: gpt\n,16M\n,\n' | sfdisk -q "$TMP/disk.img" >/dev/null || fail "sfdisk failed"
LOOP=$(losetup -f --show -P "$TMP/disk.img") || skip "losetup -f failed: no free loop device"
LOOPNAME=$(basename "$LOOP")
P1=${LOOP}p1
P2=${LOOP}p2
for i in $(seq 20); do [ -b "$P2" ] && break; sleep 0.1; done
# a kernel without the table's parser (CONFIG_EFI_PARTITION unset: this machine's) reads no
# table itself: partx reads it and adds the partitions (BLKPG), as capture_stack.sh does
if [ ! -b "$P2" ]; then
	need_cmd partx
	partx -a "$LOOP" || fail "partx -a $LOOP failed"
	parts_cleanup() { partx -d "$LOOP" 2>/dev/null || true; }
	cleanup_hooks=(parts_cleanup "${cleanup_hooks[@]}")
fi
[ -b "$P1" ] && [ -b "$P2" ] || fail "no $P1, $P2 after losetup -P (and partx -a)"
command -v udevadm >/dev/null && udevadm settle 2>/dev/null || true
# a scheduler on the disk: its requests' places are their scheduler tags, by which the io and
# summary levels keep them in flight (capture/bpf/blk.bpf.c rq_slot(); capture_bpf.sh has the
# driver's tags, no scheduler)
if grep -qw mq-deadline "/sys/block/$LOOPNAME/queue/scheduler"; then
	echo mq-deadline >"/sys/block/$LOOPNAME/queue/scheduler"
else
	echo "note: no mq-deadline scheduler: the driver's tags only" >&2
fi
START=$(cat "/sys/class/block/$(basename "$P2")/start")
[ "$START" -gt 0 ] || fail "partition 2 starts at sector '$START'"

wait_tracer_free
"$IOTAPE" capture -o "$TMP/tr" -d "$P2" --backend tracefs -- sleep 600 2>"$TMP/tr.err" &
TR=$!
# wait_tracing_on looks at $LOOPNAME's enable: the tracer traces the whole disk's queue
wait_tracing_on "$TR"
PIDS+=("$TR")
for lv in events io summary; do
	"$IOTAPE" capture -o "$TMP/$lv" -d "$P2" --backend bpf --detail "$lv" -- sleep 600 \
		2>"$TMP/$lv.err" &
	PIDS+=($!)
	wait_bpf $!
done
# direct reads, one at a time: 24 of 4 KiB on partition 1, 16 on partition 2 from 4 MiB in,
# then 8 of 64 KiB on partition 2 from 8 MiB in (reads only: a write would have udev probe)
dd if="$P1" of=/dev/null bs=4k count=24 skip=100 iflag=direct status=none || fail "dd p1"
dd if="$P2" of=/dev/null bs=4k count=16 skip=1024 iflag=direct status=none || fail "dd p2"
sleep 0.3 # an idle gap of the partition's, with partition 1's reads done before it
dd if="$P2" of=/dev/null bs=64k count=8 skip=128 iflag=direct status=none || fail "dd p2 64k"
stop_captures
PIDS=()
tracing_is_off
for r in tr events io summary; do
	expect_eq "$r lost" "$(json '["counts"]["lost"]' "$TMP/$r/manifest.json")" "0"
done

python3 - "$TMP" "$(basename "$P2")" "$START" <<'EOF' || fail "the partition's IOs (above)"
import glob, json, struct, sys
tmp, name, start = sys.argv[1], sys.argv[2], int(sys.argv[3])
# the workload on partition 2, at the disk's sectors
want = sorted([(start + 8192 + 8 * i, 4096) for i in range(16)] +
              [(start + 16384 + 128 * i, 65536) for i in range(8)])

def records(run):
    out = []
    for f in glob.glob(f"{run}/{name}.blktrace.*"):
        b = open(f, "rb").read()
        i = 0
        while i + 48 <= len(b):
            magic, seq, t, sector, nbytes, action, pid, d, cpu, err, pl = struct.unpack_from(
                "<IIQQIIIIIHH", b, i)
            assert magic == 0x65617407, (f, i, hex(magic))
            i += 48 + pl
            if (action >> 16) & 0x400:  # notify
                continue
            out.append((action & 0xff, sector, nbytes))
    return out

bad = []
def eq(what, a, b):
    if a != b:
        bad.append(f"{what}:\n  got  {a}\n  want {b}")
for run in ("tr", "events", "io"):
    rec = records(f"{tmp}/{run}")
    for code, act in ((7, "D"), (8, "C")):
        eq(f"{run}: {act} records (sector, bytes)",
           sorted((s, n) for c, s, n in rec if c == code), want)
    # nothing outside the partition: every record with a sector is within it
    size = int(open(f"/sys/class/block/{name}/size").read())
    out = [r for r in rec if r[1] and not start <= r[1] <= start + size]
    eq(f"{run}: records outside the partition", out, [])
s = json.load(open(f"{tmp}/summary/summary.json"))
d = s["devices"][0]
eq("summary devices", len(s["devices"]), 1)
eq("summary reads", sum(b[1] - b[2] for b in d["bins"]), len(want))
eq("summary read bytes", sum(b[3] for b in d["bins"]), sum(n for _, n in want))
eq("summary d2c count", d["latency"]["count"], len(want))
# the seeks between the IOs: 15 sequential 4 KiB, a jump, 7 sequential 64 KiB
eq("summary seeks", (d["seeks"]["transitions"], d["seeks"]["sequential"]), (23, 22))
# the pause between the two reads is a gap of partition 2's (none of partition 1's IOs is
# still counted in flight)
if not any(e - s >= 250_000_000 for s, e in d["gaps"]):
    bad.append(f"summary: no idle gap of 250 ms or more: {d['gaps']}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF
echo PASS
