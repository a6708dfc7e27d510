#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape sweep --no-capture: plan, substitution, environment, metrics, a failing cell, a sweep
# killed with SIGKILL and one stopped with SIGINT resumed without running a finished run
# twice, --retry-failed, usage errors. Needs no root: nothing is traced.
source "$SRCDIR/tests/integration/lib.bash"

# the plan: 3 x 2 cells, 2 repetitions, interleaved; --order sequential keeps cell order
"$IOTAPE" sweep -o "$TMP/dry" --no-capture -p size=1k..4k:x2 -p m=cp,ssc -r 2 --seed 3 \
	--dry-run -- echo '{size}' '{m}' 'rep={rep}' >"$TMP/plan" || fail "dry run"
expect_eq "planned runs" "$(wc -l <"$TMP/plan")" 12
grep -q $'\tsize=2k/m=ssc/rep-2\techo 2k ssc rep=2$' "$TMP/plan" || fail "substitution: $(cat "$TMP/plan")"
[ ! -e "$TMP/dry" ] || fail "--dry-run created the sweep directory"
cut -f2 "$TMP/plan" | head -6 | grep -c 'rep-1$' | grep -qx 6 || fail "round 1 is not first"
"$IOTAPE" sweep -o "$TMP/dry" --no-capture -p size=1k..4k:x2 -p m=cp,ssc -r 2 --order sequential \
	--dry-run -- true | cut -f2 | head -2 | tr '\n' ' ' >"$TMP/seq"
expect_eq "sequential order" "$(cat "$TMP/seq")" "size=1k/m=cp/rep-1 size=1k/m=cp/rep-2 "

# a sweep: metrics by regex (stdout, and stderr for dd-like tools) and by JSON path, the
# values also in the environment, and one failing cell
S="$TMP/sweep"
cat >"$TMP/work.sh" <<'SH'
#!/bin/sh
# prints a time on stdout, a rate on stderr, and JSON; fails for m=bad
echo "copy of $size took 0.$1 seconds"
echo "rate: 1$1 MB/s" >&2
printf '{"jobs": [{"write": {"bw": %s}}, {"write": {"bw": 5}}]}\n' "$1"
[ "$m" != bad ]
SH
chmod +x "$TMP/work.sh"
rc=0
"$IOTAPE" sweep -o "$S" --no-capture -p size=1k,2k -p m=cp,bad -r 2 --seed 11 \
	-m t='took ([0-9.]+) seconds' -m rate='rate: ([0-9]+)' -m bw='json:jobs[*].write.bw' \
	-- "$TMP/work.sh" '{rep}' 2>"$TMP/err" || rc=$?
cat "$TMP/err"
expect_eq "exit status with failed runs" "$rc" 1
grep -q "seed 11" "$TMP/err" || fail "the seed is not printed"
grep -q "ETA" "$TMP/err" || fail "no progress with ETA"
expect_eq "failures reported" "$(grep -c 'FAILED: exit status 1' "$TMP/err")" 4
grep -q "4 runs failed; run them again with 'iotape sweep --resume $S --retry-failed'" "$TMP/err" ||
	fail "no retry hint"
R="$S/size=2k/m=cp/rep-2"
expect_eq "state" "$(json '["state"]' "$R/result.json")" done
expect_eq "metric t" "$(json '["metrics"]["t"]' "$R/result.json")" 0.2
expect_eq "metric rate (stderr)" "$(json '["metrics"]["rate"]' "$R/result.json")" 12.0
expect_eq "metric bw (sum)" "$(json '["metrics"]["bw"]' "$R/result.json")" 7.0
expect_eq "params" "$(json '["params"]["size"]' "$R/result.json")" 2k
grep -q "copy of 2k took" "$R/stdout" || fail "stdout not kept"
grep -q "rate: 12" "$R/stderr" || fail "stderr not kept"
expect_eq "failed run" "$(json '["state"]' "$S/size=1k/m=bad/rep-1/result.json")" failed
expect_eq "its status" "$(json '["exit_status"]' "$S/size=1k/m=bad/rep-1/result.json")" 1
expect_eq "sweep.json seed" "$(json '["seed"]' "$S/sweep.json")" 11
# nothing was traced: no manifest, no trace, no capture log in any run
[ -z "$(find "$S" -name manifest.json -o -name '*.blktrace.*' -o -name capture.log)" ] ||
	fail "a --no-capture run has capture files"
