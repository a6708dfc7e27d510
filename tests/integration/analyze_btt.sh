# SPDX-License-Identifier: MIT
# iotape analyze's latency against btt's "All Devices" rows (Q2Q, Q2G, G2I, Q2M, I2D, M2D, D2C,
# Q2C): N, min and max exactly, means within btt's printing (9 decimals of a second).
source "$SRCDIR/tests/integration/lib.bash"
ORACLE="$SRCDIR/tests/integration/analyze_oracle.py"
need_cmd blkparse
need_cmd btt
[ -x "$TOOLS/blkgen" ] || skip "blkgen not built"
# blkgen is the fixture, not the subject: its own leaks must not fail a sanitizer build here
blkgen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/blkgen" "$@"; }

# compare DIR NAME MODE [INPUT]: MODE btt (with Q2Q: one device) or btt-noq2q (btt's Q2Q spans
# devices); INPUT what iotape reads (default the set DIR/NAME). The crafted traces have records
# with equal times on different CPUs, which blkparse orders by sequence number and iotape's
# reader by CPU: for those, iotape reads blkparse's dump, the very order btt sees.
compare() {
	local d=$1 n=$2 mode=$3 in=${4:-$1/$2}
	(cd "$d" && blkparse -i "$n" -d all.bin -O >/dev/null 2>&1) || fail "$d: blkparse -d"
	(cd "$d" && btt -i all.bin >btt.txt 2>&1) || fail "$d: btt"
	"$IOTAPE" analyze --json "$in" >"$d/out.json" 2>/dev/null || fail "$d: analyze"
	python3 "$ORACLE" "$mode" "$d/out.json" "$d/btt.txt" || fail "$d: differs from btt"
}

for s in 1 2 3 4 5; do
	mkdir -p "$TMP/g$s" "$TMP/e$s"
	blkgen -o "$TMP/g$s" --ios 10000 --seed $s --merge-pct $((s * 18)) \
		--depth $((s * 8)) >/dev/null
	compare "$TMP/g$s" trace btt
	# front merges, requeues, zero-time steps, re-queued sectors, overlapping bios in flight
	# (where btt's tree shape decides), lost issues
	python3 "$ORACLE" edge "$TMP/e$s/edge" $s 1
	compare "$TMP/e$s" edge btt "$TMP/e$s/all.bin"
done
mkdir -p "$TMP/multi" "$TMP/emulti"
blkgen -o "$TMP/multi" --ios 5000 --seed 4 --devices 3 --cpus 2 >/dev/null
compare "$TMP/multi" trace btt-noq2q
python3 "$ORACLE" edge "$TMP/emulti/edge" 9 3
compare "$TMP/emulti" edge btt-noq2q "$TMP/emulti/all.bin"
# the real traces in samples/ (ext4, xfs, btrfs on loop devices; the block side of an NFS run)
nsamples=0
for first in "$SRCDIR"/samples/*/loop0.blktrace.0 "$SRCDIR"/samples/*/*/loop0.blktrace.0; do
	[ -f "$first" ] || continue
	dir=$(dirname "$first")
	name="sample$nsamples"
	mkdir -p "$TMP/$name"
	cp "$dir"/loop0.blktrace.* "$TMP/$name/"
	compare "$TMP/$name" loop0 btt
	nsamples=$((nsamples + 1))
done
[ "$nsamples" -gt 0 ] || fail "no sample traces in $SRCDIR/samples"
echo "analyze_btt: ok"
