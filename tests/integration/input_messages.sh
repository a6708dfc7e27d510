# SPDX-License-Identifier: MIT
# Messages about inputs say what the input is: JSON given to report (and a manifest or any
# other JSON to compare), each path once, a symbolic link loop as such, a packet capture of
# a link type iotape does not decode.
source "$SRCDIR/tests/integration/lib.bash"
cd "$TMP"
G=$SRCDIR/tests/golden/compare/runs

# msg WANT_STATUS PATTERN CMD...: the status, and stderr matching PATTERN
msg() {
	local want=$1 pat=$2 rc=0
	shift 2
	"$IOTAPE" "$@" >out 2>err || rc=$?
	expect_eq "$* : exit status" "$rc" "$want"
	grep -Eq "$pat" err || fail "$*: '$(cat err)' does not match '$pat'"
}

msg 2 "^iotape: report: '.*debian12-ext4-1.json': a JSON document; report reads run directories, blktrace traces and packet captures \(saved 'analyze --json' summaries go to 'iotape compare'\)$" \
	report "$G/debian12-ext4-1.json" -o r.html
msg 2 "^iotape: compare: '.*manifest.json': a run's manifest.json, not an 'iotape analyze --json' summary: give its run directory$" \
	compare "$SRCDIR/samples/ext4/manifest.json"
echo '{"hello": "world"}' >other.json
msg 2 "^iotape: compare: 'other.json': not an 'iotape analyze --json' summary \(no devices, no nfs\)$" \
	compare other.json
# a summary on standard input is read once
"$IOTAPE" compare --format csv - <"$G/debian12-ext4-1.json" >out || fail "compare of a summary on stdin"
grep -q "^mbps" out || fail "compare of stdin: $(cat out)"

# each path once in report's messages
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00' >hdr.pcap
msg 2 "'hdr.pcap': not a packet capture" report hdr.pcap -o r.html
expect_eq "report: the path once" "$(grep -o "hdr.pcap" err | wc -l)" 1
ln -s loop loop
for cmd in analyze report compare; do
	msg 2 "^iotape: $cmd: 'loop': a symbolic link loop$" $cmd loop -o x
done

# a link type that is not decoded: said in the text, with a warning
python3 - <<'PY'
import struct
hdr = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 105)  # LINKTYPE_IEEE802_11 (Wi-Fi)
rec = struct.pack("<IIII", 1, 0, 10, 10) + b"0123456789"
open("wifi.pcap", "wb").write(hdr + rec * 3)
PY
msg 0 "warning: 'wifi.pcap': link type 105 \(IEEE802_11\) is not decoded: 3 frames skipped" \
	analyze wifi.pcap
grep -q "link type 105 (IEEE802_11) is not decoded: 3 frames skipped" out || fail "text: $(cat out)"
echo "input_messages: ok"
