# SPDX-License-Identifier: MIT
# iotape analyze on bad input: wrong magic, unsupported version, truncated record, empty set,
# missing file -> exit 2 naming the file (and the offset, and the record); bad bytes in the
# middle (garbage, an impossible pdu_len) -> exit 2 naming file, record and offset, with what
# was read before them reported as partial results and a warning; a truncated final record ->
# a warning, exit 0, and every record before it counted.
source "$SRCDIR/tests/integration/lib.bash"
ORACLE="$SRCDIR/tests/integration/analyze_oracle.py"
cd "$TMP"

bad() { # FILE PATTERN: exit 2 and stderr matching PATTERN
	local rc=0
	"$IOTAPE" analyze "$1" >out 2>err || rc=$?
	expect_eq "exit status for $1" "$rc" 2
	grep -Eq "$2" err || fail "$1: message '$(cat err)' does not match '$2'"
	[ ! -s out ] || fail "$1: wrote output"
}

head -c 48 /dev/zero >zero.bin
bad zero.bin "^iotape: analyze: 'zero.bin': bad magic 0x00000000 at offset 0 \\(record 1\\)$"
python3 "$ORACLE" records magic.bin 2 7 0x12345600
bad magic.bin "'magic.bin': bad magic 0x12345607 at offset 0"
python3 "$ORACLE" records v9.bin 3 9
bad v9.bin "'v9.bin': unsupported blktrace version 9 at offset 0"
python3 "$ORACLE" records good.bin 10
head -c 30 good.bin >short.bin
bad short.bin "'short.bin': truncated record at offset 0"

# partial PATTERN EVENTS ARGS...: exit 2, the error on the last line of stderr, a warning
# before it, and the document of the EVENTS events read before the bad bytes
partial() {
	local want=$1 events=$2 rc=0
	shift 2
	"$IOTAPE" analyze --json "$@" >out.json 2>err || rc=$?
	expect_eq "exit status for $*" "$rc" 2
	tail -1 err | grep -Eq "$want" || fail "$*: last message '$(tail -1 err)' does not match '$want'"
	grep -q "warning: partial results" err || fail "$*: no partial-results warning: $(cat err)"
	expect_eq "$*: partial" "$(json "['input']['partial']" out.json)" True
	expect_eq "$*: events" "$(json "['input']['events']" out.json)" "$events"
	json "['input']['warnings']" out.json | grep -q "partial results" || fail "$*: no JSON warning"
	"$IOTAPE" analyze "$@" >out.txt 2>/dev/null || true
	grep -q "^partial results" out.txt || fail "$*: the text summary does not say partial"
}
{ head -c 480 good.bin; printf 'this is not a blktrace record at all, no way!!!!'; } >mid.bin
partial "'mid.bin': bad magic 0x[0-9a-f]+ at offset 480 \\(record 11\\)$" 10 mid.bin
# an impossible pdu_len in the fifth record (offset 192; at offset 46 of the record)
python3 - good.bin pdu.bin <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[4 * 48 + 46:4 * 48 + 48] = b"\xff\xff"
open(sys.argv[2], "wb").write(d)
PY
partial "'pdu.bin': impossible pdu_len 65535 .* at offset 192 \\(record 5\\)$" 4 pdu.bin
# a packet capture whose 50th record says 4 GiB: the same, for the 49 frames before it
off=$(python3 - "$SRCDIR/samples/nfs/run/net.pcap" big.pcap <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = 24
for _ in range(49):
    off += 16 + struct.unpack("<I", d[off + 8:off + 12])[0]
d[off + 8:off + 16] = b"\xff" * 8
open(sys.argv[2], "wb").write(d)
print(off)
PY
)
for fmt in json text; do
	rc=0
	"$IOTAPE" analyze $([ $fmt = text ] || echo --json) big.pcap >out.$fmt 2>err || rc=$?
	expect_eq "4 GiB record: exit status" "$rc" 2
	tail -1 err | grep -q "'big.pcap': .* at offset $off (record 50)$" ||
		fail "4 GiB record: '$(tail -1 err)'"
	grep -q "warning: partial results" err || fail "4 GiB record: no warning: $(cat err)"
