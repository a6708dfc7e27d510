#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape capture --host, the rest of issue #30 item 2 (hosts: network namespaces with their own
# sshd, lib_hosts.bash): a packets-only host (DEST::IFACE) next to a host with a device, and
# analyze of that set; --on HOST runs COMMAND on that host (its output, its exit status);
# --release --host releases a tracer a SIGKILLed capture left (the hosts share this kernel) and
# says a running capture's tracer is busy; a SIGKILL of the local iotape leaves no part of a
# host's stream in the set, and a runset.json that says what happened.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
source "$SRCDIR/tests/integration/lib_hosts.bash"
hosts_with_loops 2 64M
SSHC=(--ssh-config "$SSH_CONFIG")

# --- h1 traces its device (tracefs: one host at a time on one kernel), h2 only its packets;
# COMMAND --on h2 writes to h1's device over... nothing: it runs on h2, in h2's namespace ------
wait_tracer_free
"$IOTAPE" capture -o set "${SSHC[@]}" --backend tracefs --host "h1:$LOOP" \
	--host "h2::${HOST_IF[2]}" --on h2 -- sh -c "
	ip -o -4 addr show dev ${HOST_IF[2]}
	dd if=/dev/zero of=$LOOP bs=64k count=16 oflag=direct 2>/dev/null
	exit 3" >on.out 2>err.txt || rc=$?
cat err.txt >&2
expect_eq "--on: COMMAND's exit status" "${rc:-0}" 3
# its output: the addresses of h2's interface, which only h2's namespace has
grep -q "inet ${HOST_ADDR[2]}/24" on.out || fail "--on h2: COMMAND did not run on h2: $(cat on.out)"
python3 - set/runset.json "${HOST_IF[2]}" <<'EOF' || fail "runset.json: $(cat set/runset.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["complete"] is True, r
h1, h2 = r["hosts"]
assert h1["status"] == "ok" and h2["status"] == "ok", r["hosts"]
assert h2["devices"] == [] and h2["interface"] == sys.argv[2], h2
assert r["command"]["status"] == 3, r["command"]
EOF
[ -s set/h2/net.pcap ] || fail "h2: no packets came back"
ls set/h2/*.blktrace.* 2>/dev/null && fail "h2 has a block trace: it was to capture packets only"
tracing_is_off
# analyze SET: h1's device and h2's packets, the hosts on one clock
"$IOTAPE" analyze --json set >an.json 2>an.err || fail "analyze of a set with a packets-only host: $(cat an.err)"
python3 - an.json <<'EOF' || fail "analyze of a set with a packets-only host: $(head -c 3000 an.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert [h["host"] for h in d["hosts"]] == ["h1", "h2"], d["hosts"]
devs = [x for x in d["devices"] if x["host"] == "h1"]
assert devs and devs[0]["writes"]["ios"] >= 16, devs
assert d["hosts"][1]["nfs"]["input"]["frames"] > 0, d["hosts"][1]
assert not [x for x in d["devices"] if x["host"] == "h2"], d["devices"]
EOF
# --on without --host, or without a COMMAND
rc=0
"$IOTAPE" capture -o x "${SSHC[@]}" --host "h1:$LOOP" --on h2 2>x.err || rc=$?
expect_eq "--on without COMMAND" "$rc" 2
grep -q -- "--on needs --host and a COMMAND" x.err || fail "--on without COMMAND: $(cat x.err)"

# --- --release --host: a tracer left by a SIGKILLed capture is put back through h1 ----------
capture_bg "$TMP/run-kill" sleep 60
rc=0
"$IOTAPE" capture --release "${SSHC[@]}" --host h1 2>rel.err || rc=$?
expect_eq "--release --host while a capture runs: exit status" "$rc" 3
grep -q "h1: .*a capture is running (pid $CAP_PID)" rel.err || fail "--release busy: $(cat rel.err)"
kill_capture
"$IOTAPE" capture --release "${SSHC[@]}" --host h1 2>rel.err ||
	fail "--release --host: exit $?: $(cat rel.err)"
grep -q "h1: .*restored the tracing settings a killed capture (pid $CAP_PID)" rel.err ||
	fail "--release --host: $(cat rel.err)"
# the tracer is the kernel's, put back through h1; the tracefs mount the killed capture made is
# of this test's mount namespace (h1's sshd runs in one of its own): undone here
for m in /sys/kernel/tracing /sys/kernel/debug; do
	case " $MOUNTS_AT_START " in *" $m "*) ;; *) ! mountpoint -q $m || umount $m ;; esac
done
tracing_is_off
"$IOTAPE" capture --release "${SSHC[@]}" --host h1 --host "h2::x" 2>rel.err ||
	fail "--release on two hosts: exit $?: $(cat rel.err)"
expect_eq "--release on two hosts: free" "$(grep -c ': .*the tracer is free' rel.err)" 2
rc=0
"$IOTAPE" capture --release "${SSHC[@]}" --host h1 -o x 2>/dev/null || rc=$?
expect_eq "--release --host with other options" "$rc" 2

# --- SIGKILL of the local iotape: no part of a host's stream is left in the set, and its
# runset.json says every host failed, and why ---------------------------------------------------
"$IOTAPE" capture -o set7 "${SSHC[@]}" --host "h1::${HOST_IF[1]}" --host "h2::${HOST_IF[2]}" \
	-- sleep 60 2>err7.txt &
cap=$!
for i in $(seq 300); do
	[ "$(grep -c ': tracing$' err7.txt)" -ge 2 ] && break
	kill -0 "$cap" 2>/dev/null || fail "the capture ended before its hosts traced: $(cat err7.txt)"
	sleep 0.1
done
kill -KILL "$cap"
wait "$cap" || true
expect_eq "SIGKILL: what is left in the set" "$(ls -A set7 | tr '\n' ' ')" "runset.json "
python3 - set7/runset.json <<'EOF' || fail "SIGKILL: runset.json: $(cat set7/runset.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["complete"] is False, r
for h in r["hosts"]:
    assert h["status"] == "failed" and h["run"] is None, h
    assert "the capturing iotape ended before the runs came back" in h["reason"], h
EOF
rc=0
"$IOTAPE" analyze set7 >/dev/null 2>an7.err || rc=$?
expect_eq "analyze of a killed set: exit status" "$rc" 2
grep -q "no host brought a whole run back" an7.err || fail "analyze of a killed set: $(cat an7.err)"

echo ok
