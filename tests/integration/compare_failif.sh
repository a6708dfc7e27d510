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
grep -q '^mbps,MiB/s,fast,3,' "$TMP/dirs.csv" || fail "no fast group: $(cat "$TMP/dirs.csv")"
# a gate fails closed: a metric the runs do not have (no devices, a field that is no number)
# is a failure, said as such, not a pass
python3 - "$G/debian12-ext4-1.json" "$TMP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
nodev = dict(d)
nodev["devices"] = []
json.dump(nodev, open(sys.argv[2] + "/nodev.json", "w"))
d["devices"][0]["reads"]["bytes"] = "lots"
d["devices"][0]["writes"]["bytes"] = "more"
json.dump(d, open(sys.argv[2] + "/text.json", "w"))
z = json.load(open(sys.argv[1]))
z["devices"][0]["seeks"]["per_sec"] = 0
json.dump(z, open(sys.argv[2] + "/zero.json", "w"))
PY
expect_eq "no devices" "$(status "$TMP/nodev.json" --fail-if 'mbps<10')" 1
grep -q "no data" "$TMP/out" || fail "no devices: the table does not say 'no data': $(cat "$TMP/out")"
grep -q "warning: --fail-if 'mbps<10': group '.*' has no mbps value: a gate fails closed" "$TMP/err" ||
	fail "no devices: message '$(cat "$TMP/err")'"
expect_eq "non-numeric bytes" "$(status "$TMP/text.json" --fail-if 'mbps>0')" 1
# a relative rule whose baseline has no data fails for every group
expect_eq "no baseline data" "$(status "$TMP/nodev.json" "${b[@]}" --label old --label new \
	--label new --fail-if 'mbps<-10%')" 1
grep -q "group 'new': its baseline has no mbps value: a gate fails closed" "$TMP/err" ||
	fail "no baseline data: message '$(cat "$TMP/err")'"
# a change from a baseline of 0 has no percentage: it fails too; 0 to 0 did not change
expect_eq "from 0" "$(status "$TMP/zero.json" "${b[0]}" --label old --label new \
	--fail-if 'seeks>+50%')" 1
grep -q "its baseline's seeks is 0, a change in percent is undefined" "$TMP/err" ||
	fail "from 0: message '$(cat "$TMP/err")'"
expect_eq "0 to 0" "$(status "$TMP/zero.json" "$TMP/zero.json" --label old --label new \
	--fail-if 'seeks>+50%')" 0
# a metric that is there still passes
expect_eq "nfs present" "$(status "$TMP/nodev.json" --fail-if 'nfs.READ>100')" 0
echo PASS
