#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape capture's failures: a clear message, a distinct exit status, and nothing left
# enabled in the kernel on any of these paths.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"

make_loop 256M
make_fs ext4

# expect_fail STATUS PATTERN ARGS...: iotape ARGS exits STATUS and says PATTERN
expect_fail() {
	local want=$1 pat=$2 rc=0
	shift 2
	if [ "$1" = capture ]; then
		shift
		capture "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	else
		"$IOTAPE" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	fi
	expect_eq "exit status of: iotape $*" "$rc" "$want"
	grep -qi -- "$pat" "$TMP/err" || fail "iotape $*: message does not say '$pat': $(cat "$TMP/err")"
	tracing_is_off
}

expect_fail 2 "missing -o" capture -d "$LOOP" -- true
expect_fail 2 "no such file" capture -o "$TMP/r1" -d /dev/no-such-disk -- true
expect_fail 2 "not a block device" capture -o "$TMP/r2" -d /dev/null -- true
expect_fail 2 "interface 'nosuch0' not found" capture -o "$TMP/r3" -d "$LOOP" -i nosuch0 -- true
expect_fail 2 "filter" capture -o "$TMP/r3b" -d "$LOOP" -i lo --filter "port port" -- true
expect_fail 2 "--backend" capture -o "$TMP/r4" -d "$LOOP" --backend bogus -- true
# the relay path: refused where the kernel is in lockdown (as on the CI machines; auto then
# falls back to tracefs), a system error when asked for alone; elsewhere it must work
rc=0
capture -o "$TMP/r5" -d "$LOOP" --backend relay -- \
	dd if=/dev/zero of="$MNT/relay" bs=1M count=2 oflag=direct status=none 2>"$TMP/err" || rc=$?
if [ "$rc" -eq 0 ]; then
	expect_eq "relay backend" "$(json '["backend"]["name"]' "$TMP/r5/manifest.json")" "relay"
	[ "$(blkparse_kib "$TMP/r5" "Writes Completed")" -ge 2048 ] || fail "relay: writes missing"
else
	expect_eq "relay refused exit status" "$rc" "3"
	grep -q "relay: " "$TMP/err" || fail "relay: $(cat "$TMP/err")"
	grep -q "lockdown" "$TMP/err" || fail "relay: no lockdown hint: $(cat "$TMP/err")"
fi
tracing_is_off
# auto: bpf where the kernel runs it (capture_bpf.sh checks the fallback when it cannot)
capture -o "$TMP/r5b" -d "$LOOP" -- true 2>"$TMP/err" || fail "auto: exit $?"
expect_eq "auto's backend" "$(json '["backend"]["name"]' "$TMP/r5b/manifest.json")" "bpf"
# a run directory whose parents do not exist yet: created, as mkdir -p does
capture -o "$TMP/p1/p2/run" -d "$LOOP" -- true 2>"$TMP/err" || fail "-o a/b/c: $(cat "$TMP/err")"
expect_eq "-o a/b/c state" "$(json '["state"]' "$TMP/p1/p2/run/manifest.json")" "complete"
: >"$TMP/plainfile"
expect_fail 2 "is not a directory" capture -o "$TMP/plainfile/run" -d "$LOOP" -- true
# COMMAND not found: 127 like a shell; tracing was started and is off again
expect_fail 127 "no-such-command-xyz" capture -o "$TMP/r6" -d "$LOOP" -- no-such-command-xyz
expect_eq "r6 exit_status" "$(json '["command"]["exit_status"]' "$TMP/r6/manifest.json")" "127"
# not executable: 126
printf 'x' >"$TMP/noexec"
expect_fail 126 "permission denied" capture -o "$TMP/r7" -d "$LOOP" -- "$TMP/noexec"
# a run directory that already holds a capture
expect_fail 2 "already holds a capture" capture -o "$TMP/r6" -d "$LOOP" -- true
# the device is already being traced (someone else's blk trace): EBUSY for the tracefs
# backend, and their enable stays (bpf traces beside it)
echo 1 >/sys/block/"$LOOPNAME"/trace/enable
rc=0
"$IOTAPE" capture -o "$TMP/r8" -d "$LOOP" --backend tracefs -- true 2>"$TMP/err" || rc=$?
echo 0 >/sys/block/"$LOOPNAME"/trace/enable
expect_eq "busy device exit status" "$rc" "3"
grep -q "already being traced" "$TMP/err" || fail "busy: $(cat "$TMP/err")"
tracing_is_off
# not root
if command -v setpriv >/dev/null; then
	chmod 755 "$TMP"
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$IOTAPE" capture -o "$TMP/r9" -d "$LOOP" -- true 2>"$TMP/err" || rc=$?
	expect_eq "not root exit status" "$rc" "3"
	grep -q "needs root" "$TMP/err" || fail "not root: $(cat "$TMP/err")"
fi
# tracefs not mounted and not mountable: a private mount namespace without tracefs, and root
# without CAP_SYS_ADMIN (so the mount fails)
if command -v unshare >/dev/null && command -v setpriv >/dev/null; then
	rc=0
	unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null || umount -l /sys/kernel/tracing
		exec setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin \
			'$IOTAPE' capture -o '$TMP/r10' -d '$LOOP' --backend tracefs -- true" \
		2>"$TMP/err" || rc=$?
	expect_eq "tracefs not mountable exit status" "$rc" "3"
	grep -q "tracefs is not mounted" "$TMP/err" || fail "no tracefs: $(cat "$TMP/err")"
	tracing_is_off
fi
# disk full in RUNDIR: the capture stops with a system error, the command is stopped, the
# tracer is off, and what was written before is readable
mkdir -p "$TMP/full"
mount -t tmpfs -o size=256k tmpfs "$TMP/full"
cleanup_hooks=(cap_cleanup_full "${cleanup_hooks[@]}")
cap_cleanup_full() { umount "$TMP/full" 2>/dev/null || true; }
rc=0
capture -o "$TMP/full/run" -d "$LOOP" -- \
	dd if=/dev/zero of="$MNT/f" bs=4k count=200000 oflag=direct status=none 2>"$TMP/err" || rc=$?
expect_eq "disk full exit status" "$rc" "3"
grep -qi "no space left" "$TMP/err" || fail "disk full: $(cat "$TMP/err")"
tracing_is_off
# the manifest says how the capture ended, although the disk is full
expect_eq "disk full: manifest state" "$(json '["state"]' "$TMP/full/run/manifest.json")" "failed"
json '["error"]' "$TMP/full/run/manifest.json" | grep -qi "no space left" ||
	fail "disk full: the manifest's error does not say it"
expect_eq "disk full: command stopped" \
	"$(json '["command"]["exit_status"]' "$TMP/full/run/manifest.json")" "$((128 + 15))"
[ ! -e "$TMP/full/run/.manifest.reserve" ] || fail "disk full: the manifest's reserve is left"
# what fit is readable (the last record may be cut short: a warning, not an error)
blkparse -i "$TMP/full/run/$LOOPNAME" -d /dev/null >/dev/null || fail "disk full: blkparse failed"
"$IOTAPE" analyze "$TMP/full/run" >/dev/null 2>"$TMP/err" || fail "disk full: analyze: $(cat "$TMP/err")"
umount "$TMP/full"
echo "ok"
