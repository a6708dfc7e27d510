#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packets with -i lo against a local TCP listener: net.pcap with nanosecond timestamps holds
# the conversation, the manifest counts it, and block tracing runs beside it.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd python3

make_loop 256M
make_fs ext4
echo "hello from iotape" >"$MNT/index.html"

PORT=$((20000 + RANDOM % 20000))
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$MNT" >/dev/null 2>&1 &
srv=$!
cleanup_hooks=("kill $srv" "${cleanup_hooks[@]}")
for _ in $(seq 50); do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null && break
	sleep 0.1
done

RUN="$TMP/run"
"$IOTAPE" capture -o "$RUN" -d "$LOOP" -i lo --filter "tcp port $PORT" -- \
	python3 -c "import urllib.request as u
for i in range(5): assert b'hello' in u.urlopen('http://127.0.0.1:$PORT/index.html').read()" ||
	fail "capture exited $?"
tracing_is_off
[ -s "$RUN/net.pcap" ] || fail "no net.pcap"
magic=$(od -An -tx4 -N4 "$RUN/net.pcap" | tr -d ' ')
expect_eq "pcap magic (nanosecond)" "$magic" "a1b23c4d"
packets=$(json '["network"]["packets"]' "$RUN/manifest.json")
[ "$packets" -ge 20 ] || fail "only $packets packets captured for 5 HTTP requests"
expect_eq "packet drops" "$(json '["counts"]["packet_drops"]' "$RUN/manifest.json")" "0"
expect_eq "filter" "$(json '["network"]["filter"]' "$RUN/manifest.json")" "tcp port $PORT"
if command -v tshark >/dev/null; then
	n=$(tshark -r "$RUN/net.pcap" -Y "http.request" 2>/dev/null | wc -l)
	expect_eq "HTTP requests seen by tshark" "$n" "5"
fi
# packet-only capture (no -d) also works
"$IOTAPE" capture -o "$TMP/run2" -i lo --filter "tcp port $PORT" -- \
	python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/index.html').read()" ||
	fail "packet-only capture exited $?"
[ "$(json '["network"]["packets"]' "$TMP/run2/manifest.json")" -ge 4 ] || fail "packet-only: too few packets"
echo "ok"
