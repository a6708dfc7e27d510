# SPDX-License-Identifier: MIT
# iotape analyze against blkgen's ground truth: IO counts and bytes, latency means, seeks and
# every idle gap, exactly; for v7 and v8, both byte orders, gzip, several CPUs and devices.
source "$SRCDIR/tests/integration/lib.bash"
ORACLE="$SRCDIR/tests/integration/analyze_oracle.py"
[ -x "$TOOLS/blkgen" ] || skip "blkgen not built"
# blkgen is the fixture, not the subject: its own leaks must not fail a sanitizer build here
blkgen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/blkgen" "$@"; }

check() { # NAME BLKGEN-ARGS...
	local name=$1
	shift
	mkdir -p "$TMP/$name"
	blkgen -o "$TMP/$name" --truth "$TMP/$name/truth.json" "$@" >/dev/null ||
		fail "$name: blkgen $*"
	"$IOTAPE" analyze --json --top 1000 "$TMP/$name/trace" >"$TMP/$name/out.json" \
		2>"$TMP/$name/err" || fail "$name: analyze failed: $(cat "$TMP/$name/err")"
	python3 "$ORACLE" truth "$TMP/$name/out.json" "$TMP/$name/truth.json" ||
		fail "$name: differs from the ground truth"
}

check plain --ios 20000 --seed 3 --gaps 5
check v8-swap-gzip --ios 5000 --seed 11 --gaps 3 --v8 --swap --gzip --read-pct 80
check devices --ios 4000 --seed 5 --gaps 4 --devices 3 --cpus 4 --merge-pct 50 --depth 16
check deep --ios 8000 --seed 9 --gaps 2 --gap-ms 12 --depth 64 --merge-pct 70 --cpus 1

# the threshold moves with the option: with 1 s nothing counts, with 10 ms (default) 5 gaps
"$IOTAPE" analyze --json --idle-threshold 1s "$TMP/plain/trace" >"$TMP/t1.json"
expect_eq "gaps over 1 s" "$(json "['devices'][0]['idle']['gaps']" "$TMP/t1.json")" 0
expect_eq "threshold" "$(json "['devices'][0]['idle']['threshold_ns']" "$TMP/t1.json")" 1000000000

# a gzip'd set, a directory and the single merged file give the same numbers
blkgen_dir="$TMP/v8-swap-gzip"
"$IOTAPE" analyze --json "$blkgen_dir" >"$TMP/dir.json"
"$IOTAPE" analyze --json "$blkgen_dir/trace" >"$TMP/set.json"
expect_eq "directory = set" "$(json "['devices'][0]['latency_ns']['q2c']" "$TMP/dir.json")" \
	"$(json "['devices'][0]['latency_ns']['q2c']" "$TMP/set.json")"
# records lost as a full relay buffer loses them: every loss is a sequence gap, counted per
# device and per file, and warned about (none of the lost records is a CPU's last one here)
mkdir -p "$TMP/lossy"
blkgen -o "$TMP/lossy" --ios 5000 --seed 3 --drop-pct 2 --truth "$TMP/lossy/truth.json" >/dev/null
"$IOTAPE" analyze --json "$TMP/lossy/trace" >"$TMP/lossy/out.json" 2>"$TMP/lossy/err" ||
	fail "lossy: analyze failed"
dropped=$(json "['dropped']" "$TMP/lossy/truth.json")
[ "$dropped" -gt 0 ] || fail "lossy: blkgen dropped nothing"
expect_eq "lost records" "$(json "['input']['skips']" "$TMP/lossy/out.json")" "$dropped"
expect_eq "lost records of 7,0" "$(json "['devices'][0]['skips']['records']" "$TMP/lossy/out.json")" \
	"$dropped"
grep -q "records missing (sequence gaps)" "$TMP/lossy/err" || fail "lossy: no warning"
echo "analyze_truth: ok"
