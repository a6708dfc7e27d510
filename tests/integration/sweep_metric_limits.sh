#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sweep --metric REGEX with bounded work (issue #25 item 6): a back-reference under a
# repetition ("(a*)*\1x" over 400 a's before "bx", minutes with the POSIX engine, deaf to SIGTERM)
# fails its run at once with a message; a long match within the limits stops at SIGTERM, and
# the run's result.json is removed (it runs again on --resume), never left "running".
source "$SRCDIR/tests/integration/lib.bash"
need_cmd timeout

S="$TMP/backref"
rc=0
timeout 60 "$IOTAPE" sweep -o "$S" --no-capture -m 'x=(a*)*\1x' \
	-- sh -c 'head -c 400 /dev/zero | tr "\0" a; echo bx' 2>"$TMP/err" || rc=$?
[ "$rc" -ne 124 ] || fail "the back-reference ran for a minute"
expect_eq "exit status" "$rc" 1
grep -q "backtracks too much" "$TMP/err" || { cat "$TMP/err" >&2; fail "no message"; }
expect_eq "state" "$(json '["state"]' "$S/rep-1/result.json")" failed

# 64 MiB of 'a' and an expression of about 2000 steps at each position: within the limits,
# about a minute of matching; SIGTERM stops it
S="$TMP/long"
"$IOTAPE" sweep -o "$S" --no-capture -m 'x=a{0,1000}c' \
	-- sh -c 'head -c 64M /dev/zero | tr "\0" a; echo c' 2>"$TMP/err" &
pid=$!
# wait for the command to end (its stdout whole) and the match to begin
for _ in $(seq 100); do
	[ "$(stat -c %s "$S/rep-1/stdout" 2>/dev/null || echo 0)" -ge $((64 << 20)) ] && break
	sleep 0.1
done
sleep 1
t0=$(date +%s%N)
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
t1=$(date +%s%N)
expect_eq "exit status after SIGTERM" "$rc" $((128 + 15))
[ $(((t1 - t0) / 1000000)) -lt 5000 ] || fail "SIGTERM took $(((t1 - t0) / 1000000)) ms"
[ ! -e "$S/rep-1/result.json" ] || {
	cat "$S/rep-1/result.json" >&2
	fail "result.json left behind: $(json '["state"]' "$S/rep-1/result.json")"
}
echo "PASS"
