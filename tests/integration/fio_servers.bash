# SPDX-License-Identifier: MIT
# Sourced by the --fio-client tests (after lib.bash): `fio --server` instances on 127.0.0.1,
# each on a port nobody listens on, stopped on exit. Not a test itself.
need_cmd fio

FIO_SERVER_PIDS=()
fio_servers_cleanup() {
	for p in "${FIO_SERVER_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
cleanup_hooks+=(fio_servers_cleanup)

# listening PORT: something accepts connections on 127.0.0.1:PORT
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# fio_servers N [IDLE]: start N servers and wait until they listen; their ports in
# FIO_PORTS, followed by IDLE more free ports that nobody serves (for the error cases)
fio_servers() {
	local n=$1 idle=${2:-0} port=$((20000 + ($$ % 6000) * 7)) p
	FIO_PORTS=()
	while [ ${#FIO_PORTS[@]} -lt $((n + idle)) ]; do
		port=$((port + 1))
		listening "$port" && continue
		if [ ${#FIO_PORTS[@]} -lt "$n" ]; then
			fio --server="ip:127.0.0.1,$port" >"$TMP/fio-server$port.log" 2>&1 &
			FIO_SERVER_PIDS+=($!)
		fi
		FIO_PORTS+=("$port")
	done
	for p in "${FIO_PORTS[@]:0:$n}"; do
		for _ in $(seq 100); do listening "$p" && break; sleep 0.1; done
		listening "$p" || fail "fio --server on port $p did not listen: $(cat "$TMP/fio-server$p.log")"
	done
}
