#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tracing options somebody left on that make every event cost far more (stacktrace: a kernel
# stack after each blk record, +100 % fio CPU per IO on zram; userstacktrace: +23 %) are off
# while a capture runs and back to what they were afterwards: after a normal end, and after a
# SIGKILL through the next capture's recovery.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"

T=/sys/kernel/tracing
make_loop 64M
wait_tracer_free
old_st=$(tracefs_get options/stacktrace)
old_ust=$(tracefs_get options/userstacktrace)
put_back() {
	tracefs_put options/stacktrace "$old_st"
	tracefs_put options/userstacktrace "$old_ust"
}
cleanup_hooks+=(put_back)
tracefs_put options/stacktrace 1
tracefs_put options/userstacktrace 1

RUN="$TMP/run"
capture -o "$RUN" -d "$LOOP" --backend tracefs -- sh -c "cat $T/options/stacktrace $T/options/userstacktrace \
	>'$TMP/during'; dd if=/dev/zero of='$LOOP' bs=64k count=16 oflag=direct status=none" ||
	fail "capture exited $?"
expect_eq "stacktrace, userstacktrace during the capture" "$(tr '\n' ' ' <"$TMP/during")" "0 0 "
tracing_is_off
expect_eq "stacktrace after the capture" "$(tracefs_get options/stacktrace)" "1"
expect_eq "userstacktrace after the capture" "$(tracefs_get options/userstacktrace)" "1"
kib=$(blkparse_kib "$RUN" "Writes Completed")
expect_eq "KiB written as blkparse sees it" "$kib" "1024"

# SIGKILL: the next capture restores them from the state file (written before each change)
capture_bg "$TMP/run-kill" sleep 60
kill_capture
# the recovery itself (and its notice) is capture_signal.sh's; here: it puts these back too.
# On a shared machine another waiting capture (replay --capture) may do it first.
capture -o "$TMP/run-after-kill" -d "$LOOP" --backend tracefs -- true || fail "capture after SIGKILL exited $?"
tracing_is_off
expect_eq "stacktrace after recovery" "$(tracefs_get options/stacktrace)" "1"
expect_eq "userstacktrace after recovery" "$(tracefs_get options/userstacktrace)" "1"
echo "ok"
