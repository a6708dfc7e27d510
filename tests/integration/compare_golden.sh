#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape compare: text, Markdown and CSV tables byte for byte against tests/golden/compare/.
source "$SRCDIR/tests/integration/lib.bash"

G=$SRCDIR/tests/golden/compare
runs=()
for d in debian12 ubuntu24; do
	for fs in ext4 xfs; do
		for n in 1 2; do runs+=("$G/runs/$d-$fs-$n.json"); done
	done
done
long=(--by filesystem --baseline ext4 --fail-if 'mbps<-10%' --fail-if 'lat_p99>+20%')
matrix=(--rows distro --cols filesystem --baseline 'debian12 / ext4')

check() { # NAME EXPECTED-STATUS ARGS...
	local name=$1 want=$2 rc=0
	shift 2
	"$IOTAPE" compare "${runs[@]}" "$@" >"$TMP/$name" || rc=$?
	expect_eq "$name exit status" "$rc" "$want"
	diff -u "$G/$name" "$TMP/$name" || fail "$name differs from the golden file"
}

check long.txt 1 "${long[@]}"
check long.md 1 "${long[@]}" --format markdown
check long.csv 1 "${long[@]}" --format csv
check matrix.txt 0 "${matrix[@]}"
check matrix.md 0 "${matrix[@]}" --format markdown
check matrix.csv 0 "${matrix[@]}" --format csv
check auto.txt 0
# one matrix per distro, each against its own ext4 cell: ubuntu24/xfs is -28.7 % there
check tables.txt 1 --tables distro --rows filesystem --cols kernel --baseline 'ext4 / 6.1.0' \
	--fail-if 'mbps<-20%'

# JSON: the same numbers, machine-readable
"$IOTAPE" compare "${runs[@]}" "${long[@]}" --format json >"$TMP/c.json" || true
expect_eq "json groups" "$(json '["groups"].__len__()' "$TMP/c.json")" 2
expect_eq "json mbps xfs change" \
	"$(json '["metrics"][0]["rows"][1]["change_pct"].__round__(3)' "$TMP/c.json")" -18.007
expect_eq "json failed" "$(json '["failed"]' "$TMP/c.json")" 2
echo PASS
