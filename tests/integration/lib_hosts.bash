# SPDX-License-Identifier: MIT
# Sourced by integration tests (after lib.bash): "hosts" that are network namespaces of this
# test, each with its own sshd on its own address, reached over OpenSSH through an ssh_config
# file of the test. Not a test itself.
#
#   make_hosts N   hosts h1..hN: namespace iot$$hI, a veth pair (itP<pid>aI here, 10.NET.I.1;
#                  itP<pid>bI in the namespace, 10.NET.I.2), an sshd on 10.NET.I.2:22 with a
#                  host key and root's authorized key in $TMP/ssh; NET is this test's own
#                  (hosts_net), so tests that make hosts run side by side under ctest -j
#   HOST_NS[I], HOST_IF[I], HOST_ADDR[I], HOST_SSHD[I] (the sshd's pid), SSH_CONFIG
#   hssh hI CMD... ssh to a host through the test's ssh_config
#   hosts_with_loops N SIZE [K]  the start of a capture --host test (after capture_lib.bash):
#                  K loop devices L1..LK (default 1) and N hosts, the test in $TMP
#
# The namespaces share the filesystem with this test, so iotape is "installed" on each host by
# the sessions' PATH: sshd sets it (SetEnv) to a directory holding only a link to $IOTAPE first.
# Every session prints a greeting on standard output first (ForceCommand), as a shell's
# startup files do on many hosts: what iotape reads from a session must not mind it.
# Everything (sshds, namespaces, veths) goes on exit. Root only.

need_root
need_cmd ip
need_cmd ssh
need_cmd ssh-keygen
need_cmd tar # a host's run comes back as a tar stream
[ -x /usr/sbin/sshd ] || skip "needs /usr/sbin/sshd (Debian's openssh-server)"

HOST_NS=()
HOST_IF=()
HOST_ADDR=()
HOST_SSHD=()
NHOSTS=0
SSH_DIR="$TMP/ssh"
SSH_CONFIG="$SSH_DIR/config"
# the hosts' sessions' TMPDIR (sshd's SetEnv): where their captures make their run directories,
# this test's own (the namespaces share the machine's /tmp with every other test)
HOST_TMP="$TMP/hosttmp"

HOST_NET=""
HOST_NET_DIR=/tmp/iotape-test-hostnets

# hosts_net: a second address octet no other live test holds (100-199), kept in HOST_NET; a
# directory per octet, made atomically, names its holder's pid, and a dead holder's is taken
hosts_net() {
	local n d p
	mkdir -p "$HOST_NET_DIR"
	for n in $(seq 100 199); do
		d="$HOST_NET_DIR/$n"
		if ! mkdir "$d" 2>/dev/null; then
			p=$(cat "$d/pid" 2>/dev/null || true)
			[ -n "$p" ] && kill -0 "$p" 2>/dev/null && continue
			# a holder that died (or is writing its pid right now: give it a moment)
			sleep 0.2
			p=$(cat "$d/pid" 2>/dev/null || true)
			[ -n "$p" ] && kill -0 "$p" 2>/dev/null && continue
			rm -rf "$d"
			mkdir "$d" 2>/dev/null || continue
		fi
		echo $$ >"$d/pid"
		HOST_NET=$n
		return 0
	done
	fail "no free host network in 10.100-199 ($HOST_NET_DIR)"
}

hosts_cleanup() {
	local i
	for ((i = 1; i <= NHOSTS; i++)); do
		if [ -n "${HOST_SSHD[$i]:-}" ]; then
			kill "${HOST_SSHD[$i]}" 2>/dev/null || true
			wait "${HOST_SSHD[$i]}" 2>/dev/null || true
		fi
		# sessions still open (a test that failed half-way): every process in the namespace
		# is one this test started there, killed by its pid
		if [ -n "${HOST_NS[$i]:-}" ]; then
			local p
			for p in $(ip netns pids "${HOST_NS[$i]}" 2>/dev/null); do
				kill -KILL "$p" 2>/dev/null || true
			done
			ip link del "it$$a$i" 2>/dev/null || true
			ip netns del "${HOST_NS[$i]}" 2>/dev/null || true
		fi
	done
	if [ -n "$HOST_NET" ]; then
		rm -rf "${HOST_NET_DIR:?}/$HOST_NET"
	fi
}
cleanup_hooks+=(hosts_cleanup)

