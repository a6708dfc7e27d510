# SPDX-License-Identifier: MIT
# Sourced by the capture_*.sh integration tests (after lib.bash): loop devices, filesystems,
# and checks that tracing is off again. Not a test itself.

need_root
[ -e /dev/loop-control ] || skip "no loop devices (/dev/loop-control missing)"
need_cmd losetup
need_cmd blkparse
need_cmd unshare

# A freshly booted machine may have neither tracefs nor debugfs mounted, and a test must not
# rely on what an earlier test or session left mounted. So every capture test runs in a mount
# namespace of its own where both are unmounted: iotape must mount what it needs, and unmount
# it again (mounts_are_back checks that). The kernel's tracer is global all the same. A test
# that sets CAPTURE_MOUNTED=1 before sourcing this gets both mounted in its namespace instead,
# so the usual case (mounted already: iotape leaves them so) is covered too, on any machine.
if [ -z "${IOTAPE_CAPTURE_NS:-}" ]; then
	trap - EXIT
	rm -rf "$TMP"
	export IOTAPE_CAPTURE_NS=1
	exec unshare -m --propagation private bash -c "$NS_DROP_FOREIGN_MOUNTS"'
		for m in /sys/kernel/tracing /sys/kernel/debug; do
			while mountpoint -q "$m" 2>/dev/null; do umount -l "$m" || exit 1; done
		done
		if [ -n "${CAPTURE_MOUNTED:-}" ]; then
			mount -t debugfs nodev /sys/kernel/debug || exit 1
			mount -t tracefs nodev /sys/kernel/tracing || exit 1
		fi
		exec bash "$0" "$@"' "$0" "$@"
fi
export IOTAPE_CAPTURE_NS=1 # the tests' own children see the same mounts

# with_tracefs CMD...: run CMD where /sys/kernel/tracing is tracefs: here if it is mounted,
# else in a private mount namespace of its own (so nothing is left mounted)
with_tracefs() {
	if [ -e /sys/kernel/tracing/current_tracer ]; then
		"$@"
	else
		unshare -m --propagation private sh -c \
			'mount -t tracefs nodev /sys/kernel/tracing && exec "$@"' sh "$@"
	fi
}
# tracefs_get FILE: the content of /sys/kernel/tracing/FILE; tracefs_put FILE VALUE
tracefs_get() { with_tracefs cat "/sys/kernel/tracing/$1"; }
tracefs_put() { with_tracefs sh -c 'echo "$1" >"/sys/kernel/tracing/$2"' sh "$2" "$1"; }

# what is mounted at the tracing mount points when the test starts; iotape must leave it so
MOUNTS_AT_START=$(for m in /sys/kernel/tracing /sys/kernel/debug; do
	mountpoint -q "$m" && echo "$m"; done || true)
mounts_are_back() {
	local now
	now=$(for m in /sys/kernel/tracing /sys/kernel/debug; do
		mountpoint -q "$m" && echo "$m"; done || true)
	expect_eq "tracing mounts after iotape" "$now" "$MOUNTS_AT_START"
}

# The blk tracer is global: one capture at a time on this machine (ctest -j may run several).
exec 9>/tmp/iotape-capture-tests.lock
flock 9

# The lock orders these tests among themselves; a developer's own `iotape capture` on a
# shared machine does not take it. capture ARGS... is `iotape capture`, retried for up to a
# minute while such a foreign capture holds the tracer (never the case on a CI machine);
# wait_tracer_free is for the tests that must run iotape in the background themselves.
capture() {
	local i rc=0
	for i in $(seq 60); do
		rc=0
		"$IOTAPE" capture "$@" 2>"$TMP/capture.err" || rc=$?
		[ "$rc" -eq 3 ] && grep -q "the tracer is in use" "$TMP/capture.err" || break
		sleep 1
	done
	cat "$TMP/capture.err" >&2
	return "$rc"
}
wait_tracer_free() {
	local i
	for i in $(seq 60); do
		[ "$(tracefs_get current_tracer)" = nop ] && return 0
		sleep 1
	done
}

# wait_tracing_on PID: until the capture PID started in the background traces our device
# with the tracefs backend: our device's enable is 1 and the tracer's state file names PID.
# (enable alone is not enough: auto's relay attempt sets it up, and so makes it 1, for a
# moment before it falls back.)
wait_tracing_on() {
	local i
	for i in $(seq 300); do
		[ "$(cat /sys/block/"$LOOPNAME"/trace/enable 2>/dev/null)" = 1 ] &&
			grep -qx "pid $1" /run/iotape-tracefs.state 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || fail "the background capture ($1) ended before tracing"
		sleep 0.1
	done
	fail "the background capture did not start tracing within 30 s"
}