done
expect_eq "4 GiB record: partial" "$(json "['nfs']['input']['partial']" out.json)" True
expect_eq "4 GiB record: frames" "$(json "['nfs']['input']['frames']" out.json)" 49
grep -q "^partial results" out.text || fail "4 GiB record: the text does not say partial"
mkdir empty && : >empty/e.blktrace.0 && : >empty/e.blktrace.1
bad empty/e "empty trace set"
bad empty "empty trace set"
: >one.blktrace.0
bad one.blktrace.0 "'one.blktrace.0': empty trace file"
bad nonexistent "'nonexistent': no such file"
ln -s loop loop
bad loop "^iotape: analyze: 'loop': a symbolic link loop$"
echo '{"tool": "iotape"}' >summary.json
bad summary.json "'summary.json': a JSON document; analyze reads run directories"
# fio iologs are read (as issue events): one with no IO is empty, a bad line is named
printf 'fio version 2 iolog\n' >io.log
bad io.log "'io.log': empty trace file"
printf 'fio version 3 iolog\n1 /dev/sdb add\n2 /dev/sdb rread 0 4096\n' >bad.iolog
bad bad.iolog "'bad.iolog': line 3: unknown operation 'rread'"
# the second of two per-CPU files is bad: still an error, naming that file
mkdir pair && cp good.bin pair/p.blktrace.0 && cp zero.bin pair/p.blktrace.1
bad pair/p "'pair/p.blktrace.1': bad magic 0x00000000 at offset 0"

# a truncated final record: a warning, and the 10 records before it
{ cat good.bin; head -c 20 good.bin; } >trunc.bin
"$IOTAPE" analyze --json trunc.bin >out.json 2>err || fail "truncated final record: exit $?"
grep -q "warning: 'trunc.bin': truncated record at offset 480 ignored" err ||
	fail "no truncation warning: $(cat err)"
expect_eq "events" "$(json "['input']['events']" out.json)" 10
expect_eq "queued" "$(json "['devices'][0]['actions']['queue']['writes']" out.json)" 10
expect_eq "truncated files" "$(json "['input']['truncated']" out.json)" 1
expect_eq "truncated at" "$(json "['input']['files'][0]['truncated_at']" out.json)" 480
expect_eq "versions" "$(json "['input']['versions']" out.json)" "[7]"
json "['input']['warnings'][0]" out.json | grep -q "truncated record at offset 480" ||
	fail "no warning in the JSON document"
# the same through stdin
{ cat good.bin; head -c 20 good.bin; } | "$IOTAPE" analyze --json - >out.json 2>err
expect_eq "stdin events" "$(json "['input']['events']" out.json)" 10
grep -q "warning: '-': truncated record at offset 480" err || fail "stdin: no warning"

# usage errors
rc=0; "$IOTAPE" analyze >/dev/null 2>err || rc=$?
expect_eq "no input" "$rc" 2
grep -q "usage: iotape analyze" err || fail "no usage line"
rc=0; "$IOTAPE" analyze --interval 0 good.bin >/dev/null 2>&1 || rc=$?
expect_eq "zero interval" "$rc" 2
rc=0; "$IOTAPE" analyze --interval fast good.bin >/dev/null 2>&1 || rc=$?
expect_eq "bad interval" "$rc" 2
rc=0; "$IOTAPE" analyze --top -1 good.bin >/dev/null 2>&1 || rc=$?
expect_eq "bad top" "$rc" 2
rc=0; "$IOTAPE" analyze --bogus good.bin >/dev/null 2>&1 || rc=$?
expect_eq "unknown option" "$rc" 2
echo "analyze_badinput: ok"
