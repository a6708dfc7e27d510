# SPDX-License-Identifier: MIT
# Sourced by the NFS integration tests (after lib.bash): start rpcbind and nfs-ganesha on
# 127.0.0.1 with a VFS export of a temporary directory; stop both on exit (cleanup hooks).
# Sets GANESHA_EXPORT (the exported directory), NFS3_URL and NFS4_URL (libnfs URLs), a
# second export, GANESHA_EXPORT2 with NFS3_URL2 and NFS4_URL2 (a replay's other server), and
# a third, GANESHA_EXPORT3 (pseudo path /export3), for workloads of their own.
#
# The sourcing script runs again, from its start, in a network namespace of its own (only lo,
# brought up) with a private /run: ganesha gets the standard ports 2049 and 111 whatever the
# machine runs on them (a real NFS server, another test's ganesha), its rpcbind is our own
# (rpcbind's socket is /run/rpcbind.sock, a file, so the machine's rpcbind would otherwise
# see our registrations), and tcpdump on lo sees only this test's traffic. Everything the
# test starts dies with the namespace.

# Skipped only without root; a missing tool is a failure (scripts/deps.sh installs them all).
need_root
require_cmd() { command -v "$1" >/dev/null 2>&1 || fail "$1 missing (scripts/deps.sh installs it)"; }
require_cmd ganesha.nfsd
require_cmd rpcbind
require_cmd tcpdump
require_cmd unshare
require_cmd ip

if [ -z "${IOTAPE_NFS_NS:-}" ]; then
	trap - EXIT
	rm -rf "$TMP"
	export IOTAPE_NFS_NS=1
	exec unshare --net --mount --propagation private bash -c "$NS_DROP_FOREIGN_MOUNTS"'
		ip link set lo up || exit 1
		mount -t tmpfs -o mode=755 iotape-run /run || exit 1
		mkdir -p /run/rpcbind /run/ganesha /run/lock
		exec bash "$0" "$@"' "$0" "$@"
fi

GANESHA_DIR=$TMP/ganesha
GANESHA_EXPORT=$TMP/export
GANESHA_EXPORT2=$TMP/export2
GANESHA_EXPORT3=$TMP/export3
mkdir -p "$GANESHA_DIR" "$GANESHA_EXPORT" "$GANESHA_EXPORT2" "$GANESHA_EXPORT3"
chmod 777 "$GANESHA_EXPORT" "$GANESHA_EXPORT2" "$GANESHA_EXPORT3"

# wait_port PORT TENTHS [ADDR [NETNS]]: poll ADDR:PORT (127.0.0.1) until it accepts a TCP
# connection, up to TENTHS tenths of a second; from inside network namespace NETNS if given.
wait_port() {
	local i addr=${3:-127.0.0.1}
	for ((i = 0; i < $2; i++)); do
		if [ -n "${4:-}" ]; then
			ip netns exec "$4" bash -c "exec 3<>/dev/tcp/$addr/$1" 2>/dev/null && return 0
		elif (exec 3<>"/dev/tcp/$addr/$1") 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# ganesha_lock: one test server at a time on this machine (ctest -j, or several checkouts
# testing at once); held until the test ends.
ganesha_lock() {
	exec 8>/tmp/iotape-ganesha-tests.lock
	flock 8
}

# ganesha_conf PATH=PSEUDO...: $GANESHA_DIR/ganesha.conf, NFSv3 and v4 on port 2049, one VFS
# export per argument (Export_Id 1, 2, ... in their order). No Bind_addr: ganesha resolves it
# with AI_ADDRCONFIG, which finds no address where lo is the only interface; in a namespace
# of its own binding every address is binding that namespace's.
ganesha_conf() {
	local id=0 e
	{
		cat <<CONF
NFS_CORE_PARAM { Protocols = 3, 4; NFS_Port = 2049;
                 Enable_NLM = false; Enable_RQUOTA = false; }
NFSV4 { Graceless = true; }
CONF
		for e in "$@"; do
			id=$((id + 1))
			cat <<CONF
EXPORT { Export_Id = $id; Path = ${e%=*}; Pseudo = ${e##*=}; Access_Type = RW;
         Squash = No_Root_Squash; SecType = sys; Protocols = 3, 4; Transports = TCP;
         FSAL { Name = VFS; } }
CONF
		done
		echo "LOG { Default_Log_Level = WARN; }"
	} >"$GANESHA_DIR/ganesha.conf"
}

ganesha_start() {
	ganesha_lock
	# rpcbind: NFSv3 clients ask it for the MOUNT port (ours: see the namespace above)
	if (exec 3<>/dev/tcp/127.0.0.1/2049) 2>/dev/null ||
		(exec 3<>/dev/tcp/127.0.0.1/111) 2>/dev/null; then
		fail "something listens on 127.0.0.1:2049 or :111 in the test's own network namespace"
	fi
	rpcbind -w -f &
	GANESHA_RPCBIND_PID=$!
	cleanup_hooks+=("kill $GANESHA_RPCBIND_PID; wait $GANESHA_RPCBIND_PID 2>/dev/null")
	wait_port 111 50 || fail "rpcbind did not start"
	ganesha_conf "$GANESHA_EXPORT=/export" "$GANESHA_EXPORT2=/export2" \
		"$GANESHA_EXPORT3=/export3"
	ganesha.nfsd -F -f "$GANESHA_DIR/ganesha.conf" -L "$GANESHA_DIR/ganesha.log" \
		-p "$GANESHA_DIR/ganesha.pid" -N NIV_WARN &
	GANESHA_PID=$!
	cleanup_hooks+=("kill $GANESHA_PID; wait $GANESHA_PID 2>/dev/null")
	wait_port 2049 100 || { cat "$GANESHA_DIR/ganesha.log" >&2; fail "ganesha did not start"; }
	NFS3_URL="nfs://127.0.0.1$GANESHA_EXPORT"
	NFS4_URL="nfs://127.0.0.1/export"
	NFS3_URL2="nfs://127.0.0.1$GANESHA_EXPORT2"
	NFS4_URL2="nfs://127.0.0.1/export2?version=4"
}

# capture_start FILE [FILTER]: tcpdump on lo until capture_stop.
capture_start() {
	tcpdump -i lo -s 0 -B "${CAPTURE_BUFFER_KIB:-65536}" --immediate-mode -U -w "$1" "${2:-tcp port 2049 or port 111}" \
		2>"$TMP/tcpdump.err" &
	CAPTURE_PID=$!
	cleanup_hooks+=("kill $CAPTURE_PID 2>/dev/null; wait $CAPTURE_PID 2>/dev/null")
	local i
	for ((i = 0; i < 50; i++)); do
		grep -q "listening on" "$TMP/tcpdump.err" 2>/dev/null && break
		sleep 0.1
	done
	sleep 0.2
}

capture_stop() {
	sleep 0.3
	kill -INT "$CAPTURE_PID"
	wait "$CAPTURE_PID" 2>/dev/null || true
}
