#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What one IO costs the bpf backend, in figures a shared machine moves little: per IO, the ns
# the BPF programs ran (kernel.bpf_stats_enabled, bpftool's run_time_ns and run_cnt of this
# capture's programs) and the user-space instructions and cycles of iotape's own threads
# (perf stat -t, the reader's drain, order and write). fio 4 KiB random reads (O_DIRECT,
# iodepth 16) on a loop device over tmpfs, as bench/capture-overhead.sh, under one capture.
# The window: from 1 s after fio starts to 1 s before it ends; IOs counted in
# /sys/block/loopN/stat over it. Optionally a perf record profile of iotape in the same window.
# Not a test, and not an IOPS figure (bench/capture-overhead.sh is that, on a quiet machine):
# run it by hand, as root:  bench/bpf-io-cost.sh [IOTAPE]
# env: DETAIL=io (events, summary) SECS=5 DEPTH=16 ROUNDS=1 (prints each round's figures)
#      CALLGRIND=1: instead, iotape under callgrind (fio held to RATE=20000 IOPS): the reader's
#      instructions per IO record and where they go (deterministic; this machine's VM has no
#      hardware counters for perf stat's instructions:u)
#      PROFILE=1: perf record -g (dwarf) of iotape's threads, its report's top into
#      ${OUT:-.}/profile.txt
#      OUT=DIR: also keep callgrind's output there (DIR/callgrind.out)
set -euo pipefail
IOTAPE=${1:-iotape}
DETAIL=${DETAIL:-io}
SECS=${SECS:-5}
DEPTH=${DEPTH:-16}
ROUNDS=${ROUNDS:-1}
PROFILE=${PROFILE:-0}
OUT=${OUT:-}
[ "$(id -u)" -eq 0 ] || { echo "bpf-io-cost: needs root" >&2; exit 2; }
for t in fio perf bpftool python3; do
	command -v $t >/dev/null || { echo "bpf-io-cost: needs $t" >&2; exit 2; }
done
[ "$SECS" -ge 3 ] || { echo "bpf-io-cost: SECS must be 3 or more" >&2; exit 2; }
# loop devices and a capture: the same lock as the capture tests
exec 9>/tmp/iotape-capture-tests.lock
flock 9
WORK=$(mktemp -d /tmp/iotape-bpfcost.XXXXXX)
source "$(dirname "$0")/capture.bash"
LOOP="" CAP="" STATS_WAS=""
cleanup() {
	[ -n "$CAP" ] && kill "$CAP" 2>/dev/null && wait "$CAP" 2>/dev/null
	bpf_bench_cleanup
}
trap cleanup EXIT
bpf_stats_on
loop_over_tmpfs 1024
ENGINE=libaio
fio --enghelp 2>/dev/null | grep -qw libaio || ENGINE=psync
reads() { awk '{print $1}' "/sys/block/${LOOP#/dev/}/stat"; }

if [ "${CALLGRIND:-0}" = 1 ]; then
	# iotape under callgrind, fio (its child, not traced) held to RATE IOPS so that the slowed
	# reader keeps up: the reader's and the encoder's instructions (drain() and
	# encoder_main(), inclusive) per IO record
	command -v valgrind >/dev/null || { echo "bpf-io-cost: CALLGRIND=1 needs valgrind" >&2; exit 2; }
	valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$WORK/cg.out" "$IOTAPE" capture \
		-o "$WORK/run" -d "$LOOP" --backend bpf --detail "$DETAIL" --buffer 32M -- \
		fio --name=randread --filename="$LOOP" --rw=randread --bs=4k --direct=1 \
		--ioengine=$ENGINE --iodepth="$DEPTH" --runtime="$SECS" --time_based --randrepeat=0 \
		--rate_iops="${RATE:-20000}" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
	[ -n "$OUT" ] && cp "$WORK/cg.out" "$OUT/callgrind.out"
	callgrind_annotate --show=Ir --inclusive=yes "$WORK/cg.out" >"$WORK/incl" 2>/dev/null
	callgrind_annotate --show=Ir "$WORK/cg.out" >"$WORK/self" 2>/dev/null
	# the cache simulator's misses (first level, last level) of the reader thread (drain())
	callgrind_annotate --show=D1mr,D1mw,DLmr,DLmw --inclusive=yes "$WORK/cg.out" 2>/dev/null |
		grep -m1 'bpf.c:drain ' >"$WORK/miss" || true
	python3 - "$WORK/run/manifest.json" "$WORK/incl" "$WORK/self" "$WORK/miss" <<'EOF'
import json, re, sys
m = json.load(open(sys.argv[1]))
b = m["backend"]
n = max(b["records"], 1)
def table(path):
    out, seen = [], set()
    for line in open(path):
        g = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+?):(\S+)", line)
        k = (g.group(2).split("/")[-1], g.group(3)) if g else None
        if g and k not in seen and "/elf/" not in g.group(2) and "???" not in g.group(2):
            seen.add(k)
            out.append((int(g.group(1).replace(",", "")), g.group(2).split("/")[-1], g.group(3)))
    return out
