#!/bin/bash
# SPDX-License-Identifier: MIT
# iotape replay onto a regular file, with each engine: afap replays the trace's exact
# (sector, size, direction) sequence in trace order; without --allow-writes the file is
# unchanged; the recorded run is readable by blkparse and iotape analyze.
source "$SRCDIR/tests/integration/lib.bash"
need_cmd sha256sum

gen="$TOOLS/replaygen"
"$gen" -o "$TMP/tr" -n sdb --ios 3000 --seed 5 --gap-us 200 --lat-us 400 --read-pct 60 \
	--flush-every 50 --discard-every 97 --span-mb 60
head -c $((64 << 20)) /dev/urandom >"$TMP/target.img"
orig=$(sha256sum <"$TMP/target.img")

# normalise "sector bytes RWBS" to "sector bytes R|W|F|D"
norm() {
	awk '{d=$3; if (d ~ /^F/ && $2 == 0) d="F"; else if (d ~ /D/) d="D";
	      else if (d ~ /W/) d="W"; else d="R"; print $1, $2, d}'
}
"$gen" dump "$TMP/tr/sdb" | norm >"$TMP/want"
"$gen" dump --action Q "$TMP/tr/sdb" | norm >"$TMP/want_q"
nwrites=$(awk '$3 == "W" || $3 == "D"' "$TMP/want" | wc -l)
[ "$nwrites" -gt 100 ] || fail "generated trace has too few writes ($nwrites)"

for eng in io_uring psync; do
	echo "== engine $eng"
	# read-only: writes skipped and counted, the target unchanged
	"$IOTAPE" replay --engine "$eng" --timing afap --json --target "$TMP/target.img" \
		"$TMP/tr/sdb" >"$TMP/ro.json"
	expect_eq "$eng: engine" "$(json '["options"]["engine"]' "$TMP/ro.json")" "$eng"
	expect_eq "$eng: skipped writes" "$(json '["skipped"]["writes"]' "$TMP/ro.json")" "$nwrites"
	expect_eq "$eng: errors" "$(json '["replay"]["errors"]' "$TMP/ro.json")" 0
	# docs/replay.md: first_error and first_error_io only when there was an error
	expect_eq "$eng: no first_error" "$(json '["replay"].get("first_error", "absent")' \
		"$TMP/ro.json")" absent
	expect_eq "$eng: checksum after a read-only replay" "$(sha256sum <"$TMP/target.img")" "$orig"

	# writes as reads: still unchanged
	"$IOTAPE" replay --engine "$eng" --timing afap --writes-as-reads --json \
		--target "$TMP/target.img" "$TMP/tr/sdb" >"$TMP/war.json"
	expect_eq "$eng: checksum after --writes-as-reads" "$(sha256sum <"$TMP/target.img")" "$orig"
	[ "$(json '["skipped"]["writes_as_reads"]' "$TMP/war.json")" -gt 0 ] ||
		fail "$eng: no writes replayed as reads"

	# with writes: the recorded sequence is the trace's, in order
	cp "$TMP/target.img" "$TMP/rw.img"
	rm -rf "$TMP/rec"
	"$IOTAPE" replay --engine "$eng" --timing afap --allow-writes --json \
		--record "$TMP/rec" --target "$TMP/rw.img" "$TMP/tr/sdb" >"$TMP/rw.json"
	expect_eq "$eng: errors" "$(json '["replay"]["errors"]' "$TMP/rw.json")" 0
	expect_eq "$eng: IOs" "$(json '["replay"]["ios"]' "$TMP/rw.json")" 3000
	"$gen" dump "$TMP/rec/file" | norm >"$TMP/got"
	cmp -s "$TMP/want" "$TMP/got" || {
		diff "$TMP/want" "$TMP/got" | head >&2
		fail "$eng: recorded sequence differs from the trace's"
	}
	[ "$(sha256sum <"$TMP/rw.img")" != "$orig" ] || fail "$eng: writes did not change the file"
	# discards and flushes are counted apart from the data: MB/s is reads and writes only
	python3 - "$TMP/rw.json" "$TMP/want" <<'PY' || fail "$eng: per-operation counts"
