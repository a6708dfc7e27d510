# SPDX-License-Identifier: MIT
# Every input kind is opened once and sniffed on the stream itself: a FIFO, process
# substitution, standard input, gzip and zstd (files, FIFOs and pipes), a pcap on standard
# input. The numbers equal those of the plain file; nothing hangs.
source "$SRCDIR/tests/integration/lib.bash"
need_cmd zstd
cd "$TMP"
T=$SRCDIR/samples/ext4/loop0.blktrace.0
P=$SRCDIR/samples/nfs/run/net.pcap

# run NAME ARGS...: iotape analyze ARGS with a time limit (a hang is a failure)
run() {
	local name=$1 rc=0
	shift
	timeout 60 "$IOTAPE" analyze "$@" >"$name.out" 2>"$name.err" || rc=$?
	[ "$rc" -ne 124 ] || fail "$name: hangs"
	[ "$rc" -eq 0 ] || fail "$name: exit $rc: $(cat "$name.err")"
}
same() { cmp -s "$1.out" "$2.out" || fail "$2 differs from $1: $(diff "$1.out" "$2.out" | head -5)"; }

run plain "$T"
gzip -c "$T" >t.gz
zstd -q -c "$T" >t.zst
run gzfile t.gz && same plain gzfile
run zstfile t.zst && same plain zstfile
run zstjson --json t.zst
expect_eq "compression" "$(json "['input']['files'][0]['compression']" zstjson.out)" zstd
run procsub <(cat "$T") && same plain procsub
run procsub_gz <(gzip -c "$T") && same plain procsub_gz
run procsub_zst <(zstd -q -c "$T") && same plain procsub_zst
run stdin - <"$T" && same plain stdin
gzip -c "$T" | run stdin_gz - && same plain stdin_gz
zstd -q -c "$T" | run stdin_zst - && same plain stdin_zst
mkfifo fifo
{ gzip -c "$T" >fifo & } 2>/dev/null
run fifo_gz fifo && same plain fifo_gz
wait

# compressed files cut short: the records before the cut, and a warning, as for a plain file
# (zstd writes blocks of up to 128 KiB: a longer trace, so that half of it holds some)
python3 "$SRCDIR/tests/integration/analyze_oracle.py" records long.bin 20000
gzip -c long.bin >long.gz
zstd -q -c long.bin >long.zst
head -c $(($(stat -c %s long.gz) / 2)) long.gz >cut.gz
head -c $(($(stat -c %s long.zst) / 2)) long.zst >cut.zst
for f in cut.gz cut.zst; do
	run "$f" --json "$f"
	grep -q "warning: '$f': truncated record at offset" "$f.err" || fail "$f: no warning: $(cat "$f.err")"
	[ "$(json "['input']['events']" "$f.out")" -gt 5000 ] || fail "$f: too few events"
done
head -c 3000 "$P" | gzip -c | head -c 1500 >cutpcap.gz
for cmd in analyze report compare; do
	rc=0
	"$IOTAPE" "$cmd" cutpcap.gz -o "cutpcap.$cmd" >/dev/null 2>err || rc=$?
	expect_eq "$cmd: gzip capture cut short: exit status" "$rc" 0
	grep -q "warning: 'cutpcap.gz': the capture ends inside a packet record" err ||
		fail "$cmd: gzip capture cut short: $(cat err)"
done

# a zstd per-CPU set and run directory
mkdir zrun
for f in "$SRCDIR"/samples/ext4/loop0.blktrace.*; do zstd -q -c "$f" >"zrun/$(basename "$f").zst"; done
run dir "$SRCDIR/samples/ext4" && run zdir zrun && same dir zdir
run zset zrun/loop0 && same dir zset

# packet captures: stdin, process substitution, gzip'ed through a pipe; the report of the
# stream names it as given, so compare the JSON documents' nfs objects
# (without input.gzip, which says how the bytes came, and input.files, which names them)
nfs() {
	python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["nfs"]; n["input"].pop("gzip"); n["input"].pop("files")
print(json.dumps(n, sort_keys=True))' "$1.out"
}
run pcap --json "$P"
run pcap_stdin --json - <"$P"
expect_eq "pcap on stdin" "$(nfs pcap_stdin)" "$(nfs pcap)"
run pcap_procsub --json <(cat "$P")
expect_eq "pcap by process substitution" "$(nfs pcap_procsub)" "$(nfs pcap)"
gzip -c "$P" | run pcap_gz --json -
expect_eq "gzip pcap on stdin" "$(nfs pcap_gz)" "$(nfs pcap)"
run pcap_text - <"$P"
grep -q "^capture '-': " pcap_text.out || fail "pcap on stdin: $(head -3 pcap_text.out)"
echo "analyze_streams: ok"