# capture_bg RUN COMMAND...: `iotape capture -o RUN -d $LOOP --backend tracefs -- COMMAND` in
# the background, once it traces; CAP_PID is iotape's pid, CAP_CHILD COMMAND's. (tracefs: the
# tests that use it are about the global tracer's state; capture_bpf.sh has the bpf ones.)
capture_bg() {
	local run=$1
	shift
	wait_tracer_free
	"$IOTAPE" capture -o "$run" -d "$LOOP" --backend tracefs -- "$@" &
	CAP_PID=$!
	wait_tracing_on "$CAP_PID"
	CAP_CHILD=$(cat /proc/"$CAP_PID"/task/*/children 2>/dev/null || true)
	[ -n "$CAP_CHILD" ] || fail "no command running under the capture"
}

# kill_capture: SIGKILL the capture_bg capture; its command must die with it
# (PR_SET_PDEATHSIG), not go on running untraced
kill_capture() {
	local i
	kill -KILL "$CAP_PID"
	wait "$CAP_PID" || true
	# dead: gone, or a zombie its new parent (pid 1 here, a VM's init) has not reaped yet
	for i in $(seq 50); do
		case $(awk '{print $3}' /proc/"$CAP_CHILD"/stat 2>/dev/null) in
		"" | Z) return 0 ;;
		esac
		sleep 0.1
	done
	fail "the command ($CAP_CHILD) outlived the SIGKILLed capture ($(cat /proc/"$CAP_CHILD"/stat 2>/dev/null))"
}

# need_bpf: this iotape has the bpf capture backend (a failure, not a skip: CI builds it)
need_bpf() {
	"$IOTAPE" version | grep "capture backends: bpf" >/dev/null ||
		fail "iotape was built without bpf: $("$IOTAPE" version)"
}

# wait_bpf PID: until the bpf capture PID started in the background has attached its programs
# (holds BPF links: its descriptors' fdinfo names them)
wait_bpf() {
	local i
	for i in $(seq 300); do
		cat /proc/"$1"/fdinfo/* 2>/dev/null | grep -q "^link_id:" && return 0
		kill -0 "$1" 2>/dev/null || fail "the bpf capture ($1) ended before attaching"
		sleep 0.1
	done
	fail "the bpf capture ($1) did not attach within 30 s"
}

LOOP=""
MNT="$TMP/mnt"
cap_cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT" || umount -l "$MNT"; fi
	if [ -n "$LOOP" ]; then losetup -d "$LOOP"; fi
	LOOP=""
}
cleanup_hooks+=(cap_cleanup)

# make_loop SIZE: a file-backed loop device in $LOOP (detached on exit)
make_loop() {
	truncate -s "$1" "$TMP/disk.img"
	LOOP=$(losetup -f --show "$TMP/disk.img") || skip "losetup -f failed: no free loop device"
	LOOPNAME=$(basename "$LOOP")
}

# make_fs FS: mkfs on $LOOP and mount it at $MNT
make_fs() {
	case $1 in
	ext4) mkfs.ext4 -q -F "$LOOP" ;;
	xfs) need_cmd mkfs.xfs; mkfs.xfs -q -f "$LOOP" ;;
	btrfs) need_cmd mkfs.btrfs; mkfs.btrfs -q -f "$LOOP" >/dev/null ;;
	*) fail "unknown filesystem $1" ;;
	esac
	mkdir -p "$MNT"
	mount "$LOOP" "$MNT"
}

# tracing_is_off: the tracer and the device's enable are back to what they were. The tracer
# is global: if another live capture holds it now (iotape replay --capture in another test,
# say: its pid is in the state file), only our device's enable can be checked.
tracing_is_off() {
	local pid
	expect_eq "$LOOPNAME trace/enable" "$(cat /sys/block/"$LOOPNAME"/trace/enable)" "0"
	mounts_are_back
	if [ "$(tracefs_get current_tracer)" != nop ] &&
		pid=$(sed -n 's/^pid //p' /run/iotape-tracefs.state 2>/dev/null) &&
		[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		echo "note: the tracer is held by another capture (pid $pid) right now" >&2
		return 0
	fi
	expect_eq "current_tracer" "$(tracefs_get current_tracer)" "nop"
	expect_eq "options/bin" "$(tracefs_get options/bin)" "0"
}

# blkparse_kib RUN WHAT: "Writes Completed" etc. in KiB from blkparse's summary: the Total
# section, or the only CPU section when a single CPU saw events (blkparse then prints no Total)
blkparse_kib() {
	blkparse -i "$1/$LOOPNAME" -d /dev/null |
		awk -v what="$2" 'index($0, what ":") {
			s = $0; sub(".*" what ":[ ]*", "", s); split(s, a, ",");
			v = a[2]; gsub(/[^0-9]/, "", v) }
			END { print v + 0 }'
}

# written_bytes RUN: bytes written to $LOOP as captured (iotape analyze --json when it
# reports devices[].writes.bytes, else blkparse's completed writes)
written_bytes() {
	local j
	if j=$("$IOTAPE" analyze --json "$1" 2>/dev/null) &&
		b=$(python3 -c 'import json,sys
d=json.loads(sys.stdin.read())
print(sum(x["writes"]["bytes"] for x in d["devices"]))' <<<"$j" 2>/dev/null); then
		echo "$b"
	else
		echo $(($(blkparse_kib "$1" "Writes Completed") * 1024))
	fi
}