import json, sys
d = json.load(open(sys.argv[1]))
want = {"R": [0, 0], "W": [0, 0], "F": [0, 0], "D": [0, 0]}
for line in open(sys.argv[2]):
    sector, nbytes, kind = line.split()
    want[kind][0] += 1
    want[kind][1] += int(nbytes)
t, r = d["trace"], d["replay"]
for kind, name in (("R", "read"), ("W", "write"), ("F", "flush"), ("D", "discard")):
    assert t["ops"][name] == want[kind][0], (name, t["ops"][name], want[kind])
    assert t["op_bytes"][name] == want[kind][1], (name, t["op_bytes"][name], want[kind])
    assert r["ops"][name] == want[kind][0], (name, r["ops"][name], want[kind])
    assert r["op_bytes"][name] == want[kind][1], (name, r["op_bytes"][name], want[kind])
assert want["D"][0] > 0 and want["D"][1] > 0
assert t["bytes"] == want["R"][1] + want["W"][1], t["bytes"]
assert r["bytes"] == want["R"][1] + want["W"][1], r["bytes"]
assert abs(t["mb_per_s"] - t["bytes"] / t["duration_ns"] * 1e3) < 1e-6 * t["mb_per_s"]
PY
	"$IOTAPE" replay --engine "$eng" --timing afap --allow-writes --target "$TMP/rw.img" \
		"$TMP/tr/sdb" >"$TMP/rw.txt"
	for kind in reads writes flushes discards; do
		grep -q "^  $kind: .* in the trace" "$TMP/rw.txt" || fail "$eng: no $kind line"
	done
	grep -q "^  discards: .*covering .*not in MiB/s" "$TMP/rw.txt" ||
		fail "$eng: the discards line does not say what it counts: $(cat "$TMP/rw.txt")"
	[ -f "$TMP/rec/manifest.json" ] || fail "$eng: no manifest"
	expect_eq "$eng: manifest format" "$(json '["format"]' "$TMP/rec/manifest.json")" iotape-run
	if command -v blkparse >/dev/null; then
		n=$(blkparse -q -i "$TMP/rec/file" -f '%a\n' | grep -c '^D$' || true)
		expect_eq "$eng: blkparse D events" "$n" 3000
	fi
	"$IOTAPE" analyze "$TMP/rec" >/dev/null || fail "$eng: iotape analyze cannot read the record"

	# queue events: what the application asked for
	rm -rf "$TMP/recq"
	"$IOTAPE" replay --engine "$eng" --timing afap --from queue --allow-writes \
		--record "$TMP/recq" --target "$TMP/rw.img" "$TMP/tr/sdb" >/dev/null
	"$gen" dump "$TMP/recq/file" | norm >"$TMP/got_q"
	cmp -s "$TMP/want_q" "$TMP/got_q" || fail "$eng: --from queue sequence differs"

	# offset and wrap onto a smaller file
	truncate -s 16M "$TMP/small.img"
	"$IOTAPE" replay --engine "$eng" --timing afap --json --target "$TMP/small.img" \
		"$TMP/tr/sdb" >"$TMP/small.json"
	[ "$(json '["skipped"]["out_of_range"]' "$TMP/small.json")" -gt 0 ] ||
		fail "$eng: nothing out of range on a small target"
	"$IOTAPE" replay --engine "$eng" --timing afap --json --wrap --offset 1048576 \
		--target "$TMP/small.img" "$TMP/tr/sdb" >"$TMP/wrap.json"
	expect_eq "$eng: out of range with --wrap" "$(json '["skipped"]["out_of_range"]' "$TMP/wrap.json")" 0
	[ "$(json '["replay"]["wrapped"]' "$TMP/wrap.json")" -gt 0 ] || fail "$eng: nothing wrapped"
done
echo PASS
