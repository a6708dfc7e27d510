#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape capture --stdout/--stderr keep COMMAND's output apart from iotape's messages, --label
# lands in the manifest, and the capture ends when COMMAND does with its wall time recorded.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"

make_loop 64M
RUN="$TMP/run"
start=$(date +%s%N)
capture -o "$RUN" -d "$LOOP" --label fs=none --label bs=4k --label 'note=a b=c' \
	--stdout "$RUN/out.txt" --stderr "$RUN/err.txt" -- \
	sh -c 'echo hello; echo oops >&2; dd if=/dev/zero of='"$LOOP"' bs=4k count=8 oflag=direct status=none; sleep 0.3' \
	2>"$TMP/iotape.err" || fail "capture exited $?"
end=$(date +%s%N)
tracing_is_off
expect_eq "stdout" "$(cat "$RUN/out.txt")" "hello"
expect_eq "stderr" "$(cat "$RUN/err.txt")" "oops"
grep -q "iotape: capture: .* events" "$TMP/iotape.err" || fail "iotape's summary line is missing"
! grep -q "hello\|oops" "$TMP/iotape.err" || fail "COMMAND's output reached iotape's stderr"
expect_eq "label fs" "$(json '["labels"]["fs"]' "$RUN/manifest.json")" "none"
expect_eq "label bs" "$(json '["labels"]["bs"]' "$RUN/manifest.json")" "4k"
expect_eq "label with =" "$(json '["labels"]["note"]' "$RUN/manifest.json")" "a b=c"
wall=$(json '["command"]["wall_ns"]' "$RUN/manifest.json")
[ "$wall" -ge 300000000 ] || fail "command.wall_ns $wall is shorter than the sleep"
[ "$wall" -le $((end - start)) ] || fail "command.wall_ns $wall is longer than the capture"
# compare groups by a label
"$IOTAPE" compare "$RUN" "$RUN" --by bs --format csv >"$TMP/cmp.csv" || fail "compare by label"
grep -q '^mbps,MiB/s,4k,2,' "$TMP/cmp.csv" || fail "compare did not group by the label: $(head -3 "$TMP/cmp.csv")"

# usage errors, before anything is traced
rc=0; "$IOTAPE" capture -o "$TMP/r2" -d "$LOOP" --label novalue -- true 2>/dev/null || rc=$?
expect_eq "--label without =" "$rc" 2
rc=0; "$IOTAPE" capture -o "$TMP/r3" -d "$LOOP" --duration 1s --stdout "$TMP/x" 2>/dev/null || rc=$?
expect_eq "--stdout without COMMAND" "$rc" 2
rc=0; capture -o "$TMP/r4" -d "$LOOP" --stdout "$TMP/no/such/dir/x" -- true 2>/dev/null || rc=$?
expect_eq "--stdout in a missing directory" "$rc" 2
[ ! -e "$TMP/r4/manifest.json" ] || fail "a capture that could not start left a manifest"
for b in 1m 65g 12x; do
	rc=0; "$IOTAPE" capture -o "$TMP/r5" -d "$LOOP" --backlog $b -- true 2>"$TMP/err" || rc=$?
	expect_eq "--backlog $b" "$rc" 2
	grep -q -- "--backlog" "$TMP/err" || fail "--backlog $b: $(cat "$TMP/err")"
done
tracing_is_off
echo "capture output options: ok"
