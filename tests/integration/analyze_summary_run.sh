# SPDX-License-Identifier: MIT
# iotape analyze of a summary run (capture --detail summary: summary.json, no records), with
# and without -o: the text and the JSON document are the same on standard output and in FILE,
# FILE is written whole (beside it, then renamed) and analyze exits 0.
source "$SRCDIR/tests/integration/lib.bash"
cd "$TMP"

mkdir run
cp "$SRCDIR/tests/fuzz/seeds/bpf_summary/loop-randread.json" run/summary.json
python3 - "$SRCDIR/samples/ext4/manifest.json" run/manifest.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["detail"] = {"level": "summary", "not_given": ["per-IO records"]}
json.dump(m, open(sys.argv[2], "w"))
PY
"$IOTAPE" analyze run >out.txt || fail "analyze (text) of a summary run"
grep "captured at --detail summary: not given: per-IO records" out.txt >/dev/null ||
	fail "the text does not say what a summary lacks"
"$IOTAPE" analyze -o file.txt run || fail "analyze -o FILE of a summary run: exit $?"
cmp out.txt file.txt || fail "-o FILE differs from standard output (text)"
"$IOTAPE" analyze --json run >out.json || fail "analyze --json of a summary run"
"$IOTAPE" analyze --json -o file.json run || fail "analyze --json -o FILE of a summary run: exit $?"
cmp out.json file.json || fail "-o FILE differs from standard output (JSON)"
[ "$(ls -A | tr '\n' ' ')" = "file.json file.txt out.json out.txt run " ] ||
	fail "a temporary file was left beside FILE: $(ls -A)"
echo "summary run: text and JSON the same on stdout and in -o FILE"
