#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A compare matrix shows at most 15 columns, 64 rows and 64 tables: what it leaves out is
# said under the table (it was left out silently), in text and Markdown; CSV lists them all.
source "$SRCDIR/tests/integration/lib.bash"

run=$SRCDIR/tests/golden/compare/runs/debian12-ext4-1.json
args=()
for i in $(seq -w 1 17); do args+=("$run" --label "l$i"); done
"$IOTAPE" compare "${args[@]}" --cols label --metrics mbps >"$TMP/cols.txt" ||
	fail "compare: $(cat "$TMP/cols.txt")"
head=$(grep '\\ label' "$TMP/cols.txt")
[[ $head == *l15 ]] || fail "no 15th column: $head"
grep -q "^(2 more columns not shown: l16, l17; a matrix shows 15 columns and 64 rows: split it with --tables)$" \
	"$TMP/cols.txt" || fail "text: $(cat "$TMP/cols.txt")"
"$IOTAPE" compare "${args[@]}" --cols label --metrics mbps --format markdown >"$TMP/cols.md"
grep -q "^(2 more columns not shown: l16, l17;" "$TMP/cols.md" || fail "markdown: $(cat "$TMP/cols.md")"
# CSV and JSON list every group
expect_eq "csv rows" "$("$IOTAPE" compare "${args[@]}" --cols label --metrics mbps \
	--format csv | grep -c '^mbps,')" 17

args=()
for i in $(seq -w 1 66); do args+=("$run" --label "r$i"); done
"$IOTAPE" compare "${args[@]}" --rows label --metrics mbps >"$TMP/rows.txt" ||
	fail "compare: $(cat "$TMP/rows.txt")"
grep -q "^r64 " "$TMP/rows.txt" && ! grep -q "^r65 " "$TMP/rows.txt" ||
	fail "rows: $(tail -5 "$TMP/rows.txt")"
grep -q "^(2 more rows not shown: r65, r66;" "$TMP/rows.txt" || fail "text: $(tail -3 "$TMP/rows.txt")"
echo ok