expect_eq "captured" "$(json '["captured"]' "$R/result.json")" False

# a new sweep over an existing one is refused; --resume of a complete sweep runs nothing
rc=0; "$IOTAPE" sweep -o "$S" --no-capture -- true 2>"$TMP/err2" || rc=$?
expect_eq "sweep over a sweep" "$rc" 2
grep -q -- "--resume" "$TMP/err2" || fail "no hint to --resume: $(cat "$TMP/err2")"
rc=0; "$IOTAPE" sweep --resume "$S" 2>"$TMP/err2" || rc=$?
expect_eq "resume with failures" "$rc" 1
grep -q "0 runs now" "$TMP/err2" || fail "resume ran something: $(cat "$TMP/err2")"
# --retry-failed runs the four failed ones (which fail again) and keeps the first attempts
rc=0; m=cp "$IOTAPE" sweep --resume "$S" --retry-failed 2>"$TMP/err2" || rc=$?
grep -q "4 runs now: 0 done, 4 failed" "$TMP/err2" || fail "retry: $(cat "$TMP/err2")"
[ -e "$S/size=1k/m=bad/rep-1.failed-1/result.json" ] || fail "the failed attempt was not kept"
expect_eq "attempt" "$(json '["attempt"]' "$S/size=1k/m=bad/rep-1/result.json")" 2

# SIGKILL in the middle: the command dies with the sweep; resuming runs every run that did
# not finish, and no finished run twice
K="$TMP/killed"
"$IOTAPE" sweep -o "$K" --no-capture -p n=1..6 -r 2 -- \
	sh -c 'echo "$IOTAPE_SWEEP_CELL {rep}" >>"$IOTAPE_SWEEP_DIR/ran"; sleep 0.3' 2>/dev/null &
pid=$!
for _ in $(seq 100); do [ "$(cat "$K/ran" 2>/dev/null | wc -l)" -ge 4 ] && break; sleep 0.1; done
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
before=$(wc -l <"$K/ran")
"$IOTAPE" sweep --resume "$K" 2>"$TMP/err3" || fail "resume after SIGKILL: $(cat "$TMP/err3")"
expect_eq "runs done" "$(find "$K" -name result.json | xargs grep -l '"state": "done"' | wc -l)" 12
# each of the 12 runs ran once, the killed one at most twice
dups=$(sort "$K/ran" | uniq -d | wc -l)
[ "$dups" -le 1 ] || fail "$dups runs ran twice: $(sort "$K/ran" | uniq -d)"
expect_eq "distinct runs" "$(sort -u "$K/ran" | wc -l)" 12
[ "$(wc -l <"$K/ran")" -le 13 ] || fail "more runs than 12 + the killed one"
echo "killed after $before runs; resumed: $(wc -l <"$K/ran") lines"

# SIGINT: the run in progress is stopped and left for the resume, exit 130
I="$TMP/int"
"$IOTAPE" sweep -o "$I" --no-capture -p n=1..4 -- \
	sh -c 'echo "{n}" >>"$IOTAPE_SWEEP_DIR/ran"; sleep 2' 2>"$TMP/err4" &
pid=$!
for _ in $(seq 100); do [ -s "$I/ran" ] && break; sleep 0.1; done
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
expect_eq "exit after SIGINT" "$rc" 130
grep -q "continue with 'iotape sweep --resume $I'" "$TMP/err4" || fail "no resume hint: $(cat "$TMP/err4")"
"$IOTAPE" sweep --resume "$I" 2>/dev/null || fail "resume after SIGINT"
expect_eq "runs after SIGINT and resume" "$(sort -u "$I/ran" | wc -l)" 4

