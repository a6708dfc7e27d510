# SPDX-License-Identifier: MIT
# Strings from traces and manifests (process names, kernel strings, labels) never reach the
# output raw: control bytes are escaped in text, Markdown and CSV, and CSV cells that would
# start a formula are neutralised (OWASP CSV injection).
source "$SRCDIR/tests/integration/lib.bash"
cd "$TMP"
GOLD=$SRCDIR/tests/golden/compare/runs

# no_raw FILE: no control byte other than newline, and no C1 control, in FILE
no_raw() {
	python3 - "$1" <<'PY' || fail "$1 holds raw control bytes"
import sys
d = open(sys.argv[1], "rb").read()
bad = [b for b in d if (b < 0x20 and b != 0x0a) or b == 0x7f]
t = d.decode("utf-8", "replace")
bad += [c for c in t if 0x80 <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e]
sys.exit(1 if bad else 0)
PY
}

# two summaries whose manifests say hostile things
python3 - "$GOLD/debian12-ext4-1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for i, k in enumerate(["\x1b]0;owned\x07\x1b[31m6.1", "=HYPERLINK(\"http://x\",\"ok\")\n| 6.2"]):
    d["manifest"]["kernel"] = k
    d["manifest"]["distro"] = "deb\u202eian\u0085"
    json.dump(d, open("s%d.json" % i, "w"))
PY
for fmt in text markdown csv; do
	"$IOTAPE" compare --format $fmt s0.json s1.json >out.$fmt || fail "compare --format $fmt"
	no_raw out.$fmt
	grep -q 'x1b\]0;owned' out.$fmt || fail "$fmt: the kernel string is not shown escaped: $(cat out.$fmt)"
done
grep -q "^mbps,.*,\"'=HYPERLINK" out.csv || fail "csv: formula not neutralised: $(grep HYPER out.csv)"
python3 - out.csv <<'PY' || fail "csv does not parse as one row per group and metric"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert all(len(r) == len(rows[0]) for r in rows), rows
PY
# a text table stays one line per row: as many lines as with plain labels
"$IOTAPE" compare --label a --label b s0.json s1.json >plain.text
expect_eq "text lines" "$(wc -l <out.text)" "$(wc -l <plain.text)"

# a process name with an escape sequence, from a PROCESS notify of the trace
python3 - <<'PY'
import struct
def rec(seq, t, action, pid, pdu=b""):
    return struct.pack("<IIQQIIIIIHH", 0x65617407, seq, t, 0, 4096, action, pid, 8 << 20, 0, 0,
                       len(pdu)) + pdu
Q, D, C = 1 | (1 << 4 | 1 << 1) << 16, 7 | (1 << 6 | 1 << 1) << 16, 8 | (1 << 7 | 1 << 1) << 16
out = rec(0, 0, 1 << 10 << 16, 66, b"\x1b]0;owned\x07evil\n\0")
t = 1000
for i in range(3):
    out += rec(3 * i + 1, t, Q, 66) + rec(3 * i + 2, t + 10, D, 66) + rec(3 * i + 3, t + 20, C, 66)
    t += 50_000_000
open("comm.bin", "wb").write(out)
PY
"$IOTAPE" analyze comm.bin >analyze.txt || fail "analyze"
no_raw analyze.txt
grep -q 'pid 66 (\\x1b\]0;owned\\x07evil\\n)' analyze.txt || fail "analyze: $(grep 'pid 66' analyze.txt)"
# export's CSV escapes process names as compare's CSV does (issue #25 item 9: they went raw)
python3 - <<'PY'
import struct
def rec(seq, t, action, pid, pdu=b""):
    return struct.pack("<IIQQIIIIIHH", 0x65617407, seq, t, 0, 4096, action, pid, 8 << 20, 0, 0,
                       len(pdu)) + pdu
Q = 1 | (1 << 4 | 1 << 1) << 16
names = [b"=cmd|' /C calc'!A0", b"+SUM(1+1)", b"@SUM(A1)", b"-2+3", b"a\x1b[31mb\x07c",
         b"plain, \"quoted\""]
out, seq = b"", 0
for i, n in enumerate(names):
    out += rec(seq, 0, 1 << 10 << 16, 100 + i, n + b"\0")
    out += rec(seq + 1, 1000 + i, Q, 100 + i)
    seq += 2
open("names.bin", "wb").write(out)
PY
"$IOTAPE" export --format csv names.bin -o names.csv || fail "export csv"
no_raw names.csv
python3 - names.csv <<'PY' || fail "export csv: $(cat names.csv)"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
got = {r[4]: r[10] for r in rows[1:]}
want = {"100": "'=cmd|' /C calc'!A0", "101": "'+SUM(1+1)", "102": "'@SUM(A1)", "103": "'-2+3",
        "104": "a\\x1b[31mb\\x07c", "105": 'plain, "quoted"'}
assert got == want, got
PY
# messages: a file name with an escape sequence and a newline
f=$'bad\x1b]0;owned\x07\n.bin'
printf 'not a trace at all, not at all' >"$f"
"$IOTAPE" analyze "$f" >/dev/null 2>err && fail "analyze of a bad file succeeded"
no_raw err
expect_eq "message lines" "$(wc -l <err)" 1
echo "output_escape: ok"
