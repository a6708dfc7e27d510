#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape capture on ext4, xfs and btrfs: a dd of known size with O_DIRECT is all in the trace
# (within a metadata tolerance), blkparse reads the set, the manifest describes the mount,
# and tracing is off afterwards. Runs with tracefs and debugfs mounted (the other capture
# tests without): iotape must leave mounts it did not make alone.
CAPTURE_MOUNTED=1
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"

MIB=16
# Metadata written besides the data during the dd and the unmount-free run: journal commits
# (ext4, xfs log), inode and allocation updates, btrfs COW metadata and checksums. Measured at
# well under 1 MiB on ext4/xfs and about 1 MiB on btrfs; allowed: 4 MiB.
TOL=$((4 << 20))
for fs in ext4 xfs btrfs; do
	make_loop 512M
	make_fs "$fs"
	RUN="$TMP/run-$fs"
	capture -o "$RUN" -d "$LOOP" -- \
		dd if=/dev/zero of="$MNT/f" bs=1M count=$MIB oflag=direct status=none ||
		fail "$fs: capture exited $?"
	tracing_is_off
	bytes=$(written_bytes "$RUN")
	want=$((MIB << 20))
	echo "$fs: $bytes bytes written in the trace, $want by dd"
	[ "$bytes" -ge "$want" ] || fail "$fs: trace shows $bytes bytes written, dd wrote $want"
	[ "$bytes" -le $((want + TOL)) ] || fail "$fs: $bytes bytes written: more than $want + $TOL"
	# the files are a set blkparse reads, without skipped sequence numbers
	out=$(blkparse -i "$RUN/$LOOPNAME" -d /dev/null)
	grep -q "Skips: 0 forward" <<<"$out" || fail "$fs: blkparse reports skips"
	# and so does iotape's own reader (which counts notifies out, as the kernel does)
	"$IOTAPE" analyze "$RUN" >/dev/null 2>"$TMP/err" || fail "$fs: analyze: $(cat "$TMP/err")"
	! grep -q "missing" "$TMP/err" || fail "$fs: analyze sees gaps: $(cat "$TMP/err")"
	# process names: the dd's queue events carry [dd]
	out=$(blkparse -i "$RUN/$LOOPNAME")
	grep -q ' Q .*\[dd\]' <<<"$out" || fail "$fs: no PROCESS notify for dd"
	expect_eq "$fs state" "$(json '["state"]' "$RUN/manifest.json")" "complete"
	expect_eq "$fs fstype" "$(json '["devices"][0]["mounts"][0]["fstype"]' "$RUN/manifest.json")" "$fs"
	expect_eq "$fs exit" "$(json '["command"]["exit_status"]' "$RUN/manifest.json")" "0"
	expect_eq "$fs lost" "$(json '["counts"]["lost"]' "$RUN/manifest.json")" "0"
	# the trace's span, which a movie takes from the manifest: analyze's first and last event
	expect_eq "$fs span" "$(json '["devices"][0]["first_event_ns"]' "$RUN/manifest.json") $(
		json '["devices"][0]["last_event_ns"]' "$RUN/manifest.json")" "$("$IOTAPE" analyze \
		--json "$RUN" | python3 -c 'import json,sys; d=json.load(sys.stdin)
print(d["start_ns"], d["end_ns"])')"
	# and the sectors issued (the movie's offset axis): blkparse's issues with data
	expect_eq "$fs issued" "$(json '["devices"][0]["issued"]' "$RUN/manifest.json")" "$(
		blkparse -q -i "$RUN/$LOOPNAME" -a issue -f '%S %n\n' | awk '
		NF == 2 && $1 ~ /^[0-9]+$/ && $2 > 0 {
			if (!n++ || $1 < lo) lo = $1
			if ($1 + $2 > hi) hi = $1 + $2
		}
		END { printf "{'"'ios'"': %d, '"'lo_sector'"': %d, '"'end_sector'"': %d}\n", n, lo, hi }')"
	cap_cleanup
done

# the two tracefs readers (raw pages through libtracefs, the default; and trace_pipe with
# kernel-formatted records) capture the same IO
make_loop 512M
make_fs ext4
for reader in raw pipe; do
	RUN="$TMP/run-$reader"
	capture -o "$RUN" -d "$LOOP" --backend tracefs --reader $reader -- \
		dd if=/dev/zero of="$MNT/f-$reader" bs=1M count=$MIB oflag=direct status=none ||
		fail "reader $reader: capture exited $?"
	expect_eq "reader" "$(json '["backend"]["reader"]' "$RUN/manifest.json")" "$reader"
	bytes=$(written_bytes "$RUN")
	[ "$bytes" -ge $((MIB << 20)) ] && [ "$bytes" -le $(((MIB << 20) + TOL)) ] ||
		fail "reader $reader: $bytes bytes written"
done
tracing_is_off

# -a/--mask: only the categories asked for (issue and complete: D and C records)
RUN="$TMP/run-mask"
capture -o "$RUN" -d "$LOOP" -a issue,complete -- \
	dd if=/dev/zero of="$MNT/f-mask" bs=1M count=4 oflag=direct status=none ||
	fail "mask: capture exited $?"
actions=$(blkparse -q -i "$RUN/$LOOPNAME" -f "%a\n" -o "$TMP/mask.txt" >/dev/null &&
	sort -u "$TMP/mask.txt" | tr '\n' ' ')
expect_eq "actions with -a issue,complete" "$actions" "C D "
expect_eq "manifest act_mask" "$(json '["act_mask"]' "$RUN/manifest.json")" "issue,complete"
tracing_is_off

# two devices in one capture: one set per device, each with its own IO
truncate -s 64M "$TMP/disk2.img"
LOOP2=$(losetup -f --show "$TMP/disk2.img")
cleanup_hooks=("losetup -d $LOOP2" "${cleanup_hooks[@]}")
RUN="$TMP/run-two"
capture -o "$RUN" -d "$LOOP" -d "$LOOP2" -- sh -c "
	dd if=/dev/zero of='$MNT/f-two' bs=1M count=3 oflag=direct status=none &&
	dd if=/dev/zero of='$LOOP2' bs=1M count=5 oflag=direct status=none" ||
	fail "two devices: capture exited $?"
expect_eq "devices in manifest" "$(json '["devices"].__len__()' "$RUN/manifest.json")" "2"
kib1=$(blkparse_kib "$RUN" "Writes Completed")
kib2=$(LOOPNAME=$(basename "$LOOP2") blkparse_kib "$RUN" "Writes Completed")
[ "$kib1" -ge 3072 ] && [ "$kib1" -lt 7168 ] || fail "two devices: $LOOPNAME has $kib1 KiB"
expect_eq "second device KiB written" "$kib2" "5120"
tracing_is_off
expect_eq "$(basename "$LOOP2") trace/enable" "$(cat /sys/block/"$(basename "$LOOP2")"/trace/enable)" "0"
echo "ok"