# the Ceph post's table: four parameters, by default a table per request size, a row per
# version and distro, a column per filesystem; a parameter left out of a layout is an error
C="$TMP/ceph"
"$IOTAPE" sweep -o "$C" --no-capture -p bs=4k,128k -p version=0.46,0.47.2 \
	-p distro=oneiric,precise -p fs=btrfs,ext4,xfs -m bw='bw: ([0-9]+)' -- \
	sh -c 'echo "bw: ${#fs}${#version}${#bs}"' 2>/dev/null || fail "the Ceph-shaped sweep"
"$IOTAPE" compare "$C" --metrics bw >"$TMP/ceph.txt" || fail "compare of the Ceph sweep"
expect_eq "Ceph tables" "$(grep -c '^== bs = ' "$TMP/ceph.txt")" 2
grep -qE '^version, distro \\ fs +btrfs +ext4 +xfs$' "$TMP/ceph.txt" ||
	fail "Ceph header: $(cat "$TMP/ceph.txt")"
expect_eq "Ceph rows" "$(grep -cE '^0\.4(6|7\.2) / (oneiric|precise) ' "$TMP/ceph.txt")" 8
sec=$(sed -n '/^== bs = 128k/,$p' "$TMP/ceph.txt") # not piped: grep -q would cut sed short
grep -qE '^0\.47\.2 / precise +564\.0+ .* +464\.0+ .* +364\.0+ ' <<<"$sec" ||
	fail "Ceph values: $(cat "$TMP/ceph.txt")"
rc=0; "$IOTAPE" compare "$C" --rows version --cols fs --tables bs 2>"$TMP/err6" >/dev/null || rc=$?
expect_eq "a parameter left out" "$rc" 2
grep -q "parameter 'distro' has more than one value" "$TMP/err6" || fail "$(cat "$TMP/err6")"

# usage errors
for args in "--no-capture -- true" "-o $TMP/u1 -- true" "-o $TMP/u2 --no-capture -p 'x' -- true" \
	"-o $TMP/u3 --no-capture -p PATH=1 -- true" "-o $TMP/u4 --no-capture" \
	"--resume $S -p x=1" "-o $TMP/u5 --no-capture -m 'x=(' -- true" \
	"-o $TMP/u6 --no-capture --order random -- true" "--resume $TMP/nothing"; do
	rc=0; eval "\"\$IOTAPE\" sweep $args" 2>/dev/null || rc=$?
	expect_eq "iotape sweep $args" "$rc" 2
done
"$IOTAPE" help sweep | grep -- "--retry-failed" >/dev/null || fail "help sweep"
# a command that takes one run says what to do with a sweep
rc=0; "$IOTAPE" analyze "$S" 2>"$TMP/err5" || rc=$?
expect_eq "analyze SWEEPDIR" "$rc" 2
grep -q "is a sweep: 'iotape compare' and 'iotape report' read it whole" "$TMP/err5" ||
	fail "analyze SWEEPDIR: $(cat "$TMP/err5")"
# a metric over three decades is graphed on a log axis (a wall time of 0.01 s and one of 9 s
# on a linear axis left the small ones on the floor); one within a decade stays linear
"$IOTAPE" sweep -o "$TMP/decades" --no-capture -p x=1,10,100,1000 -r 1 \
	-m t='took ([0-9.]+)' -m u='flat ([0-9.]+)' -- sh -c 'echo "took $(($x * 9))"; echo "flat $((500 + $x))"' \
	2>/dev/null || fail "sweep of decades"
"$IOTAPE" report "$TMP/decades" -o "$TMP/decades.html" --svg "$TMP/dsvg" --metrics t,u \
	2>/dev/null || fail "report of decades"
grep -q '(log scale)</text>' "$TMP/dsvg/sweep-t-by-x.svg" || fail "no log axis for 9 .. 9000"
for v in 1 10 100 1000 10000; do
	grep -q ">$v</text>" "$TMP/dsvg/sweep-t-by-x.svg" || fail "no tick $v on the log axis"
done
! grep -q 'rotate.*(log scale)' "$TMP/dsvg/sweep-u-by-x.svg" || fail "a log axis for 501 .. 1500?"
echo "sweep without capture: ok"
