# SPDX-License-Identifier: MIT
# fio iologs as input: what fio's write_iolog writes is read back by analyze with fio's own IO
# counts and bytes (plain, gzip, stdin, two jobs appending to one log), replayed by replay,
# and an export read back gives the trace's issue counts (versions 2 and 3).
source "$SRCDIR/tests/integration/lib.bash"
need_cmd fio
[ -x "$TOOLS/blkgen" ] || skip "blkgen not built"
blkgen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/blkgen" "$@"; }
cd "$TMP"
fiojson() {
	python3 -c 'import json,sys; t=open(sys.argv[2]).read(); d=json.loads(t[t.index("{"):])
print(eval("d"+sys.argv[1]))' "$1" "$2"
}
# issued EXPR FILE: reads/writes/bytes of the issue events in an analyze JSON document
issued() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[2]))
i=[x["actions"]["issue"] for x in d["devices"]]
print(eval(sys.argv[1]))' "$1" "$2"
}

truncate -s 16M f.img
fio --name=w --filename="$TMP/f.img" --size=16M --rw=randrw --rwmixread=60 --bsrange=4k-64k \
	--io_size=4M --ioengine=psync --write_iolog="$TMP/w.iolog" --output-format=json \
	--output=fio.json >fio.out 2>&1 || fail "fio: $(cat fio.out)"
expect_eq "fio writes version 3" "$(head -1 w.iolog)" "fio version 3 iolog"
reads=$(fiojson "['jobs'][0]['read']['total_ios']" fio.json)
writes=$(fiojson "['jobs'][0]['write']['total_ios']" fio.json)
rbytes=$(fiojson "['jobs'][0]['read']['io_bytes']" fio.json)
wbytes=$(fiojson "['jobs'][0]['write']['io_bytes']" fio.json)
[ "$reads" -gt 10 ] && [ "$writes" -gt 10 ] || fail "fio did too little: $reads reads, $writes writes"

check() { # WHAT JSON: the issue events are fio's IOs
	expect_eq "$1: format" "$(json "['input']['files'][0]['format']" "$2")" "fio iolog"
	expect_eq "$1: reads" "$(issued "sum(x['reads'] for x in i)" "$2")" "$reads"
	expect_eq "$1: writes" "$(issued "sum(x['writes'] for x in i)" "$2")" "$writes"
	expect_eq "$1: read bytes" "$(issued "sum(x['read_bytes'] for x in i)" "$2")" "$rbytes"
	expect_eq "$1: write bytes" "$(issued "sum(x['write_bytes'] for x in i)" "$2")" "$wbytes"
}
"$IOTAPE" analyze --json w.iolog >a.json || fail "analyze w.iolog"
check "plain" a.json
expect_eq "iolog version" "$(json "['input']['files'][0]['iolog_version']" a.json)" 3
expect_eq "one device per file" "$(json "['devices'][0]['dev']" a.json)" "0,1"
gzip -k w.iolog
"$IOTAPE" analyze --json w.iolog.gz >a.json || fail "analyze w.iolog.gz"
check "gzip" a.json
"$IOTAPE" analyze --json - <w.iolog >a.json || fail "analyze stdin"
check "stdin" a.json
"$IOTAPE" analyze w.iolog >text.txt || fail "analyze text"
grep -q "^device 0,1:" text.txt || fail "no device in the text: $(head -3 text.txt)"

# two jobs appending to one log: two headers, both jobs' IOs
rm -f w2.iolog
fio --name=w --filename="$TMP/f.img" --size=16M --rw=randread --bs=4k --io_size=256k \
	--numjobs=2 --ioengine=psync --write_iolog="$TMP/w2.iolog" >/dev/null 2>&1 || fail "fio x2"
expect_eq "two headers" "$(grep -c '^fio version 3 iolog' w2.iolog)" 2
"$IOTAPE" analyze --json w2.iolog >a2.json || fail "analyze w2.iolog"
expect_eq "two jobs' reads" "$(issued "sum(x['reads'] for x in i)" a2.json)" 128

# replay: every IO of the log, as fio did them
truncate -s 16M g.img
"$IOTAPE" replay w.iolog --target "$TMP/g.img" --allow-writes --timing afap --json >r.json ||
	fail "replay w.iolog"
expect_eq "replayed reads" "$(json "['replay']['ops']['read']" r.json)" "$reads"
expect_eq "replayed writes" "$(json "['replay']['ops']['write']" r.json)" "$writes"
expect_eq "replayed bytes" "$(json "['replay']['bytes']" r.json)" "$((rbytes + wbytes))"
expect_eq "no completions to wait for" "$(json "['replay']['pending_evicted']" r.json)" 0
"$IOTAPE" replay w.iolog --target "$TMP/g.img" --from queue 2>err && fail "--from queue accepted"
grep -q "fio iolog" err || fail "no reason for refusing --from queue: $(cat err)"

# an export read back: the trace's issue events, in versions 3 and 2
mkdir t
blkgen -o t --ios 2000 --seed 6 --devices 2 --cpus 2 >/dev/null
"$IOTAPE" analyze --json t/trace >t.json
for v in 3 2; do
	"$IOTAPE" export t/trace -f fio-iolog --iolog-version $v -o x$v >/dev/null || fail "export v$v"
	for f in x$v/*.iolog; do
		"$IOTAPE" analyze --json "$f" >b.json || fail "analyze $f"
		dev=$(basename "$f" .iolog | sed 's/^dev//; s/_/,/')
		python3 - t.json b.json "$dev" <<'EOF' || fail "v$v $f: issue counts differ from the trace's"
import json, sys
t = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
want = next(d for d in t["devices"] if d["dev"] == sys.argv[3])["actions"]["issue"]
got = b["devices"][0]["actions"]["issue"]
assert want == got, (want, got)
EOF
	done
done
# a v3 iolog whose times go backwards (issue #25 item 12: counted, never reported; analyze
# said "span 0 ns from 5.0 s" for IOs at 0 and 1 ms after one at 5 s): analyze and replay
# say so
printf '%s\n' "fio version 3 iolog" "5000000 /dev/x add" "5000000 /dev/x open" \
	"5000000 /dev/x read 0 4096" "0 /dev/x read 4096 4096" "1000 /dev/x read 8192 4096" \
	"1000 /dev/x close" >back.iolog
"$IOTAPE" analyze back.iolog >back.txt 2>back.err || fail "analyze back.iolog"
grep -q "'back.iolog': 1 times go backwards" back.err || fail "analyze: $(cat back.err)"
"$IOTAPE" analyze --json back.iolog 2>/dev/null >back.json || fail "analyze --json back.iolog"
python3 - back.json <<'EOF' || fail "analyze --json: no warning"
import json, sys
d = json.load(open(sys.argv[1]))
assert any("times go backwards" in w for w in d["input"]["warnings"]), d["input"]
EOF
truncate -s 1M back.img
"$IOTAPE" replay --timing afap --target back.img back.iolog >/dev/null 2>back.err ||
	fail "replay back.iolog"
grep -q "'back.iolog': 1 times go backwards" back.err || fail "replay: $(cat back.err)"
echo "iolog_import: ok"
