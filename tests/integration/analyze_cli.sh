# SPDX-License-Identifier: MIT
# iotape analyze's command line: help, text summary, the JSON schema's required keys, -o,
# options (--interval, --top, --idle-threshold), inputs (set, directory, file, stdin, several).
source "$SRCDIR/tests/integration/lib.bash"
[ -x "$TOOLS/blkgen" ] || skip "blkgen not built"
# blkgen is the fixture, not the subject: its own leaks must not fail a sanitizer build here
blkgen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/blkgen" "$@"; }
cd "$TMP"

"$IOTAPE" help analyze >help.txt
for opt in --json --interval --idle-threshold --top --output; do
	grep -q -- "$opt" help.txt || fail "help lacks $opt"
done

mkdir run other
blkgen -o run --ios 3000 --seed 1 --gaps 3 --cpus 2 >/dev/null
blkgen -o other -n sdb --ios 2000 --seed 2 --devices 2 --cpus 1 >/dev/null

# text: one block per device, aligned rows, the longest gaps with the process that ended them
"$IOTAPE" analyze run/trace >text.txt 2>err
[ ! -s err ] || fail "unexpected stderr: $(cat err)"
grep -q "^device 7,0: " text.txt || fail "no device line: $(cat text.txt)"
for row in reads queued latency q2d d2c q2c depth idle seeks; do
	grep -Eq "^ +$row " text.txt || fail "text lacks '$row'"
done
grep -Eq "pid 100[0-3] \((dd|fio|kworker/0:1|jbd2/loop0-8)\)" text.txt || fail "no gap owner"
grep -Eq "^ +d2c rq +3000 " text.txt || fail "text lacks the per-request d2c row"

# a trace of issues and completions only (a replay's --record, a capture with -a issue,complete):
# no bio latencies, so the text says so and shows the per-request d2c
mkdir dc
python3 - run/trace.blktrace.0 dc/trace.blktrace.0 <<'PY'
import sys
src = open(sys.argv[1], "rb").read()
out, i = bytearray(), 0
while i + 48 <= len(src):
    n = 48 + int.from_bytes(src[i + 46:i + 48], "little")
    act = int.from_bytes(src[i + 28:i + 32], "little")
    if act & 0xffff in (7, 8) or act & (1 << 26):  # D, C, or a notify
        out += src[i:i + n]
    i += n
open(sys.argv[2], "wb").write(out)
PY
"$IOTAPE" analyze dc/trace.blktrace.0 >dc.txt 2>err || fail "D/C-only trace: $(cat err)"
grep -Eq "^ +d2c rq +[1-9][0-9]* " dc.txt || fail "no per-request d2c: $(cat dc.txt)"
grep -q "no queue (Q) events" dc.txt || fail "no note about the missing Q events: $(cat dc.txt)"

# JSON: the documented keys (docs/json.md)
"$IOTAPE" analyze --json -o out.json run/trace
python3 - out.json <<'PY' || fail "JSON schema"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("input", "span_ns", "start_ns", "end_ns", "devices", "timeline", "options"):
    assert k in d, k
for k in ("files", "events", "skips", "truncated"):
    assert k in d["input"], k
dev = d["devices"][0]
assert dev["dev"] == "7,0", dev["dev"]
for k in ("ios", "bytes"):
    assert isinstance(dev["reads"][k], int) and isinstance(dev["writes"][k], int)
for lat in ("q2d", "d2c", "q2c"):
    for k in ("count", "mean", "p50", "p90", "p99", "min", "max"):
        assert k in dev["latency_ns"][lat], (lat, k)
    h = dev["latency_ns"][lat]
    assert h["min"] <= h["p50"] <= h["p90"] <= h["p99"] <= h["max"], h
for k in ("threshold_ns", "gaps", "total_ns", "pct", "longest"):
    assert k in dev["idle"], k
assert dev["idle"]["gaps"] == 3 and len(dev["idle"]["longest"]) == 3
for g in dev["idle"]["longest"]:
    for k in ("start_ns", "end_ns", "duration_ns", "queued", "pid", "comm"):
        assert k in g, k
    assert g["comm"] in ("dd", "fio", "kworker/0:1", "jbd2/loop0-8"), g
for k in ("count", "sequential_pct"):
    assert k in dev["seeks"], k
assert len(dev["timeline"]) == d["span_ns"] // 1000000000 + 1
b = dev["timeline"][0]
for k in ("read_mbps", "write_mbps", "iops", "seeks", "depth", "idle_frac"):
    assert k in b, k
PY

# options: a finer timeline, fewer gaps listed, a lower threshold
"$IOTAPE" analyze --json --interval 100ms --top 2 --idle-threshold 5ms run/trace >o.json
python3 - o.json <<'PY' || fail "options"
import json, sys
d = json.load(open(sys.argv[1]))
dev = d["devices"][0]
assert d["timeline"]["interval_ns"] == 100000000
assert len(dev["timeline"]) == d["span_ns"] // 100000000 + 1
assert len(dev["idle"]["longest"]) == 2 and dev["idle"]["gaps"] >= 3
assert dev["idle"]["threshold_ns"] == 5000000
PY

# too many bins: the interval doubles until they fit, and says so
"$IOTAPE" analyze --json --interval 1us run/trace >w.json
python3 - w.json <<'PY' || fail "widening"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["timeline"]
assert t["widened"] > 0 and t["interval_ns"] == 1000 << t["widened"], t
assert len(d["devices"][0]["timeline"]) <= 100000
PY

# the same trace as a directory, as the merged file and on stdin
cat run/trace.blktrace.0 run/trace.blktrace.1 >/dev/null
(cd run && blkparse -i trace -d ../merged.bin -O >/dev/null 2>&1) || true
"$IOTAPE" analyze --json run >dir.json
if [ -s merged.bin ]; then
	"$IOTAPE" analyze --json merged.bin >file.json
	"$IOTAPE" analyze --json - <merged.bin >stdin.json
	for f in file.json stdin.json; do
		expect_eq "$f q2c" "$(json "['devices'][0]['latency_ns']['q2c']" $f)" \
			"$(json "['devices'][0]['latency_ns']['q2c']" dir.json)"
	done
fi

# several inputs are merged by time into one pass: both traces write to 7,0 (blkgen's first
# device), the second one also to 7,1
"$IOTAPE" analyze --json run/trace other/sdb >multi.json
expect_eq "device names" "$(json "['devices']" multi.json | python3 -c \
	'import ast,sys; print([x["dev"] for x in ast.literal_eval(sys.stdin.read())])')" \
	"['7,0', '7,1']"
expect_eq "7,0 requests" "$(json "['devices'][0]['reads']['ios']+d['devices'][0]['writes']['ios']" \
	multi.json)" 5000
expect_eq "inputs" "$(json "['input']['paths']" multi.json)" "['run/trace', 'other/sdb']"
echo "analyze_cli: ok"
