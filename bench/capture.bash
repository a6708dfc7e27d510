# SPDX-License-Identifier: MIT
# Sourced by the capture benchmarks (capture-overhead.sh, bpf-io-cost.sh, bpf-pair-cost.sh):
# their RAM-backed loop device and the BPF programs' run times. Root; WORK set first.

# bpf_stats_on: kernel.bpf_stats_enabled on until bpf_bench_cleanup puts it back
bpf_stats_on() {
	STATS_WAS=$(cat /proc/sys/kernel/bpf_stats_enabled)
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
}

# bpf_bench_cleanup: the loop device, its tmpfs and WORK gone, bpf_stats as it was (the
# caller stops its own processes first)
bpf_bench_cleanup() {
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	mountpoint -q "$WORK/shm" && umount "$WORK/shm"
	rm -rf "$WORK"
	[ -n "${STATS_WAS:-}" ] && echo "$STATS_WAS" >/proc/sys/kernel/bpf_stats_enabled
	return 0
}

# loop_over_tmpfs MIB: a loop device (LOOP) over a file of MIB MiB of random bytes on a tmpfs
# mounted at $WORK/shm (the caller's cleanup detaches LOOP and unmounts it)
loop_over_tmpfs() {
	mkdir -p "$WORK/shm"
	mount -t tmpfs -o size=$(($1 + 76))M tmpfs "$WORK/shm"
	dd if=/dev/urandom of="$WORK/shm/img" bs=1M count="$1" status=none
	LOOP=$(losetup -f --show "$WORK/shm/img")
}

# bpf_progs PID: PID's tracing programs (the prog ids in its descriptors' fdinfo; bpftool's own
# pids column needs a bpftool built with it), "name run_time_ns run_cnt" each
bpf_progs() {
	local ids
	ids=$(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u)
	bpftool -j prog show | python3 -c '
import json, sys
ids = set(int(x) for x in sys.argv[1].split())
for p in json.load(sys.stdin):
    if p["id"] in ids and p.get("type") == "tracing":
        print(p["name"], p.get("run_time_ns", 0), p.get("run_cnt", 0))' "$ids"
}
