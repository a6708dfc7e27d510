#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A bare number means one thing (issue #24 item 3): it was nanoseconds to --interval and
# seconds to --duration. Now every duration option of every command takes a number with its
# unit and refuses one without, naming the option and suggesting units; 0 alone is zero.
source "$SRCDIR/tests/integration/lib.bash"

run=$SRCDIR/samples/ext4
refused() { # OPTION COMMAND ARGS...: the command refuses OPTION 100
	local opt=$1 rc=0
	shift
	"$IOTAPE" "$@" >/dev/null 2>"$TMP/err" || rc=$?
	expect_eq "$*: exit status" "$rc" 2
	grep -qF -- "$opt: '100' has no unit: say 100ms or 100s" "$TMP/err" ||
		fail "$*: $(cat "$TMP/err")"
}

refused --interval analyze --interval 100 "$run"
refused --idle-threshold analyze --idle-threshold 100 "$run"
refused --interval report --interval 100 "$run" -o "$TMP/r.html"
refused --idle-threshold report --idle 100 "$run" -o "$TMP/r.html"
refused --idle-threshold compare --idle-threshold 100 "$run"
refused --interval export --format csv --timeline --interval 100 "$run" -o "$TMP/t.csv"
refused --length movie --length 100 "$run" -o "$TMP/m.mp4"
refused --window movie --window 100 "$run" -o "$TMP/m.mp4"
refused --idle-threshold movie --idle-threshold 100 "$run" -o "$TMP/m.mp4"
refused --duration capture --duration 100 -o "$TMP/cap" -d /dev/null
refused --wait-tracer capture --wait-tracer 100 -o "$TMP/cap" -d /dev/null
refused --spin replay --spin 100 "$run" --target "$TMP/target"
refused --max-gap replay --max-gap 100 "$run" --target "$TMP/target"
refused --null-latency replay --null-latency 100 "$run" --target "$TMP/target"
refused --fio-timeout replay --fio-client "localhost=$TMP/t" --fio-timeout 100 "$run"
refused --timeout sweep -o "$TMP/sw" --param a=1 --timeout 100 -- true
refused --wait-tracer sweep -o "$TMP/sw" --param a=1 --wait-tracer 100 -- true

# with the unit each is taken, and the same value written two ways is one value
"$IOTAPE" analyze --json --interval 100ms "$run" >"$TMP/a.json" || fail "analyze --interval 100ms"
"$IOTAPE" analyze --json --interval 0.1s "$run" >"$TMP/b.json" || fail "analyze --interval 0.1s"
expect_eq "100ms" "$(json "['options']['interval_ns']" "$TMP/a.json")" 100000000
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "100ms and 0.1s differ"
"$IOTAPE" analyze --json --idle-threshold 0 "$run" >"$TMP/z.json" || fail "--idle-threshold 0"
expect_eq "0" "$(json "['options']['idle_threshold_ns']" "$TMP/z.json")" 0
# and --help says so, for a command with DUR options only
for c in analyze export version; do "$IOTAPE" help "$c" >"$TMP/help.$c"; done
grep -q "refused, except 0" "$TMP/help.analyze" ||
	fail "analyze --help does not say what DUR is"
grep -q "DUR is a duration" "$TMP/help.export" || fail "export --help: no DUR note"
if grep -q "DUR is" "$TMP/help.version"; then fail "version --help speaks of DUR"; fi
echo "duration_units: ok"
