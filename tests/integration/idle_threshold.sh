# SPDX-License-Identifier: MIT
# One option name for the idle threshold: --idle-threshold in analyze, report and compare
# (--idle kept as an alias), one default (10ms), and the same gaps counted by all three.
source "$SRCDIR/tests/integration/lib.bash"
cd "$TMP"
RUN=$SRCDIR/samples/ext4

for cmd in analyze report compare; do
	"$IOTAPE" help "$cmd" | grep -- "--idle-threshold DUR" >/dev/null || fail "$cmd: help has no --idle-threshold"
	"$IOTAPE" help "$cmd" | grep -- "default 10ms" >/dev/null || fail "$cmd: help has no default"
done
# compare's idle % with the threshold given either way, and analyze's
idle() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print([m for m in d["metrics"] if m["key"] == "idle_pct"][0]["rows"][0]["mean"])' "$1"
}
"$IOTAPE" compare --format json --idle-threshold 1ms "$RUN" >new.json || fail "compare --idle-threshold"
"$IOTAPE" compare --format json --idle 1ms "$RUN" >old.json || fail "compare --idle"
"$IOTAPE" compare --format json "$RUN" >default.json || fail "compare"
expect_eq "compare: --idle is --idle-threshold" "$(idle old.json)" "$(idle new.json)"
[ "$(idle new.json)" != "$(idle default.json)" ] || fail "compare: the threshold changes nothing"
"$IOTAPE" analyze --json --idle-threshold 1ms "$RUN" >a.json
"$IOTAPE" analyze --json --idle 1ms "$RUN" >a2.json || fail "analyze --idle"
cmp -s a.json a2.json || fail "analyze: --idle differs from --idle-threshold"
# (compare prints 10 significant digits)
expect_eq "compare and analyze idle %" "$(printf %.6f "$(idle new.json)")" \
	"$(printf %.6f "$(json "['devices'][0]['idle']['pct']" a.json)")"
"$IOTAPE" report --idle-threshold 1ms "$RUN" -o r1.html || fail "report --idle-threshold"
"$IOTAPE" report --idle 1ms "$RUN" -o r2.html || fail "report --idle"
cmp -s r1.html r2.html || fail "report: --idle differs from --idle-threshold"
echo "idle_threshold: ok"
