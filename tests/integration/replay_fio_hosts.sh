# SPDX-License-Identifier: MIT
# iotape replay --fio-client across three "hosts": three `fio --server` instances on 127.0.0.1
# (different ports), each with its own loop device. A capture of the three devices shows that
# each got the IOs of the trace's device mapped to it, in the trace's order; the JSON result
# has one entry per host with fio's counts, and the combined summary.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
source "$SRCDIR/tests/integration/fio_servers.bash"
[ -x "$TOOLS/replaygen" ] || skip "replaygen not built"
replaygen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/replaygen" "$@"; }
cd "$TMP"

# three loop devices (detached on exit)
loops=()
loops_cleanup() { for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done; }
cleanup_hooks+=(loops_cleanup)
for i in 0 1 2; do
	truncate -s 96M "disk$i.img"
	l=$(losetup -f --show "disk$i.img") || skip "losetup -f failed: no free loop device"
	loops+=("$l")
done

# three fio servers on loopback (stopped on exit)
fio_servers 3
ports=("${FIO_PORTS[@]}")

# a trace of three devices (8,16 8,17 8,18), reads, writes and flushes
replaygen -o tr -n sdx --devs 3 --ios 900 --seed 12 --gap-us 300 --lat-us 400 --read-pct 50 \
	--flush-every 70 --span-mb 80 >/dev/null
"$IOTAPE" export tr/sdx -f csv -o trace.csv || fail "csv of the trace"

# device i of the trace onto loop device i, on server i (by --map, in reverse order of the
# --fio-client arguments, so that the mapping is the map's and not the order's)
args=()
for i in 2 1 0; do args+=(--fio-client "127.0.0.1:${ports[$i]}=${loops[$i]}"); done
for i in 0 1 2; do args+=(--map "8,$((16 + i))=127.0.0.1:${ports[$i]}"); done
capture -o cap -d "${loops[0]}" -d "${loops[1]}" -d "${loops[2]}" -- \
	"$IOTAPE" replay tr/sdx "${args[@]}" --allow-writes --json --fio-dir "$TMP/work" \
	>result.json || fail "replay through three fio servers: $(tail -5 work/fio.log 2>/dev/null)"
for l in "${loops[@]}"; do LOOPNAME=$(basename "$l") tracing_is_off; done

# the result: one host per server, each with its device, fio's counts equal to the trace's
python3 - result.json "${ports[@]}" <<'EOF' || fail "the JSON result is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
ports = [int(p) for p in sys.argv[2:]]
assert len(r["hosts"]) == 3, r["hosts"]
seen = set()
for h in r["hosts"]:
    assert h["host"] == "127.0.0.1"
    (d,) = h["devices"]
    i = ports.index(h["port"])
    assert d["dev"] == "8,%d" % (16 + i), (d["dev"], h["port"])
    f, t = d["fio"], d["trace"]
    assert f["reported"] and f["error"] == 0, f
    # fio 3.33 does an iolog's syncs (the capture sees the flushes) but does not count them
    for op in ("read", "write", "trim"):
        assert f["ops"][op] == t["ops"][op], (op, f["ops"], t["ops"])
    assert f["ios"] > 250 and t["ops"]["sync"] > 0, (f, t)
    seen.add(i)
assert seen == {0, 1, 2}
c = r["combined"]
assert c["fio"]["ios"] == sum(h["devices"][0]["fio"]["ios"] for h in r["hosts"])
assert c["trace"]["ios"] == sum(h["devices"][0]["trace"]["ios"] for h in r["hosts"])
assert r["fio"]["status"] == 0
EOF

# the capture: what fio queued on each loop device is its trace device's D events, in order
"$IOTAPE" export cap -f csv -o cap.csv || fail "csv of the capture"
for i in 0 1 2; do
	dev="8:$((16 + i))"
	ld=$(stat -c '%t %T' "${loops[$i]}")
	ld="$((16#${ld% *})):$((16#${ld#* }))"
	awk -F, -v d="$dev" '$2 == d && $6 == "issue" && $9 > 0 {
		print $8, $9, ($7 ~ /W/ ? "W" : "R") }' trace.csv >want$i.txt
	# fio's pids: a pid's name comes with its PROCESS note, which may follow its first
	# events, so the rows are picked by pid, not by the name on each row
	awk -F, -v d="$ld" 'NR == FNR { if ($11 ~ /^fio/) fio[$5] = 1; next }
		$2 == d && $6 == "queue" && ($5 in fio) && $9 > 0 {
		print $8, $9, ($7 ~ /W/ ? "W" : "R") }' cap.csv cap.csv >got$i.txt
	[ -s want$i.txt ] || fail "no IOs of $dev in the trace"
	cmp -s want$i.txt got$i.txt || {
		diff want$i.txt got$i.txt | head >&2
		fail "${loops[$i]} (server ${ports[$i]}) did not get $dev's IOs in order"
	}
done
echo "replay_fio_hosts: $(cat want0.txt want1.txt want2.txt | wc -l) IOs on three servers as traced"
