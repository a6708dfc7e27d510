#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGINT and SIGTERM in the middle of a capture: the files hold what was captured and are
# readable, the manifest says "interrupted", the command got the signal, and the tracer,
# its options and the device's enable are back off. Also --duration without a command.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"

make_loop 256M
make_fs ext4

for sig in INT TERM; do
	RUN="$TMP/run-$sig"
	# a writer that runs until it is told to stop: 256 KiB O_DIRECT writes over one region
	capture_bg "$RUN" python3 -c "
import os, mmap, time
fd = os.open('$MNT/f', os.O_WRONLY | os.O_CREAT | os.O_DIRECT)
buf = mmap.mmap(-1, 256 << 10)
while True:
    for off in range(0, 16 << 20, 256 << 10):
        os.pwrite(fd, buf, off)
    time.sleep(0.01)"
	sleep 2
	kill -"$sig" "$CAP_PID"
	rc=0
	wait "$CAP_PID" || rc=$?
	# the command's status becomes iotape's: dd killed by the forwarded signal
	want=$((128 + $(kill -l "$sig")))
	expect_eq "SIG$sig exit status" "$rc" "$want"
	tracing_is_off
	expect_eq "SIG$sig state" "$(json '["state"]' "$RUN/manifest.json")" "interrupted"
	events=$(json '["counts"]["events"]' "$RUN/manifest.json")
	[ "$events" -gt 100 ] || fail "SIG$sig: only $events events captured"
	kib=$(blkparse_kib "$RUN" "Writes Completed")
	# a loaded CI machine may run the writer slowly: some of its writes must be there
	[ "$kib" -ge 256 ] || fail "SIG$sig: blkparse sees only $kib KiB written"
	# every record in the files decodes (a torn record would show up as a partial read)
	"$IOTAPE" analyze "$RUN" >/dev/null 2>"$TMP/err" || fail "analyze failed: $(cat "$TMP/err")"
	! grep -qi "truncated" "$TMP/err" || fail "SIG$sig: truncated record: $(cat "$TMP/err")"
done

# SIGKILL cannot be handled: the tracer stays on, but the next capture finds the settings the
# killed one saved, restores them, says so, and runs
capture_bg "$TMP/run-kill" sleep 60
sleep 0.5
kill_capture
expect_eq "trace/enable after SIGKILL" "$(cat /sys/block/"$LOOPNAME"/trace/enable)" "1"
capture -o "$TMP/run-after-kill" -d "$LOOP" -- true 2>"$TMP/err" ||
	fail "capture after SIGKILL: $(cat "$TMP/err")"
grep -q "restored the tracing settings a killed capture" "$TMP/err" ||
	fail "no recovery notice: $(cat "$TMP/err")"
tracing_is_off
expect_eq "trace_clock after recovery" "$(tracefs_get trace_clock | sed 's/.*\[\(.*\)\].*/\1/')" "local"

# the same without a capture after it: `iotape capture --release` puts the tracer back
capture_bg "$TMP/run-kill2" sleep 60
rc=0
"$IOTAPE" capture --release 2>"$TMP/err" || rc=$?
expect_eq "--release while a capture runs: exit status" "$rc" 3
grep -q "a capture is running (pid $CAP_PID)" "$TMP/err" ||
	fail "--release busy: $(cat "$TMP/err")"
kill_capture
"$IOTAPE" capture --release 2>"$TMP/err" || fail "--release: exit $?: $(cat "$TMP/err")"
grep -q "restored the tracing settings a killed capture (pid $CAP_PID)" "$TMP/err" ||
	fail "--release: $(cat "$TMP/err")"
tracing_is_off
"$IOTAPE" capture --release 2>"$TMP/err" || fail "--release again: exit $?: $(cat "$TMP/err")"
grep -q "the tracer is free" "$TMP/err" || fail "--release again: $(cat "$TMP/err")"
rc=0
"$IOTAPE" capture --release -o "$TMP/x" 2>/dev/null || rc=$?
expect_eq "--release with other options" "$rc" 2

# no command: --duration ends the capture, exit status 0
RUN="$TMP/run-duration"
(sleep 0.5; dd if=/dev/zero of="$MNT/g" bs=1M count=4 oflag=direct status=none) &
capture -o "$RUN" -d "$LOOP" --duration 2s || fail "--duration capture exited $?"
wait
tracing_is_off
expect_eq "duration state" "$(json '["state"]' "$RUN/manifest.json")" "complete"
kib=$(blkparse_kib "$RUN" "Writes Completed")
[ "$kib" -ge 4096 ] || fail "--duration: $kib KiB written, want >= 4096"
echo "ok"
