# SPDX-License-Identifier: MIT
# iotape replay --fio-client's command line, onto files (no root): a hosts file, --map by
# number and by HOST:PORT, writes left out without --allow-writes, the text summary, and the
# errors: a server nobody runs, more devices than hosts, bad arguments.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/fio_servers.bash"
[ -x "$TOOLS/replaygen" ] || skip "replaygen not built"
replaygen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/replaygen" "$@"; }
cd "$TMP"

# two servers, and a third port nobody serves
fio_servers 2 1
ports=("${FIO_PORTS[@]}")
replaygen -o tr -n sdx --devs 2 --ios 400 --seed 3 --gap-us 200 --read-pct 60 --span-mb 30 \
	>/dev/null
truncate -s 32M a.img b.img

# a hosts file with the devices named, comments and blank lines
cat >hosts <<EOF
# two servers on this machine
127.0.0.1:${ports[0]}=$TMP/b.img   8,17

127.0.0.1:${ports[1]}=$TMP/a.img   8,16   # the other
EOF
"$IOTAPE" replay tr/sdx --fio-hosts hosts --fio-dir work --json --engine psync >r.json ||
	fail "replay with a hosts file: $(tail -3 work/fio.log)"
python3 - r.json "${ports[@]}" <<'EOF' || fail "hosts file: wrong result"
import json, sys
r = json.load(open(sys.argv[1]))
p = [int(x) for x in sys.argv[2:]]
by = {h["port"]: h["devices"][0] for h in r["hosts"]}
assert by[p[0]]["dev"] == "8,17" and by[p[1]]["dev"] == "8,16", by
for d in by.values():
    # no --allow-writes: the writes are left out, the reads replayed
    assert d["fio"]["ops"]["write"] == 0 and d["trace"]["skipped_writes"] > 0, d
    assert d["fio"]["ops"]["read"] == d["trace"]["ops"]["read"] > 0, d
assert r["options"]["writes"] == "skipped" and r["options"]["ioengine"] == "psync"
EOF
grep -q "^ioengine=psync" work/127.0.0.1-"${ports[0]}".fio || fail "no psync in the job file"

# --map by number and by HOST:PORT; --timing afap and --speed reach the job files; text
"$IOTAPE" replay tr/sdx --fio-client "127.0.0.1:${ports[0]}=$TMP/a.img" \
	--fio-client "127.0.0.1:${ports[1]}=$TMP/b.img" --map 8,16=2 \
	--map "8,17=127.0.0.1:${ports[0]}" --allow-writes --speed 2 --fio-dir work2 >text.txt ||
	fail "replay with --map"
grep -q "127.0.0.1:${ports[1]} dev8_16 -> $TMP/b.img" text.txt || fail "map by number: $(cat text.txt)"
grep -q "127.0.0.1:${ports[0]} dev8_17 -> $TMP/a.img" text.txt || fail "map by host: $(cat text.txt)"
grep -Eq "fio: +[0-9]+ reads, [0-9]+ writes" text.txt || fail "no fio counts: $(cat text.txt)"
grep -q "^replay_time_scale=200" work2/*.fio || fail "--speed 2 not in the job files"
"$IOTAPE" replay tr/sdx --fio-client "127.0.0.1:${ports[0]}=$TMP/a.img" \
	--fio-client "127.0.0.1:${ports[1]}=$TMP/b.img" --timing afap --fio-dir work3 >/dev/null ||
	fail "--timing afap"
grep -q "^replay_no_stall=1" work3/*.fio || fail "--timing afap not in the job files"

# errors
rc=0
"$IOTAPE" replay tr/sdx --fio-client "127.0.0.1:${ports[0]}=$TMP/a.img" \
	--fio-client "127.0.0.1:${ports[2]}=$TMP/b.img" --fio-dir work4 >/dev/null 2>err || rc=$?
expect_eq "a server nobody runs: exit" "$rc" 3
grep -q "fio: .*${ports[2]}" err || fail "the unreachable server is not named: $(cat err)"
rc=0
"$IOTAPE" replay tr/sdx --fio-client "127.0.0.1:${ports[0]}=$TMP/a.img" --fio-dir w5 2>err || rc=$?
expect_eq "two devices, one host: exit" "$rc" 2
grep -q -- "--map" err || fail "no hint at --map: $(cat err)"
for bad in "127.0.0.1" "127.0.0.1:99999=/x" "::1:8765=/x" "=/x"; do
	"$IOTAPE" replay tr/sdx --fio-client "$bad" --fio-dir w6 2>err && fail "--fio-client '$bad' accepted"
	grep -q "fio-client" err || fail "no message for '$bad': $(cat err)"
done
"$IOTAPE" replay tr/sdx --fio-client "127.0.0.1:${ports[0]}=$TMP/a.img" --map 8,16=host9 \
	--fio-dir w7 2>err && fail "--map to no host accepted"
"$IOTAPE" replay tr/sdx --fio-client "127.0.0.1:${ports[0]}=$TMP/a.img" --wrap --fio-dir w8 2>err &&
	fail "--wrap accepted with --fio-client"
grep -q "not an option of a replay through fio" err || fail "--wrap: $(cat err)"
# a target on this machine gets the local safety checks: the trace itself is never one
"$IOTAPE" replay tr/sdx.blktrace.0 --fio-client "127.0.0.1:${ports[0]}=$TMP/tr/sdx.blktrace.0" \
	--allow-writes --fio-dir w9 2>err && fail "the trace accepted as its own target"
grep -q "input" err || fail "no reason for refusing the trace as a target: $(cat err)"
echo "replay_fio_cli: ok"
