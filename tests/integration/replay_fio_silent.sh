#!/bin/bash
# SPDX-License-Identifier: MIT
# replay --fio-client onto a server that accepts the connection and never answers (issue #25
# item 10: fio's client waited for it for ever, deaf to SIGTERM): fio is stopped after
# --fio-timeout and the replay fails with a message naming the host (exit 3).
source "$SRCDIR/tests/integration/lib.bash"
need_cmd fio
need_cmd timeout
cd "$TMP"

# the silent server: accepts and keeps every connection, says nothing
python3 - >port <<'PY' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
print(s.getsockname()[1], flush=True)
conns = []
while True:
    conns.append(s.accept()[0])
PY
server=$!
cleanup_hooks+=("kill $server")
for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
[ -s port ] || fail "the fake server did not start"

"$TOOLS/replaygen" -o tr -n sdx --ios 50 --seed 3 --gap-us 200 --read-pct 100 >/dev/null
truncate -s 8M a.img
t0=$(date +%s)
rc=0
timeout 60 "$IOTAPE" replay tr/sdx --fio-client "127.0.0.1:$(cat port)=$TMP/a.img" \
	--fio-dir work --fio-timeout 2s 2>err || rc=$?
t1=$(date +%s)
cat err >&2
[ "$rc" -ne 124 ] || fail "the replay waited on the silent server for a minute"
expect_eq "exit status" "$rc" 3
grep -q "fio did not finish within 2.000 s and was stopped: does every server answer? (127.0.0.1:$(cat port)" err ||
	fail "no message naming the server"
[ $((t1 - t0)) -le 15 ] || fail "took $((t1 - t0)) s"
! pgrep -f "fio.*--client=127.0.0.1,$(cat port)" >/dev/null || fail "fio left running"
echo "PASS"
