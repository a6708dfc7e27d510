#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --detail summary's bins and idle threshold follow capture --interval and --idle-threshold
# (analyze's names and meaning): summary.json and the manifest record them, the kernel's bins
# and gaps equal analyze's of the io records of the same IOs at those options, and analyze
# refuses what the summary cannot give (finer bins, shorter gaps), merges coarser bins that are
# a multiple, and keeps gaps above a higher threshold.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd fio
need_cmd python3
need_bpf

# usage: the options are the summary level's
rc=0
"$IOTAPE" capture -o "$TMP/u" -d /dev/null --interval 100ms -- true 2>"$TMP/u.err" || rc=$?
expect_eq "--interval without --detail summary" "$rc" 2
grep -q "what --detail summary keeps" "$TMP/u.err" || fail "no reason given: $(cat "$TMP/u.err")"
rc=0
"$IOTAPE" capture -o "$TMP/u" -d /dev/null --detail summary --interval 1ms -- true 2>/dev/null || rc=$?
expect_eq "--interval 1ms" "$rc" 2

make_loop 128M
# random reads in bursts with 50 ms pauses, about a second and a half; the io records of the
# same IOs beside the summary (the same clock reads: capture_bpf.sh)
IOTAPE_BPF_SUMMARY_WITH_IO=1 capture -o "$TMP/s" -d "$LOOP" --detail summary --interval 100ms \
	--idle-threshold 30ms -- fio --name=r --filename="$LOOP" --rw=randread --bs=4k --direct=1 \
	--ioengine=psync --size=64M --io_size=2M --thinktime=50000 --thinktime_blocks=16 \
	--output=/dev/null || fail "the summary capture failed"
expect_eq "summary.json interval" "$(json '["interval_ns"]' "$TMP/s/summary.json")" 100000000
expect_eq "summary.json threshold" "$(json '["idle_threshold_ns"]' "$TMP/s/summary.json")" 30000000
expect_eq "manifest interval" "$(json '["detail"]["interval_ns"]' "$TMP/s/manifest.json")" 100000000
expect_eq "manifest threshold" "$(json '["detail"]["idle_threshold_ns"]' "$TMP/s/manifest.json")" 30000000

mkdir "$TMP/sum"
cp "$TMP/s/summary.json" "$TMP/s/manifest.json" "$TMP/sum/"
"$IOTAPE" analyze --json --top 1000 "$TMP/sum" >"$TMP/sum.json" || fail "analyze of the summary run"
"$IOTAPE" analyze --json --top 1000 --interval 100ms --idle-threshold 30ms "$TMP/s" >"$TMP/rec.json" ||
	fail "analyze of the records"
"$IOTAPE" analyze --json --top 1000 --interval 200ms --idle-threshold 45ms "$TMP/sum" >"$TMP/sum2.json" ||
	fail "analyze of the summary run, coarser"
"$IOTAPE" analyze --json --top 1000 --interval 200ms --idle-threshold 45ms "$TMP/s" >"$TMP/rec2.json" ||
	fail "analyze of the records, coarser"
python3 - "$TMP" <<'EOF' || fail "the summary at its options disagrees with analyze (above)"
import json, sys
tmp = sys.argv[1]
bad = []
def eq(what, a, b):
    if a != b:
        bad.append(f"{what}: summary {a}, analyze of the records {b}")
for s, r, w, t in (("sum", "rec", 100000000, 30000000), ("sum2", "rec2", 200000000, 45000000)):
    S, R = (json.load(open(f"{tmp}/{n}.json")) for n in (s, r))
    eq(f"{s} interval", S["timeline"]["interval_ns"], w)
    sd, rd = S["devices"][0], R["devices"][0]
    eq(f"{s} threshold", sd["idle"]["threshold_ns"], t)
    binsof = lambda d: {b["start_ns"]: (b["ios"], b["write_ios"], b["read_bytes"], b["seeks"])
                        for b in d["timeline"] if b["ios"] or b["seeks"]}
    eq(f"{s} bins", binsof(sd), binsof(rd))
    if len(binsof(sd)) < 5:
        bad.append(f"{s}: only {len(binsof(sd))} bins with IO")
    mid = lambda d: sorted((g["start_ns"], g["end_ns"]) for g in d["idle"]["longest"]
                           if not g["at_start"] and g["ended_by"] == "issue")
    eq(f"{s} gaps", mid(sd), mid(rd))
    if not mid(sd):
        bad.append(f"{s}: no idle gap")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF

# what the summary does not hold is refused, and says so
for opt in "--interval 50ms" "--idle-threshold 5ms"; do
	rc=0
	# shellcheck disable=SC2086
	"$IOTAPE" analyze $opt "$TMP/sum" >/dev/null 2>"$TMP/a.err" || rc=$?
	expect_eq "analyze $opt of a 100ms/30ms summary" "$rc" 2
	grep -q "cannot give finer" "$TMP/a.err" || fail "analyze $opt: $(cat "$TMP/a.err")"
done
# a width that is no multiple keeps the summary's bins, and says so
"$IOTAPE" analyze --json --interval 150ms "$TMP/sum" >"$TMP/sum3.json" 2>"$TMP/a.err" ||
	fail "analyze --interval 150ms"
expect_eq "kept bins" "$(json '["timeline"]["interval_ns"]' "$TMP/sum3.json")" 100000000
grep -q "no multiple" "$TMP/a.err" || fail "analyze --interval 150ms did not say: $(cat "$TMP/a.err")"
# the report asked for finer bins than the summary holds: refused too
rc=0
"$IOTAPE" report --interval 10ms -o "$TMP/r.html" "$TMP/sum" 2>"$TMP/r.err" || rc=$?
expect_eq "report --interval 10ms" "$rc" 2
[ ! -e "$TMP/r.html" ] || fail "a refused report left a file"
echo PASS