incl = table(sys.argv[2])
# the reader thread (drain()) and, at the events and io levels, the encoder thread it hands
# the records to (bpf_spool.c): what a record costs is the two together
ir = lambda f, fn: sum(x[0] for x in incl if x[1] == f and x[2] == fn)
rd, enc = ir("bpf.c", "drain"), ir("bpf_spool.c", "encoder_main")
print("callgrind: %d records (lost %d, late %d), %d events written; instructions/record: "
      "%.0f (reader thread %.0f, encoder thread %.0f)"
      % (b["records"], b["lost_records"], b["reorder"]["late"], m["counts"]["events"],
         (rd + enc) / n, rd / n, enc / n))
miss = re.findall(r"([\d,]+) \(", open(sys.argv[4]).read())
if len(miss) >= 4:
    v = [int(x.replace(",", "")) for x in miss[:4]]
    print("  cache (simulated) per record: D1 misses %.1f read %.1f write, LL misses %.1f read"
          " %.1f write" % (v[0] / n, v[1] / n, v[2] / n, v[3] / n))
print("  inclusive, per record:")
for ir, f, fn in incl:
    if ir / n >= 40 and f.endswith(".c") and fn not in ("main", "cmd_capture", "reader_main",
                                                        "start_thread", "cap_run"):
        print("  %7.0f  %s:%s" % (ir / n, f, fn))
print("  self, per record:")
for ir, f, fn in table(sys.argv[3])[:20]:
    if ir / n >= 20:
        print("  %7.0f  %s:%s" % (ir / n, f, fn))
EOF
	exit 0
fi
echo "iotape: $IOTAPE ($("$IOTAPE" version 2>/dev/null | head -1 || echo "?")); --detail $DETAIL"
echo "$LOOP: loop over tmpfs; fio $ENGINE 4 KiB randread iodepth $DEPTH, ${SECS}s, window $((SECS - 2))s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
	rm -rf "$WORK/run"
	"$IOTAPE" capture -o "$WORK/run" -d "$LOOP" --backend bpf --detail "$DETAIL" -- \
		fio --name=randread --filename="$LOOP" --rw=randread --bs=4k --direct=1 \
		--ioengine=$ENGINE --iodepth="$DEPTH" --runtime="$SECS" --time_based --randrepeat=0 \
		>/dev/null 2>"$WORK/err" &
	CAP=$!
	sleep 1
	kill -0 "$CAP" 2>/dev/null || { cat "$WORK/err" >&2; exit 1; }
	tids=$(ls /proc/"$CAP"/task | paste -sd,)
	bpf_progs "$CAP" >"$WORK/p0"
	r0=$(reads)
	# both over the same window: the counts, and the profile when asked for
	perf stat -x, -e instructions:u,cycles:u,task-clock -t "$tids" -o "$WORK/stat" \
		-- sleep $((SECS - 2)) &
	STAT=$!
	if [ "$PROFILE" = 1 ]; then
		perf record -q -g --call-graph dwarf,16384 -F 999 -t "$tids" -o "$WORK/perf.data" \
			-- sleep $((SECS - 2)) 2>/dev/null
	fi
	wait "$STAT"
	r1=$(reads)
	bpf_progs "$CAP" >"$WORK/p1"
	wait "$CAP" || { cat "$WORK/err" >&2; CAP=""; exit 1; }
	CAP=""
	python3 - "$WORK/stat" "$WORK/p0" "$WORK/p1" "$r0" "$r1" "$round" "$PROFILE" <<'EOF'
import sys
stat, p0, p1, r0, r1, rnd, prof = sys.argv[1:]
ios = max(int(r1) - int(r0), 1)
ev = {}
for line in open(stat):
    f = line.strip().split(",")
    if len(f) > 2 and f[0] and f[0][0].isdigit():
        ev[f[2]] = float(f[0])
def load(p):
    return {l.split()[0]: (int(l.split()[1]), int(l.split()[2])) for l in open(p) if l.strip()}
a, b = load(p0), load(p1)
ns = {k: b[k][0] - a.get(k, (0, 0))[0] for k in b}
cnt = {k: b[k][1] - a.get(k, (0, 0))[1] for k in b}
tot = sum(ns.values())
per = ", ".join("%s %.0f ns x %.2f" % (k, ns[k] / cnt[k], cnt[k] / ios)
                for k in sorted(ns) if cnt[k])
print("round %s: %d IOs in the window; BPF %.0f ns/IO (%s)" % (rnd, ios, tot / ios, per))
if prof == "1":
    print("  (PROFILE=1: perf record ran too, which costs iotape's threads some)")
ins, cyc = ev.get("instructions:u"), ev.get("cycles:u")
clk = ev.get("task-clock", 0)
hw = ("%.0f instructions/IO, %.0f cycles/IO" % (ins / ios, cyc / ios) if ins and cyc
      else "no hardware counters here (CALLGRIND=1 counts instructions)")
print("  iotape's threads: task-clock %.0f ns/IO; %s" % (clk * 1e6 / ios, hw))
EOF
	if [ "$PROFILE" = 1 ]; then
		perf report -i "$WORK/perf.data" --stdio --no-children --sort symbol \
			--percent-limit 0.5 2>/dev/null | grep -v '^$' >"${OUT:-.}/profile.txt" || true
		perf report -i "$WORK/perf.data" --stdio --no-children --sort symbol -g none \
			--percent-limit 1 2>/dev/null | grep '%' | head -30
		echo "  (call graphs: ${OUT:-.}/profile.txt)"
	fi
done
