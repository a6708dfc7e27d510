# SPDX-License-Identifier: MIT
# iotape export --format fio-iolog and csv: the iologs hold the trace's D (or Q) events in
# order, fio reads them and replays the same IOs onto a file (its own counts), the job file
# names targets or placeholders; CSV rows are the trace's events and the timeline rows are
# the analyze JSON's bins.
source "$SRCDIR/tests/integration/lib.bash"
need_cmd fio
[ -x "$TOOLS/blkgen" ] || skip "blkgen not built"
[ -x "$TOOLS/replaygen" ] || skip "replaygen not built"
blkgen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/blkgen" "$@"; }
replaygen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/replaygen" "$@"; }
cd "$TMP"
# fiojson EXPR FILE: a value of fio's JSON output (fio may put notes before the document)
fiojson() {
	python3 -c 'import json,sys; t=open(sys.argv[2]).read(); d=json.loads(t[t.index("{"):])
print(eval("d"+sys.argv[1]))' "$1" "$2"
}

"$IOTAPE" help export >help.txt
for opt in --format --output --iolog-version --from --map --ioengine --timeline --interval \
	--idle-threshold; do
	grep -q -- "$opt" help.txt || fail "help lacks $opt"
done

# ---- fio-iolog: the lines are the trace's D events, in order
replaygen -o tr -n sdb --ios 600 --seed 4 --gap-us 200 --lat-us 300 --read-pct 60 \
	--flush-every 50 --span-mb 60 >/dev/null
