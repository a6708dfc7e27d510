#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# analyze -o FILE on a summary run (capture --detail summary): the document is written beside
# FILE and renamed into place like every other output (common/fs.h). It used fopen(FILE, "w")
# and then released an iot_outfile it had never opened: it aborted (free of a wild pointer),
# and wrote into a file hard-linked from elsewhere.
source "$SRCDIR/tests/integration/lib.bash"

mkdir "$TMP/run"
cp "$SRCDIR/tests/fuzz/seeds/bpf_summary/loop-randread.json" "$TMP/run/summary.json"
echo '{"format": "iotape-run", "format_version": 1}' >"$TMP/run/manifest.json"
"$IOTAPE" analyze "$TMP/run" >"$TMP/want.txt" || fail "analyze of a summary run"
grep -q "2048 ios" "$TMP/want.txt" || fail "the summary's reads are not shown: $(cat "$TMP/want.txt")"

echo old >"$TMP/elsewhere"
ln "$TMP/elsewhere" "$TMP/out.txt"
"$IOTAPE" analyze "$TMP/run" -o "$TMP/out.txt" || fail "analyze -o of a summary run"
cmp -s "$TMP/want.txt" "$TMP/out.txt" || fail "-o holds other text than standard output"
expect_eq "the other link" "$(cat "$TMP/elsewhere")" old
"$IOTAPE" analyze --json "$TMP/run" -o "$TMP/out.json" || fail "analyze --json -o"
json "['devices'][0]['reads']['ios']" "$TMP/out.json" >/dev/null || fail "no JSON document"
ls -A "$TMP" | grep -q '\.tmp$' && fail "a temporary file was left: $(ls -A "$TMP")"
echo "analyze_summary_output: ok"
