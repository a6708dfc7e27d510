#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A sweep parameter value of any length (issue #25 item 13: past about 250 bytes a sweep could
# never run nor resume, "File name too long"): each cell directory name stays within NAME_MAX
# (cut at a whole escape, ending in ~ and the value's hash), values differing only past the
# cut get their own cells, and the sweep resumes without running anything again.
source "$SRCDIR/tests/integration/lib.bash"

long=$(head -c 600 /dev/zero | tr '\0' v)
S="$TMP/s"
"$IOTAPE" sweep -o "$S" --no-capture -p "p=short,${long}a,${long}b,$(printf '/%.0s' $(seq 300))" \
	-m 'n=^([0-9]+)' -- sh -c 'printf "%s\n" "$p" | wc -c' 2>"$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "the sweep failed"; }
expect_eq "cells" "$(find "$S" -maxdepth 1 -name 'p=*' | wc -l)" 4
for d in "$S"/p=*; do
	n=$(basename "$d")
	[ "${#n}" -le 255 ] || fail "'$n' is ${#n} bytes"
	expect_eq "$n: state" "$(json '["state"]' "$d/rep-1/result.json")" done
done
# the whole value reached the command, and its cell is the one named by its hash
expect_eq "metric of the long value" \
	"$(grep -l '"p": "'"${long}a"'"' "$S"/p=*/rep-1/result.json | xargs -r python3 -c \
	'import json,sys; print(int(json.load(open(sys.argv[1]))["metrics"]["n"]))')" 602
"$IOTAPE" sweep --resume "$S" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "resume"; }
grep -q "0 runs now: 0 done, 0 failed (4 finished before)" "$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "resume ran something again"; }
echo "PASS"
