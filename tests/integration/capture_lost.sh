#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Lost events: a ring buffer far too small for fio at full speed overruns; the capture warns,
# the manifest counts the loss once (ring-buffer stats and what the reader saw agree), and the
# loss shows as sequence gaps (skips) in the files, where it happened, for both readers.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd fio

make_loop 256M
for reader in raw pipe; do
	RUN="$TMP/run-$reader"
	capture -o "$RUN" -d "$LOOP" --backend tracefs --reader $reader --buffer 64k -- \
		fio --name=lost --filename="$LOOP" --rw=randread --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=16 --runtime=3 --time_based --output=/dev/null \
		2>"$TMP/err" || fail "$reader: capture exited $?: $(cat "$TMP/err")"
	tracing_is_off
	lost=$(json '["counts"]["lost"]' "$RUN/manifest.json")
	overrun=$(json '["counts"]["overrun"]' "$RUN/manifest.json")
	seen=$(json '["counts"]["reader_lost"]' "$RUN/manifest.json")
	echo "$reader: lost $lost (overrun $overrun, seen by the reader $seen)"
	if [ "$lost" -eq 0 ]; then
		echo "$reader: this machine kept up with a 64 KiB buffer; nothing to check" >&2
		continue
	fi
	grep -q "block events lost" "$TMP/err" || fail "$reader: no warning: $(cat "$TMP/err")"
	expect_eq "$reader: lost = overrun" "$lost" "$overrun"
	[ "$seen" -le "$overrun" ] || fail "$reader: reader saw $seen lost, more than $overrun"
	# the files show the loss as gaps: blkparse's and iotape's readers both still read them
	"$IOTAPE" analyze "$RUN" >/dev/null 2>"$TMP/err" || fail "$reader: analyze failed"
	gaps=$(sed -n 's/.*: \([0-9]*\) records missing.*/\1/p' "$TMP/err" |
		awk '{s += $1} END {print s + 0}')
	echo "$reader: $gaps records missing by sequence numbers"
	[ "$gaps" -gt 0 ] || fail "$reader: no sequence gaps for $lost lost events"
done
echo "ok"
