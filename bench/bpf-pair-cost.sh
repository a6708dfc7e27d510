#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two iotape builds' BPF programs compared per call, paired: both captures attached to one loop
# device over tmpfs at once, under the same fio run (4 KiB randread, O_DIRECT, iodepth 16), so
# the machine's load moves both alike; kernel.bpf_stats_enabled's run_time_ns / run_cnt of each
# capture's own programs. The program attached second runs on lines the first warmed (10-20 ns
# less per call): the order turns each round, and the summary's "paired" figure (half the
# difference of the two orders' mean differences) cancels it.
# Not a test; run by hand, as root:  bench/bpf-pair-cost.sh OLD_IOTAPE NEW_IOTAPE
# env: DETAIL=io (events, summary) ROUNDS=6 SECS=4
set -euo pipefail
A=${1:?usage: bpf-pair-cost.sh OLD_IOTAPE NEW_IOTAPE}
B=${2:?usage: bpf-pair-cost.sh OLD_IOTAPE NEW_IOTAPE}
DETAIL=${DETAIL:-io}
ROUNDS=${ROUNDS:-6}
SECS=${SECS:-4}
[ "$(id -u)" -eq 0 ] || { echo "bpf-pair-cost: needs root" >&2; exit 2; }
for t in fio bpftool python3; do
	command -v $t >/dev/null || { echo "bpf-pair-cost: needs $t" >&2; exit 2; }
done
# loop devices and captures: the same lock as the capture tests
exec 9>/tmp/iotape-capture-tests.lock
flock 9
WORK=$(mktemp -d /tmp/iotape-bpfpair.XXXXXX)
source "$(dirname "$0")/capture.bash"
LOOP="" PIDS="" STATS_WAS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	bpf_bench_cleanup
}
trap cleanup EXIT
bpf_stats_on
loop_over_tmpfs 512
ENGINE=libaio
fio --enghelp 2>/dev/null | grep -qw libaio || ENGINE=psync
echo "old $A, new $B; --detail $DETAIL, $ROUNDS rounds of fio $ENGINE ${SECS}s on $LOOP; load average $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$WORK/rounds"
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then F=$A FN=old S=$B SN=new; else F=$B FN=new S=$A SN=old; fi
	"$F" capture -o "$WORK/r1" -d "$LOOP" --backend bpf --detail "$DETAIL" -- sleep $((SECS + 5)) \
		>/dev/null 2>"$WORK/e1" &
	P1=$!
	PIDS="$P1"
	sleep 1.5
	"$S" capture -o "$WORK/r2" -d "$LOOP" --backend bpf --detail "$DETAIL" -- sleep $((SECS + 3)) \
		>/dev/null 2>"$WORK/e2" &
	P2=$!
	PIDS="$P1 $P2"
	sleep 1.5
	bpf_progs "$P1" >"$WORK/a0"
	bpf_progs "$P2" >"$WORK/b0"
	fio --name=randread --filename="$LOOP" --rw=randread --bs=4k --direct=1 --ioengine=$ENGINE \
		--iodepth=16 --runtime="$SECS" --time_based --randrepeat=0 >/dev/null 2>&1
	bpf_progs "$P1" >"$WORK/a1"
	bpf_progs "$P2" >"$WORK/b1"
	wait "$P1" || { cat "$WORK/e1" >&2; exit 1; }
	wait "$P2" || { cat "$WORK/e2" >&2; exit 1; }
	PIDS=""
	rm -rf "$WORK/r1" "$WORK/r2"
	python3 - "$WORK/a0" "$WORK/a1" "$FN" "$WORK/b0" "$WORK/b1" "$SN" "$r" >>"$WORK/rounds" <<'PY'
import sys
def load(p):
    return {l.split()[0]: (int(l.split()[1]), int(l.split()[2])) for l in open(p) if l.strip()}
for p0, p1, who, pos in ((sys.argv[1], sys.argv[2], sys.argv[3], "first"),
                         (sys.argv[4], sys.argv[5], sys.argv[6], "second")):
    a, b = load(p0), load(p1)
    for k in sorted(b):
        n = b[k][1] - a.get(k, (0, 0))[1]
        if n > 1000:
            print(sys.argv[7], who, pos, k, (b[k][0] - a.get(k, (0, 0))[0]) / n)
PY
done
python3 - "$WORK/rounds" <<'PY'
import collections, statistics as st, sys
v = collections.defaultdict(dict)  # (prog, round) -> who -> (ns, pos)
for line in open(sys.argv[1]):
    rnd, who, pos, prog, ns = line.split()
    v[prog, rnd][who] = (float(ns), pos)
progs = sorted({p for p, _ in v})
for prog in progs:
    rows = [w for (p, _), w in sorted(v.items()) if p == prog and len(w) == 2]
    if not rows:
        continue
    old = [w["old"][0] for w in rows]
    new = [w["new"][0] for w in rows]
    # old - new when old ran first (position + change), and when new did (position - change)
    d1 = [w["old"][0] - w["new"][0] for w in rows if w["old"][1] == "first"]
    d2 = [w["old"][0] - w["new"][0] for w in rows if w["new"][1] == "first"]
    paired = (st.mean(d1) + st.mean(d2)) / 2 if d1 and d2 else float("nan")
    print("%-12s old %.0f ns (%.0f..%.0f), new %.0f ns (%.0f..%.0f), new - old paired %+.1f ns, %d rounds"
          % (prog, st.median(old), min(old), max(old), st.median(new), min(new), max(new),
             -paired, len(rows)))
PY
