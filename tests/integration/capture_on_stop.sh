#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape capture --host ... --on DEST -- COMMAND without a terminal (standard input not a tty,
# as under CI or nohup): every early stop of the capture (SIGTERM, SIGINT, --duration, SIGKILL
# of the local iotape) stops COMMAND on DEST too. sshd signals nothing without a terminal, so
# before the remote side ran COMMAND under a watcher, COMMAND went on running there. Hosts are
# network namespaces with their own sshd (lib_hosts.bash); a packets-only host needs neither a
# device nor the tracer.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/lib_hosts.bash"
need_cmd tar
cd "$TMP"

make_hosts 1
SSHC=(--ssh-config "$SSH_CONFIG")
# COMMAND's mark: a sleep of a length nothing else on this machine sleeps
MARK=$((86000 + $$ % 400))

# remote_left: the pids of COMMAND's processes still in h1's namespace
remote_left() {
	local p out=""
	for p in $(ip netns pids "${HOST_NS[1]}" 2>/dev/null); do
		if tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -q "sleep $MARK"; then
			out="$out $p"
		fi
	done
	echo "${out# }"
}

# wait_remote: until COMMAND runs on h1 (30 s)
wait_remote() {
	local i
	for i in $(seq 300); do
		[ -n "$(remote_left)" ] && return 0
		kill -0 "$cap" 2>/dev/null || fail "$1: the capture ended before COMMAND ran: $(cat "$1.err")"
		sleep 0.1
	done
	fail "$1: COMMAND did not start on h1 within 30 s: $(cat "$1.err")"
}

# gone WHAT: no COMMAND left on h1 within 10 s of the capture's end
gone() {
	local i
	for i in $(seq 100); do
		[ -z "$(remote_left)" ] && return 0
		sleep 0.1
	done
	fail "$1: COMMAND still runs on h1 after the capture ended (pids $(remote_left))"
}

# start WHAT [OPTIONS...]: a capture of h1's packets, COMMAND --on h1, standard input not a tty
start() {
	local what=$1
	shift
	"$IOTAPE" capture -o "set-$what" "${SSHC[@]}" --host "h1::${HOST_IF[1]}" "$@" --on h1 \
		-- sleep "$MARK" </dev/null >"$what.out" 2>"$what.err" &
	cap=$!
	wait_remote "$what"
}

for sig in TERM INT; do
	start "$sig"
	kill -"$sig" "$cap"
	rc=0
	wait "$cap" || rc=$?
	cat "$sig.err" >&2
	[ "$rc" -ne 0 ] || fail "SIG$sig: the capture exited 0 though COMMAND was stopped"
	gone "SIG$sig"
	# the run still came back: the stop was the capture's own
	[ -s "set-$sig/h1/net.pcap" ] || fail "SIG$sig: h1's run did not come back"
done

# --duration: the capture ends COMMAND itself
start dur --duration 8s
rc=0
wait "$cap" || rc=$?
[ "$rc" -ne 0 ] || fail "--duration: the capture exited 0 though COMMAND was stopped"
gone "--duration"

# SIGKILL of the local iotape: its ssh dies with it (PR_SET_PDEATHSIG), and so the session
start kill
kill -KILL "$cap"
wait "$cap" || true
gone "SIGKILL"

# a COMMAND that ends on its own is not disturbed: its exit status and output come back, and
# nothing of the watcher is left on h1 (no process of the session, its sshd aside)
rc=0
"$IOTAPE" capture -o set-ok "${SSHC[@]}" --host "h1::${HOST_IF[1]}" --on h1 -- \
	sh -c 'echo out; echo err >&2; exit 5' </dev/null >ok.out 2>ok.err || rc=$?
expect_eq "--on: COMMAND's exit status" "$rc" 5
expect_eq "--on: COMMAND's output" "$(grep -v '^welcome to' ok.out)" "out"
grep -q '^err$' ok.err || fail "--on: COMMAND's standard error: $(cat ok.err)"
for i in $(seq 50); do
	left=$(for p in $(ip netns pids "${HOST_NS[1]}"); do
		[ "$p" = "${HOST_SSHD[1]}" ] || echo "$p $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")"
	done)
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || fail "processes left on h1 after COMMAND ended: $left"

echo ok
