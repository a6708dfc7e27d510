#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape sweep with capture (root, a loop device): a failing cell is reported and the sweep
# goes on; a sweep killed with SIGKILL in the middle of a run leaves the kernel's tracer off
# (its capture ends cleanly) and resumes without running a finished run twice; SIGINT stops
# the run, the capture and the sweep (exit 130), and the resume completes; -i and
# --capture-arg reach the capture; a command that cannot run fails with the reason. The
# filesystem x request size sweep with fio is in sweep_examples.sh (docs/sweep.md's first
# example).
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"

make_loop 256M
S="$TMP/s"
# four sizes x ok/bad, one run each in plain order; bad cells exit 1 after their IO
"$IOTAPE" sweep -o "$S" -d "$LOOP" -p n=1..4 -p x=ok,bad --order sequential -- sh -c \
	"echo '{n} {x}' >>\"\$IOTAPE_SWEEP_DIR/ran\"
	 dd if=/dev/zero of=$LOOP bs=64k count={n} oflag=direct status=none; sleep 0.4; [ {x} = ok ]" \
	2>"$TMP/err1" &
pid=$!
for _ in $(seq 300); do [ "$(cat "$S/ran" 2>/dev/null | wc -l)" -ge 3 ] && break; sleep 0.1; done
[ "$(wc -l <"$S/ran")" -ge 3 ] || fail "the sweep did not get to its third run: $(cat "$TMP/err1")"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
# the killed sweep's capture got SIGTERM from the kernel and ends as every capture does
wait_tracer_free
tracing_is_off
killed=$(tail -1 "$S/ran")
n=${killed% *} x=${killed#* }
K="$S/n=$n/x=$x/rep-1"
for _ in $(seq 100); do [ "$(json '["state"]' "$K/manifest.json")" != running ] && break; sleep 0.1; done
expect_eq "the killed run's capture" "$(json '["state"]' "$K/manifest.json")" interrupted
expect_eq "its result" "$(json '["state"]' "$K/result.json")" running
grep -q "FAILED: exit status 1" "$TMP/err1" || fail "the failed cell was not reported: $(cat "$TMP/err1")"

rc=0
"$IOTAPE" sweep --resume "$S" 2>"$TMP/err2" || rc=$?
cat "$TMP/err2"
expect_eq "resume status (the bad cells failed)" "$rc" 1
tracing_is_off
grep -q "4 runs failed" "$TMP/err2" || fail "failures not counted"
[ -e "$S/n=$n/x=$x/rep-1.interrupted-1/manifest.json" ] || fail "the killed attempt was not kept"
for r in "$S"/n=*/x=*/rep-1; do
	want=done
	[ "${r#*x=}" = "bad/rep-1" ] && want=failed
	expect_eq "$r" "$(json '["state"]' "$r/result.json")" "$want"
	expect_eq "$r capture" "$(json '["state"]' "$r/manifest.json")" complete
	expect_eq "$r command status" "$(json '["command"]["exit_status"]' "$r/manifest.json")" \
		"$([ $want = done ] && echo 0 || echo 1)"
	[ "$(json '["wall_ns"]' "$r/result.json")" -ge 400000000 ] || fail "$r: wall time"
	"$IOTAPE" analyze "$r" >/dev/null || fail "$r: not analyzable"
done
# every run once, the killed one twice, nothing else again
expect_eq "distinct runs" "$(sort -u "$S/ran" | wc -l)" 8
expect_eq "runs started" "$(wc -l <"$S/ran")" 9
expect_eq "the one run twice" "$(sort "$S/ran" | uniq -d)" "$killed"
# compare leaves the failed runs out and says so
"$IOTAPE" compare "$S" --metrics wall_s >"$TMP/cmp" 2>"$TMP/cmp.err" || fail "compare"
grep -q "4 of 8 runs are in the tables; 4 failed" "$TMP/cmp.err" || fail "$(cat "$TMP/cmp.err")"

# SIGINT: the run's capture ends (interrupted), the teardown runs, exit 130; resume finishes
I="$TMP/i"
"$IOTAPE" sweep -o "$I" -d "$LOOP" -p n=1,2 --teardown 'echo td >>"$IOTAPE_SWEEP_DIR/td"' -- \
	sh -c 'echo {n} >>"$IOTAPE_SWEEP_DIR/ran"; sleep 3' 2>"$TMP/err3" &
pid=$!
for _ in $(seq 100); do [ -s "$I/ran" ] && break; sleep 0.1; done
sleep 0.5
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
expect_eq "exit after SIGINT" "$rc" 130
tracing_is_off
expect_eq "teardown after SIGINT" "$(wc -l <"$I/td")" 1
first=$(head -1 "$I/ran")
expect_eq "interrupted capture" "$(json '["state"]' "$I/n=$first/rep-1/manifest.json")" interrupted
"$IOTAPE" sweep --resume "$I" 2>/dev/null || fail "resume after SIGINT"
tracing_is_off
expect_eq "runs after resume" "$(sort -u "$I/ran" | tr '\n' ' ')" "1 2 "
# -i: the packets too, and --capture-arg reaches the capture
N="$TMP/net"
"$IOTAPE" sweep -o "$N" -i lo -p n=1 --capture-arg=--filter=port\ 9 --capture-arg=--snaplen=128 \
	-- true 2>/dev/null || fail "sweep with -i lo"
expect_eq "interface" "$(json '["network"]["interface"]' "$N/n=1/rep-1/manifest.json")" lo
expect_eq "filter" "$(json '["network"]["filter"]' "$N/n=1/rep-1/manifest.json")" "port 9"
[ -e "$N/n=1/rep-1/net.pcap" ] || fail "no net.pcap"
# a captured command that cannot run fails with the capture's reason, not a bare status 127
M="$TMP/missing"
rc=0; "$IOTAPE" sweep -o "$M" -d "$LOOP" -p n=1 -- "$TMP/no-such-command" 2>"$TMP/err6" || rc=$?
expect_eq "sweep of a missing command" "$rc" 1
expect_eq "its exit status" "$(json '["exit_status"]' "$M/n=1/rep-1/result.json")" 127
grep -qF "cannot run '$TMP/no-such-command': No such file or directory" "$M/n=1/rep-1/result.json" ||
	fail "no reason: $(cat "$M/n=1/rep-1/result.json")"
tracing_is_off

# another capture holds the tracer (its lock: what a live capture holds) when a run starts:
# the sweep waits for it (capture --wait-tracer), says so in the run's capture.log, and goes
# on once it is free, rather than stopping with exit 3 (issue #23 item 7). The blk tracer is
# what relay and tracefs take; the bpf backend (the default where it was built) takes nothing
# global and never waits, so these captures ask for tracefs.
W="$TMP/wait"
flock -x /run/iotape-tracefs.lock sleep 3 &
holder=$!
sleep 0.3
rc=0
"$IOTAPE" sweep -o "$W" -d "$LOOP" --capture-arg=--backend --capture-arg=tracefs -p n=1 -- \
	dd if=/dev/zero of="$LOOP" bs=64k count=1 oflag=direct status=none 2>"$TMP/werr" || rc=$?
wait "$holder" || true
expect_eq "a sweep behind a busy tracer" "$rc" 0
grep -q "waiting up to" "$W/n=1/rep-1/capture.log" ||
	fail "no word of the wait: $(cat "$W/n=1/rep-1/capture.log")"
expect_eq "its run" "$(json '["state"]' "$W/n=1/rep-1/result.json")" done
tracing_is_off
# a capture that waits too long gives up with exit 3, saying how long it waited
flock -x /run/iotape-tracefs.lock sleep 3 &
holder=$!
sleep 0.3
rc=0
"$IOTAPE" capture -o "$TMP/w2" -d "$LOOP" --backend tracefs --wait-tracer 500ms -- true 2>"$TMP/w2err" || rc=$?
wait "$holder" || true
expect_eq "capture --wait-tracer 500ms behind a busy tracer" "$rc" 3
grep -q "waited 0.5 s for it" "$TMP/w2err" || fail "no word of the wait: $(cat "$TMP/w2err")"
echo "sweep with capture: ok"
