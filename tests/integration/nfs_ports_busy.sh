#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The NFS tests do not depend on the machine's ports: with something else listening on
# 127.0.0.1:2049 and :111 (a real NFS server, rpcbind, another test's ganesha), the ganesha
# based test still runs and passes (ganesha.bash gives it a network namespace of its own).
source "$SRCDIR/tests/integration/lib.bash"
need_root
python3 - "$TMP/ready" <<'PY' &
import socket, sys, time
held = []
for port in (2049, 111):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
        s.listen()
        held.append(s)
    except OSError:
        pass  # taken already: by something else, which serves this test as well
open(sys.argv[1], "w").write(" ".join(str(s.getsockname()[1]) for s in held))
time.sleep(600)
PY
holder=$!
cleanup_hooks+=("kill $holder; wait $holder 2>/dev/null")
for _ in $(seq 50); do [ -e "$TMP/ready" ] && break; sleep 0.1; done
for port in 2049 111; do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || fail "nothing listens on $port"
done
bash "$SRCDIR/tests/integration/nfs_tshark.sh" >"$TMP/out" 2>&1 ||
	fail "nfs_tshark with 2049 and 111 taken: $(tail -5 "$TMP/out")"
echo ok
