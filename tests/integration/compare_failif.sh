#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape compare --fail-if: exit status 0 when every group passes, 1 when one crosses, 2 for
# a bad rule; --label, --baseline and run directories analyzed on the fly.
source "$SRCDIR/tests/integration/lib.bash"

G=$SRCDIR/tests/golden/compare/runs
a=("$G/debian12-ext4-1.json" "$G/debian12-ext4-2.json")
b=("$G/ubuntu24-xfs-1.json" "$G/ubuntu24-xfs-2.json")
lab=(--label old --label old --label new --label new)

status() { local rc=0; "$IOTAPE" compare "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?; echo $rc; }

# new is 24.7 % slower than old
expect_eq "mbps<-10%" "$(status "${a[@]}" "${b[@]}" "${lab[@]}" --fail-if 'mbps<-10%')" 1
grep -q 'FAIL' "$TMP/out" || fail "no FAIL row"
expect_eq "mbps<-30%" "$(status "${a[@]}" "${b[@]}" "${lab[@]}" --fail-if 'mbps<-30%')" 0
grep -q 'PASS' "$TMP/out" || fail "no PASS row"
# baseline the other way round: +32.8 %
expect_eq "baseline new" \
	"$(status "${a[@]}" "${b[@]}" "${lab[@]}" --baseline new --fail-if 'mbps>+30%')" 1
# absolute thresholds, in the metric's unit
expect_eq "lat_p99>=3000" "$(status "${a[@]}" "${b[@]}" "${lab[@]}" --fail-if 'lat_p99>=3000')" 1
expect_eq "lat_p99>4000" "$(status "${a[@]}" "${b[@]}" "${lab[@]}" --fail-if 'lat_p99>4000')" 0
# significance required: p = 0.005 passes alpha 0.01 (still fails); alpha 0.001 does not
expect_eq "alpha 0.01" \
	"$(status "${a[@]}" "${b[@]}" "${lab[@]}" --fail-if 'mbps<-10%' --alpha 0.01)" 1
expect_eq "alpha 0.001" \
	"$(status "${a[@]}" "${b[@]}" "${lab[@]}" --fail-if 'mbps<-10%' --alpha 0.001)" 0
# several rules: one failing is enough
expect_eq "two rules" "$(status "${a[@]}" "${b[@]}" "${lab[@]}" --fail-if 'mbps<-30%' \
	--fail-if 'nfs.READ>+20%')" 1
# usage errors: exit 2
expect_eq "bad rule" "$(status "${a[@]}" --fail-if 'mbps<<3')" 2
expect_eq "unknown metric" "$(status "${a[@]}" --fail-if 'bogus<3')" 2
grep -q "unknown metric 'bogus'" "$TMP/err" || fail "message: $(cat "$TMP/err")"
expect_eq "unknown baseline" "$(status "${a[@]}" "${b[@]}" "${lab[@]}" --baseline nope)" 2
expect_eq "label count" "$(status "${a[@]}" --label x)" 2
expect_eq "missing input" "$(status "$TMP/nope.json")" 2

# run directories: analyzed by compare itself, labelled by --label
for s in 1 2 3; do
	mkdir -p "$TMP/slow$s" "$TMP/fast$s"
	ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$TMP/slow$s" -n sdb --ios 3000 --seed $s --depth 1 >/dev/null
	ASAN_OPTIONS=detect_leaks=0 "$TOOLS/blkgen" -o "$TMP/fast$s" -n sdb --ios 3000 --seed $((s + 10)) --depth 8 >/dev/null
done
rc=0
"$IOTAPE" compare "$TMP"/slow{1,2,3} "$TMP"/fast{1,2,3} --label slow --label slow \
	--label slow --label fast --label fast --label fast --format csv >"$TMP/dirs.csv" || rc=$?
expect_eq "run directories" "$rc" 0
grep -q '^mbps,,fast,3,' "$TMP/dirs.csv" || fail "no fast group: $(cat "$TMP/dirs.csv")"
echo PASS
