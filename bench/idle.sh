#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark: the cost of explaining the idle gaps (docs/diagnose-idle.md). On blkgen's trace of
# bench/analyze.sh made with two devices, and a run directory around it with a packet capture
# (PACKETS TCP and UDP packets over the trace's span, headers only, in a few flows) and a
# manifest whose clock pairs put them on the trace clock: `iotape analyze RUN` (gaps explained
# by the other device and the network) against `blkparse` on the same trace, and `iotape
# analyze` of the trace alone (no capture), interleaved rounds, medians. Not a test: machines
# are noisy. With BASE=/path/to/another/iotape, callgrind instruction counts of `iotape
# analyze` on bench/analyze.sh's one-device trace, this build against that one (the 5 % rule).
#   bench/idle.sh [EVENTS_MILLIONS]   (default: 1)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
PACKETS=${PACKETS:-500000}
m=${1:-1}
scripts/build.sh release >/dev/null
IOTAPE=$PWD/build/iotape
BLKGEN=$PWD/build/tests/blkgen
out=${BENCH_DIR:-/tmp/iotape-bench-idle}
mkdir -p "$out"
. "$PWD/bench/lib.bash"
cd "$out"

ios=$((m * 1000000 / 6))
run="$out/run$m"
if [ ! -f "$run/trace.blktrace.0" ]; then
	mkdir -p "$run"
	"$BLKGEN" -o "$run" --ios "$ios" --gaps 20 --seed 7 --merge-pct 10 --devices 2
	span=$("$IOTAPE" analyze --json "$run/trace" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["start_ns"] + d["span_ns"])')
	python3 - "$run" "$span" "$PACKETS" <<'EOF'
import json, random, struct, sys
run, span, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
real0 = 1700000000000000000
rnd = random.Random(7)
seq = {}
hosts = [bytes([10, 0, 0, k]) for k in range(1, 9)]
with open(run + '/net.pcap', 'wb') as f:
    # pcap, nanosecond timestamps, Ethernet, headers only (snaplen 54)
    f.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 54, 1))
    for t in sorted(rnd.randrange(span) for _ in range(n)):
        ts = real0 + t
        a, b = rnd.sample(range(8), 2)
        udp = rnd.random() < 0.1
        length = rnd.choice((0, 100, 1448, 1448, 9000))
        l4 = (struct.pack('>HHHH', 6800 + a, 40000 + b, 8 + length, 0) if udp else
              struct.pack('>HHIIBBHHH', 6800 + a, 40000 + b, seq.get((a, b), 1), 0, 0x50,
                          0x18, 65535, 0, 0))
        if not udp:  # each flow's bytes in order, as a TCP stream carries them
            seq[a, b] = (seq.get((a, b), 1) + length) & 0xffffffff
        ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(l4) + length,
                         0, 0x4000, 64, 17 if udp else 6, 0, hosts[a], hosts[b])
        eth = b'\x02' * 6 + b'\x04' * 6 + b'\x08\x00'
        frame = (eth + ip + l4)[:54]
        f.write(struct.pack('<IIII', ts // 10**9, ts % 10**9, len(frame),
                            14 + 20 + len(l4) + length))
        f.write(frame)
json.dump({'format': 'iotape-run', 'format_version': 1, 'iotape_version': 'bench',
           'state': 'complete', 'host': {'hostname': 'bench'},
           'clock': {'trace_clock': 'mono',
                     'start': {'realtime_ns': real0, 'trace_ns': 0, 'uncertainty_ns': 100},
                     'end': {'realtime_ns': real0 + span, 'trace_ns': span,
                             'uncertainty_ns': 100}},
           'network': {'interface': 'eth0', 'file': 'net.pcap', 'addresses': ['10.0.0.1']}},
          open(run + '/manifest.json', 'w'), indent=1)
EOF
fi
events=$("$IOTAPE" analyze --json "$run/trace" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["input"]["events"])')
io=() tr=() bp=()
for _ in $(seq "$RUNS"); do
	read -r s r_run < <(timed "$IOTAPE" analyze "$run")
	io+=("$s")
	read -r s r_tr < <(timed "$IOTAPE" analyze "$run/trace")
	tr+=("$s")
	read -r s _ < <(timed blkparse -q -i "$run/trace" -o /dev/null)
	bp+=("$s")
done
s_io=$(med "${io[@]}") s_tr=$(med "${tr[@]}") s_bp=$(med "${bp[@]}")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }'; }
printf '%-9s %-8s %-34s %10s %10s %12s\n' events packets tool seconds rss_MiB vs_blkparse
printf '%-9s %-8s %-34s %10s %10s %12s\n' "$events" "$PACKETS" "iotape analyze RUN (2 devs + pcap)" \
	"$s_io" "$((r_run / 1024))" "$(ratio "$s_bp" "$s_io")"
printf '%-9s %-8s %-34s %10s %10s %12s\n' "" "" "iotape analyze TRACE (2 devs)" "$s_tr" \
	"$((r_tr / 1024))" "$(ratio "$s_bp" "$s_tr")"
printf '%-9s %-8s %-34s %10s %10s %12s\n' "" "" "blkparse" "$s_bp" "" "1.0x"

if [ -n "${BASE:-}" ]; then
	one="$out/one$m"
	mkdir -p "$one"
	[ -f "$one/trace.blktrace.0" ] ||
		"$BLKGEN" -o "$one" --ios "$ios" --gaps 20 --seed 7 --merge-pct 10
	for b in "$BASE" "$IOTAPE"; do
		valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$b" analyze "$one/trace" \
			>/dev/null 2>"$out/cg.err"
		# iotape's own functions, and the total (which counts the dynamic loader and libraries)
		own=$(callgrind_annotate --auto=no --threshold=100 "$out/cg.out" |
			awk -v d="$(dirname "$(dirname "$(readlink -f "$b")")")" \
				'index($0, d "/") && /^ *[0-9,]+ / { gsub(",", "", $1); s += $1 } END { print s }')
		total=$(sed -n 's/.*Collected : //p' "$out/cg.err")
		printf 'callgrind, 1 device, no capture: %-40s own %12s total %12s\n' "$b" "$own" "$total"
	done
fi
