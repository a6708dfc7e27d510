#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# report and compare at the edges the issue found: three runs (device_graphs wrote past its
# name table), timestamps near the end of the u64 clock (a bin end wrapped and the pass never
# finished), sectors from 0 to near 2^64 (the density grid's row ran past its 128 rows).
# Heap and bounds errors show in the ASan+UBSan build; the hang shows in every build.
source "$SRCDIR/tests/integration/lib.bash"

gen() { # DIR SEED ARGS...
	local d=$1 s=$2
	shift 2
	mkdir -p "$d"
	"$TOOLS/blkgen" -o "$d" -n sdb --seed "$s" --truth "$d.truth.json" "$@" >/dev/null
}
run() { # WHAT CMD...: the command must finish within a minute and succeed
	local what=$1 rc=0
	shift
	timeout 120 "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" != 124 ] || fail "$what: did not finish in 120 s"
	[ "$rc" = 0 ] || { cat "$TMP/err" >&2; fail "$what: exit $rc"; }
}

gen "$TMP/a" 1 --ios 2000 --gaps 2 --gap-ms 30
gen "$TMP/b" 2 --ios 2000 --depth 8
gen "$TMP/c" 3 --ios 2000 --devices 2
run "three runs" "$IOTAPE" report "$TMP/a" "$TMP/b" "$TMP/c" -o "$TMP/abc.html"
run "three runs, compare" "$IOTAPE" compare "$TMP/a" "$TMP/b" "$TMP/c"

# the last record 50 us before the clock's end, inside the last bin (so that its end wraps)
gen "$TMP/probe" 4 --ios 2000 --gaps 2 --gap-ms 20
start=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"][0]
print(2**64 - 50000 - d["last_ns"])' "$TMP/probe.truth.json")
gen "$TMP/late" 4 --ios 2000 --gaps 2 --gap-ms 20 --start-ns "$start"
run "near 2^64, analyze" "$IOTAPE" analyze --json "$TMP/late/sdb"
run "near 2^64, report" "$IOTAPE" report "$TMP/late" -o "$TMP/late.html"
run "near 2^64, compare" "$IOTAPE" compare "$TMP/late"

gen "$TMP/wide" 5 --ios 2000 --sector-max 0xfffffffffffff000
run "sectors to 2^64, report" "$IOTAPE" report "$TMP/wide" -o "$TMP/wide.html"
grep -q 'sector offset over time' "$TMP/wide.html" || fail "no offset graph"
exit 0