# wait_sshd ADDR NS PID I: until sshd PID listens on ADDR:22 in namespace NS (10 s)
wait_sshd() {
	local i
	for i in $(seq 100); do
		ip netns exec "$2" ss -Hltn "src $1:22" 2>/dev/null | grep -q . && return 0
		kill -0 "$3" 2>/dev/null || fail "sshd in $2 ended: $(cat "$SSH_DIR/sshd$4.log")"
		sleep 0.1
	done
	fail "sshd in $2 did not listen on $1:22 within 10 s"
}

make_hosts() {
	local n=$1 i ns a b
	mkdir -p "$SSH_DIR/bin" "$HOST_TMP"
	chmod 700 "$SSH_DIR"
	ln -sf "$IOTAPE" "$SSH_DIR/bin/iotape"
	ssh-keygen -q -t ed25519 -N "" -f "$SSH_DIR/host_key" -C iotape-test-host
	ssh-keygen -q -t ed25519 -N "" -f "$SSH_DIR/id" -C iotape-test-client
	cp "$SSH_DIR/id.pub" "$SSH_DIR/authorized_keys"
	# privilege separation needs it; a machine that never ran the sshd service lacks it
	[ -d /run/sshd ] || mkdir -p -m 755 /run/sshd
	: >"$SSH_CONFIG"
	[ -n "$HOST_NET" ] || hosts_net
	for ((i = 1; i <= n; i++)); do
		ns="iot$$h$i"
		a="it$$a$i"
		b="it$$b$i"
		HOST_NS[i]=$ns
		HOST_IF[i]=$b
		HOST_ADDR[i]="10.$HOST_NET.$i.2"
		NHOSTS=$i
		ip netns add "$ns"
		ip link add "$a" type veth peer name "$b"
		ip link set "$b" netns "$ns"
		ip addr add "10.$HOST_NET.$i.1/24" dev "$a"
		ip link set "$a" up
		ip netns exec "$ns" ip addr add "10.$HOST_NET.$i.2/24" dev "$b"
		ip netns exec "$ns" ip link set "$b" up
		ip netns exec "$ns" ip link set lo up
		ip netns exec "$ns" ip route add default via "10.$HOST_NET.$i.1"
		cat >"$SSH_DIR/sshd$i.conf" <<EOF
ListenAddress 10.$HOST_NET.$i.2
Port 22
HostKey $SSH_DIR/host_key
AuthorizedKeysFile $SSH_DIR/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
SetEnv PATH=$SSH_DIR/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TMPDIR=$HOST_TMP
ForceCommand echo "welcome to h$i"; eval "\$SSH_ORIGINAL_COMMAND"
EOF
		ip netns exec "$ns" /usr/sbin/sshd -D -e -f "$SSH_DIR/sshd$i.conf" \
			2>"$SSH_DIR/sshd$i.log" &
		HOST_SSHD[i]=$!
		cat >>"$SSH_CONFIG" <<EOF
Host h$i
	HostName 10.$HOST_NET.$i.2
	User root
	IdentityFile $SSH_DIR/id
	IdentitiesOnly yes
	StrictHostKeyChecking no
	UserKnownHostsFile $SSH_DIR/known_hosts
	LogLevel ERROR
	BatchMode yes
	ConnectTimeout 10
EOF
	done
	for ((i = 1; i <= n; i++)); do
		wait_sshd "${HOST_ADDR[$i]}" "${HOST_NS[$i]}" "${HOST_SSHD[$i]}" "$i"
	done
}

hssh() { ssh -F "$SSH_CONFIG" "$@"; }

# hosts_with_loops N SIZE [K]: K file-backed loop devices of SIZE (default 1) in L1..LK, detached
# on exit (L1 is capture_lib.bash's $LOOP), then make_hosts N; the test goes on in $TMP. More
# than one device is for captures at once, which need the bpf backend (the blk tracer is one a
# kernel): without it the test is skipped.
HOST_LOOPS=()
host_loops_cleanup() {
	local l
	for l in "${HOST_LOOPS[@]}"; do losetup -d "$l" 2>/dev/null || true; done
}
hosts_with_loops() {
	local n=$1 size=$2 k=${3:-1} i l
	if [ "$k" -gt 1 ] && ! "$IOTAPE" version | grep 'capture backends: bpf' >/dev/null; then
		skip "this iotape has no bpf capture backend (two captures at once need it)"
	fi
	cd "$TMP"
	make_loop "$size"
	L1=$LOOP
	cleanup_hooks+=(host_loops_cleanup)
	for ((i = 2; i <= k; i++)); do
		truncate -s "$size" "$TMP/disk$i.img"
		l=$(losetup -f --show "$TMP/disk$i.img") || skip "losetup -f failed: no free loop device"
		HOST_LOOPS+=("$l")
		printf -v "L$i" %s "$l"
	done
	make_hosts "$n"
}
