# SPDX-License-Identifier: MIT
# iotape capture --host across two "hosts" (network namespaces with their own sshd,
# lib_hosts.bash): each host's loop device (bpf backend: several captures at once on one
# kernel) and packets on its veth, brought back into a run set with runset.json; analyze of the
# set explains a gap on h1 by h2's device. Then: a host with a missing device is reported before
# anything starts; a host whose capture is killed mid-run is marked failed while the other's run
# is kept; a host whose capture cannot start (the tracer taken) likewise; SIGINT of the local
# iotape stops every remote capture and still brings the runs back; SIGKILL of it stops them.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
source "$SRCDIR/tests/integration/lib_hosts.bash"
hosts_with_loops 2 64M 2
# a capture left in the background by a failed check is stopped first, before the hosts go
stop_jobs() {
	local p
	for p in $(jobs -p); do
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
cleanup_hooks=(stop_jobs "${cleanup_hooks[@]}")

# devno DEV: MAJOR,MINOR as analyze names a device
devno() { printf '%d,%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }

# no_capture_left NS...: no iotape process runs in the namespaces, no remote run directory of
# this test's captures is left in the hosts' TMPDIR (the sessions' own, lib_hosts.bash: other
# tests' hosts make theirs elsewhere)
no_capture_left() {
	local ns p i
	for i in $(seq 50); do
		left=""
		for ns in "$@"; do
			for p in $(ip netns pids "$ns"); do
				[ "$(cat /proc/"$p"/comm 2>/dev/null)" = iotape ] && left+=" $p"
			done
		done
		[ -z "$left" ] && break
		sleep 0.1
	done
	[ -z "$left" ] || fail "iotape still runs on a host:$left"
	[ -z "$(find "$HOST_TMP" -maxdepth 1 -name 'iotape-host-*')" ] ||
		fail "a remote run directory was left in /tmp"
}

# wait_tracing ERRFILE N PID: until the capture PID says N hosts trace
wait_tracing() {
	local i
	for i in $(seq 300); do
		[ "$(grep -c ': tracing$' "$1")" -ge "$2" ] && return 0
		kill -0 "$3" 2>/dev/null || fail "the capture ended before its hosts traced: $(cat "$1")"
		sleep 0.1
	done
	fail "the hosts did not trace within 30 s: $(cat "$1")"
}

# --- two hosts: h1 writes, pauses 400 ms while h2 writes, writes again -----------------------
"$IOTAPE" capture -o set --ssh-config "$SSH_CONFIG" --backend bpf \
	--host "h1:$L1:${HOST_IF[1]}" --host "h2:$L2:${HOST_IF[2]}" -- sh -c "
	dd if=/dev/zero of=$L1 bs=64k count=20 oflag=direct 2>/dev/null
	sleep 0.1
	for i in 1 2 3 4; do
		dd if=/dev/zero of=$L2 bs=64k count=10 seek=\$((i * 10)) oflag=direct 2>/dev/null
		ssh -F $SSH_CONFIG h2 true
		sleep 0.05
	done
	sleep 0.1
	dd if=/dev/zero of=$L1 bs=64k count=20 seek=20 oflag=direct 2>/dev/null" 2>err.txt ||
	fail "capture on two hosts: $(cat err.txt)"
cat err.txt >&2
python3 - set/runset.json "$L1" "$L2" <<'EOF' || fail "runset.json is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["kind"] == "iotape-runset" and r["complete"] is True, r
assert r["command"]["status"] == 0 and r["command"]["ran"] is True, r["command"]
hs = r["hosts"]
assert [h["name"] for h in hs] == ["h1", "h2"], hs
for h, dev in zip(hs, sys.argv[2:]):
    assert h["status"] == "ok" and h["reason"] is None and h["run"] == h["name"], h
    assert h["devices"] == [dev] and h["capture_exit"] == 0, h
    c = h["clock"]
    # one kernel, one clock: the true offset is 0, so the estimate is within its error
    assert 0 < c["error_ns"] < 1e9 and abs(c["offset_ns"]) <= c["error_ns"], c
    assert c["rtt_ns"] <= 2 * c["error_ns"], c
e = sorted(h["clock"]["error_ns"] for h in hs)
assert r["alignment_error_ns"] == e[-1] + e[-2], r["alignment_error_ns"]
EOF
for h in h1 h2; do
	[ -s "set/$h/manifest.json" ] || fail "$h: no manifest came back"
	[ -s "set/$h/net.pcap" ] || fail "$h: no packet capture came back"
done
ls set/h1/"$(basename "$L1")".blktrace.* >/dev/null || fail "h1: no block trace of $L1"
ls set/h2/"$(basename "$L2")".blktrace.* >/dev/null || fail "h2: no block trace of $L2"
expect_eq "h2's backend" "$(json '["backend"]["name"]' set/h2/manifest.json)" bpf
no_capture_left "${HOST_NS[1]}" "${HOST_NS[2]}"

# analyze SET: both hosts on one clock; h1's longest gap has h2's device busy in it
"$IOTAPE" analyze --json set >an.json || fail "analyze of the run set"
python3 - an.json "$(devno "$L1")" "$(devno "$L2")" <<'EOF' || fail "analyze SET: $(head -c 3000 an.json)"
import json, sys
d = json.load(open(sys.argv[1]))
hosts = [h["host"] for h in d["hosts"]]
assert hosts == ["h1", "h2"], d["hosts"]
devs = {x["host"]: x for x in d["devices"]}
g = devs["h1"]["idle"]["longest"][0]
assert g["duration_ns"] > 300e6, g
o = [x for x in g["explain"]["devices"] if x["host"] == "h2"]
assert o and o[0]["dev"] == sys.argv[3] and o[0]["busy_ns"] > 0 and o[0]["ios"] >= 40, g["explain"]
EOF

# the offset measured at capture puts a host on the capturing host's clock: h2's realtime
# said to be 5 s ahead moves its trace 5 s earlier on the common clock
python3 - set/runset.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["hosts"][1]["clock"]["offset_ns"] += 5000000000
json.dump(r, open(sys.argv[1], "w"))
EOF
"$IOTAPE" analyze --json set >an5.json || fail "analyze of the run set, h2 5 s ahead"
python3 - an.json an5.json <<'EOF' || fail "the run set's clock offset is not applied"
import json, sys
a, b = (json.load(open(f))["hosts"][1]["offset_ns"] for f in sys.argv[1:])
assert abs((a - b) - 5000000000) < 1000, (a, b)
EOF

# --- a missing device: said for its host, nothing started, no set made ----------------------
rc=0
"$IOTAPE" capture -o set2 --ssh-config "$SSH_CONFIG" --backend bpf \
	--host "h1:/dev/iotape-none-$$" --host "h2:$L2:${HOST_IF[2]}" -- true 2>err.txt || rc=$?
cat err.txt >&2
expect_eq "missing device: exit status" "$rc" 2
grep -q "h1: no block device /dev/iotape-none-$$" err.txt || fail "missing device: the message"
grep -q "h2: tracing" err.txt && fail "missing device: h2 was started all the same"
[ ! -e set2 ] || fail "missing device: the run set was made"

# --- h2's capture killed mid-run: h2 failed, h1 kept, exit 4 ---------------------------------
"$IOTAPE" capture -o set3 --ssh-config "$SSH_CONFIG" --backend bpf \
	--host "h1:$L1:${HOST_IF[1]}" --host "h2:$L2:${HOST_IF[2]}" -- sh -c "
	dd if=/dev/zero of=$L1 bs=64k count=10 oflag=direct 2>/dev/null
	while [ ! -e $TMP/go ]; do sleep 0.05; done" 2>err3.txt &
cap=$!
wait_tracing err3.txt 2 "$cap"
# a host's run directory is made in the session's TMPDIR, as mktemp makes it
[ "$(find "$HOST_TMP" -maxdepth 1 -name 'iotape-host-*' | wc -l)" -eq 2 ] ||
	fail "the hosts' run directories are not in their TMPDIR: $(ls "$HOST_TMP")"
victim=""
for p in $(ip netns pids "${HOST_NS[2]}"); do
	[ "$(cat /proc/"$p"/comm 2>/dev/null)" = iotape ] && victim=$p
done
[ -n "$victim" ] || fail "no iotape runs on h2"
kill -KILL "$victim"
sleep 0.5
touch "$TMP/go"
rc=0
wait "$cap" || rc=$?
cat err3.txt >&2
expect_eq "a host killed: exit status" "$rc" 4
grep -q "host h2: its capture ended with status 137" err3.txt || fail "a host killed: the message"
python3 - set3/runset.json <<'EOF' || fail "a host killed: runset.json"
import json, sys
r = json.load(open(sys.argv[1]))
h1, h2 = r["hosts"]
assert r["complete"] is False
assert h1["status"] == "ok" and h1["run"] == "h1", h1
assert h2["status"] == "failed" and "status 137" in h2["reason"], h2
assert h2["capture_exit"] == 137, h2
EOF
[ -s set3/h1/manifest.json ] || fail "a host killed: h1's run was not kept"
no_capture_left "${HOST_NS[1]}" "${HOST_NS[2]}"
"$IOTAPE" analyze set3 >/dev/null 2>an3.err || fail "analyze of a partial set: $(cat an3.err)"
grep -q "host h2 left out: .*status 137" an3.err || fail "analyze of a partial set: no warning"

# --- a host that cannot start: one kernel has one blk tracer, so of two tracefs captures one
# gets it and the other fails at its start; that host is marked, the other kept, exit 4 (the
# hosts from a --hosts file) ------------------------------------------------------------------
rc=0
printf '# one kernel, one tracer\nh1:%s\n\nh2:%s\n' "$L1" "$L2" >hosts6.txt
"$IOTAPE" capture -o set6 --ssh-config "$SSH_CONFIG" --backend tracefs --hosts hosts6.txt -- \
	dd if=/dev/zero of="$L1" bs=64k count=10 oflag=direct 2>err6.txt || rc=$?
cat err6.txt >&2
expect_eq "a host that cannot start: exit status" "$rc" 4
python3 - set6/runset.json <<'EOF' || fail "a host that cannot start: runset.json"
import json, sys
r = json.load(open(sys.argv[1]))
ok = [h for h in r["hosts"] if h["status"] == "ok"]
bad = [h for h in r["hosts"] if h["status"] == "failed"]
assert len(ok) == 1 and len(bad) == 1 and r["complete"] is False, r["hosts"]
assert bad[0]["reason"].startswith("its capture did not start: "), bad[0]
assert "in use" in bad[0]["reason"] and bad[0]["capture_exit"] == 3, bad[0]
assert r["command"]["ran"] is True and r["command"]["status"] == 0, r["command"]
EOF
for l in "$L1" "$L2"; do LOOPNAME=$(basename "$l") tracing_is_off; done
no_capture_left "${HOST_NS[1]}" "${HOST_NS[2]}"

# --- the tracer held by a capture already: with --backend tracefs that is said before
# anything starts (the hosts share this kernel, so this test's own capture holds it) --------
wait_tracer_free
"$IOTAPE" capture -o held -d "$L1" --backend tracefs -- sleep 60 2>held.err &
holder=$!
LOOPNAME=$(basename "$L1") wait_tracing_on "$holder"
rc=0
"$IOTAPE" capture -o set8 --ssh-config "$SSH_CONFIG" --backend tracefs --host "h2:$L2" \
	-- true 2>err8.txt || rc=$?
cat err8.txt >&2
kill -INT "$holder"
wait "$holder" || true
expect_eq "the tracer held: exit status" "$rc" 2
grep -q "h2: the blk tracer is in use (an iotape capture, pid $holder)" err8.txt ||
	fail "the tracer held: the message"
[ ! -e set8 ] || fail "the tracer held: the run set was made"

# --- SIGINT of the local iotape: every remote capture stops, both runs come back --------------
"$IOTAPE" capture -o set4 --ssh-config "$SSH_CONFIG" --backend bpf \
	--host "h1:$L1:${HOST_IF[1]}" --host "h2:$L2:${HOST_IF[2]}" -- sleep 60 2>err4.txt &
cap=$!
wait_tracing err4.txt 2 "$cap"
kill -INT "$cap"
rc=0
wait "$cap" || rc=$?
cat err4.txt >&2
expect_eq "SIGINT: exit status (COMMAND's, killed by SIGINT)" "$rc" 130
python3 - set4/runset.json <<'EOF' || fail "SIGINT: runset.json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["stop_signal"] == 2 and r["complete"] is True, r
assert [h["status"] for h in r["hosts"]] == ["ok", "ok"], r["hosts"]
EOF
no_capture_left "${HOST_NS[1]}" "${HOST_NS[2]}"
# --- SIGKILL of the local iotape: its ssh sessions end, and with them every remote capture ---
"$IOTAPE" capture -o set7 --ssh-config "$SSH_CONFIG" --backend bpf \
	--host "h1:$L1:${HOST_IF[1]}" --host "h2:$L2:${HOST_IF[2]}" -- sleep 60 2>err7.txt &
cap=$!
wait_tracing err7.txt 2 "$cap"
kids=$(cat /proc/"$cap"/task/*/children)
[ "$(wc -w <<<"$kids")" -eq 3 ] || fail "SIGKILL: want two ssh and COMMAND under iotape: $kids"
kill -KILL "$cap"
wait "$cap" || true
for i in $(seq 100); do
	left=""
	for p in $kids; do
		case $(awk '{print $3}' /proc/"$p"/stat 2>/dev/null) in "" | Z) ;; *) left+=" $p" ;; esac
	done
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || fail "SIGKILL: iotape's ssh or COMMAND outlived it:$left"
no_capture_left "${HOST_NS[1]}" "${HOST_NS[2]}"

echo "ok"