"$IOTAPE" export tr/sdb -f fio-iolog -o x --ioengine psync >summary.txt || fail "export"
grep -q "^sdb " summary.txt || grep -q "^dev8_16 " summary.txt || fail "summary: $(cat summary.txt)"
log=$(ls x/*.iolog)
[ "$(echo "$log" | wc -l)" = 1 ] || fail "one device, one iolog: $log"
expect_eq "header" "$(head -1 "$log")" "fio version 3 iolog"
# the IO lines against the trace: sector, bytes, direction (flushes as datasync)
replaygen dump --action D tr/sdb |
	awk '{ if ($3 ~ /^F/ && $2 == 0) print "F"; else print $1 * 512, $2, ($3 ~ /W/ ? "write" : "read") }' \
	>want.txt
awk 'NR > 1 && $3 != "add" && $3 != "open" && $3 != "close" {
	if ($3 == "datasync") print "F"; else print $4, $5, $3 }' "$log" >got.txt
cmp -s want.txt got.txt || { diff want.txt got.txt | head >&2; fail "iolog differs from the trace's D events"; }
# times: microseconds from the first IO, plus one; non-decreasing
awk 'NR > 1 { if ($1 < last) exit 1; last = $1 } END { exit last < 100000 }' "$log" ||
	fail "iolog times go backwards or are not microseconds"
expect_eq "first IO at 1 us" "$(awk 'NR == 4 { print $1 }' "$log")" 1
grep -q "replay_redirect=\${IOTAPE_TARGET_" x/replay.fio || fail "no placeholder in the job file"
grep -q "ioengine=psync" x/replay.fio || fail "--ioengine not in the job file"

# fio reads the job and the log, and replays the same IOs onto a file
truncate -s 64M target.img
name=$(basename "$log" .iolog)
env "IOTAPE_TARGET_$name=$TMP/target.img" fio --output-format=json --output=fio.json \
	x/replay.fio >fio.out 2>&1 || fail "fio: $(cat fio.out)"
reads=$(grep -c " read " "$log")
writes=$(grep -c " write " "$log")
expect_eq "fio reads" "$(fiojson "['jobs'][0]['read']['total_ios']" fio.json)" "$reads"
expect_eq "fio writes" "$(fiojson "['jobs'][0]['write']['total_ios']" fio.json)" "$writes"
bytes=$(awk '$3 == "read" || $3 == "write" { s += $5 } END { print s }' "$log")
expect_eq "fio bytes" "$(fiojson "['jobs'][0]['read']['io_bytes'] + d['jobs'][0]['write']['io_bytes']" \
	fio.json)" "$bytes"
# the trace spans about 600 x 200 us: fio took the times (not as fast as it could)
[ "$(fiojson "['jobs'][0]['job_runtime']" fio.json)" -ge 100 ] || fail "fio ignored the times"

# --map names the target; version 2 has no times; --from queue takes the Q events
"$IOTAPE" export tr/sdb -f fio-iolog -o x2 --iolog-version 2 --from queue \
	--map 8,16="$TMP/target.img" >/dev/null || fail "export v2"
grep -q "replay_redirect=$TMP/target.img" x2/replay.fio || fail "--map not in the job file"
expect_eq "v2 header" "$(head -1 x2/"$name".iolog)" "fio version 2 iolog"
expect_eq "v2 lines have 4 fields" "$(awk 'NR > 1 && NF != 4 && NF != 2' x2/"$name".iolog | wc -l)" 0
replaygen dump --action Q tr/sdb | awk '$2 > 0 { print $1 * 512, $2 }' >wantq.txt
awk '$2 == "read" || $2 == "write" { print $3, $4 }' x2/"$name".iolog >gotq.txt
cmp -s wantq.txt gotq.txt || fail "--from queue: the Q events differ"
fio --output-format=json --output=fio2.json x2/replay.fio --ioengine=psync >fio.out 2>&1 ||
	fail "fio v2: $(cat fio.out)"
expect_eq "fio v2 reads" "$(fiojson "['jobs'][0]['read']['total_ios']" fio2.json)" \
	"$(grep -c " read " x2/"$name".iolog)"

# several devices: one iolog each, one job each, in one job file
mkdir multi
blkgen -o multi --ios 500 --seed 2 --devices 3 --cpus 2 >/dev/null
"$IOTAPE" export multi/trace -f fio-iolog -o xm >/dev/null || fail "export 3 devices"
expect_eq "iologs" "$(ls xm/*.iolog | wc -l)" 3
expect_eq "jobs" "$(grep -c '^read_iolog=' xm/replay.fio)" 3
"$IOTAPE" export multi/trace -f csv -o multi.csv || fail "csv of 3 devices"
for f in xm/*.iolog; do
	dev=$(basename "$f" .iolog | sed 's/^dev//; s/_/:/')
	expect_eq "$f: the device's D events" "$(grep -cE ' (read|write) ' "$f")" \
		"$(awk -F, -v d="$dev" '$6 == "issue" && $2 == d' multi.csv | wc -l)"
done
"$IOTAPE" export multi/trace -f fio-iolog 2>err && fail "fio-iolog without -o accepted"
"$IOTAPE" export multi/trace -f csv --map 7,0=/x 2>err && fail "--map accepted for csv"

# ---- csv: a row per event (notes left out), and the timeline's bins
"$IOTAPE" export multi/trace -f csv -o ev.csv || fail "csv"
expect_eq "csv header" "$(head -1 ev.csv)" \
	"time_ns,device,cpu,sequence,pid,action,rwbs,sector,bytes,error,process"
"$IOTAPE" analyze --json multi/trace >an.json
events=$(json "['input']['events'] - d['input']['notifies']" an.json)
expect_eq "csv rows" "$(($(wc -l <ev.csv) - 1))" "$events"
expect_eq "first row at 0" "$(awk -F, 'NR == 2 { print $1 }' ev.csv)" 0
grep -q ",fio$" ev.csv || fail "no process names in the csv"
"$IOTAPE" export multi/trace -f csv --timeline --interval 50ms -o tl.csv || fail "csv --timeline"
"$IOTAPE" analyze --json --interval 50ms multi/trace >an50.json
python3 - "$TMP/tl.csv" "$TMP/an50.json" <<'EOF' || fail "timeline rows differ from analyze's bins"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
doc = json.load(open(sys.argv[2]))
want = []
for d in doc["devices"]:
    dev = d["dev"].replace(",", ":")
    for b in d["timeline"]:
        want.append((dev, b))
assert len(rows) == len(want), (len(rows), len(want))
for r, (dev, b) in zip(rows, want):
    assert r["device"] == dev, (r["device"], dev)
    for k, v in b.items():
        got = float(r[k])
        if k == "start_ns":  # the CSV's from the first event, the JSON's on the trace clock
            v -= doc["start_ns"]
        assert abs(got - v) <= 1e-6 * max(1.0, abs(v)), (k, got, v)
print("timeline rows:", len(rows))
EOF
echo "export_formats: ok"
