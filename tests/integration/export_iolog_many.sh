#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# export --format fio-iolog of a trace of many devices (issue #25 item 8: a log open, with a
# 256 KiB buffer, per device: "Too many open files" after 1 018 of 2 000 files, what fio's
# write_iolog gives for nrfiles=2000, partial output and no job file; out of memory at 10^6):
# a bounded number of logs open at once, each log whole and in order, the job file written;
# many devices in bounded memory.
source "$SRCDIR/tests/integration/lib.bash"
need_cmd python3
cd "$TMP"

# gen N ROUNDS: a v3 iolog of N files, as fio's write_iolog interleaves them: every file added
# and opened, then ROUNDS reads of each in turn, then every file closed
gen() {
	python3 - "$1" "$2" <<'PY'
import sys
n, rounds = int(sys.argv[1]), int(sys.argv[2])
out = ["fio version 3 iolog"]
t = 1
for f in range(n):
    out.append("%d /dev/f%d add" % (t, f))
for f in range(n):
    out.append("%d /dev/f%d open" % (t, f))
for r in range(rounds):
    for f in range(n):
        t += 1
        out.append("%d /dev/f%d read %d 4096" % (t, f, (r * n + f) * 4096))
for f in range(n):
    out.append("%d /dev/f%d close" % (t, f))
sys.stdout.write("\n".join(out) + "\n")
PY
}

gen 2000 3 >many.iolog
# a descriptor limit well under the number of devices
(ulimit -n 64 && "$IOTAPE" export --format fio-iolog many.iolog -o out >export.txt 2>err) ||
	{ cat err >&2; fail "export of 2000 devices under ulimit -n 64"; }
expect_eq "iologs" "$(find out -name '*.iolog' | wc -l)" 2000
expect_eq "jobs" "$(grep -c '^read_iolog=' out/replay.fio)" 2000
python3 - out <<'PY' || fail "the logs"
import os, sys
d = sys.argv[1]
for f in range(2000):
    name = "dev0_%d" % (f + 1)
    lines = open(os.path.join(d, name + ".iolog")).read().split("\n")
    assert lines[0] == "fio version 3 iolog", lines[:2]
    body = [l.split() for l in lines[1:] if l]
    assert [b[2] for b in body] == ["add", "open", "read", "read", "read", "close"], body
    offs = [int(b[3]) for b in body if b[2] == "read"]
    assert offs == [(r * 2000 + f) * 4096 for r in range(3)], (name, offs)
    times = [int(b[0]) for b in body]
    assert times == sorted(times), (name, times)
PY

# many devices, one IO each: memory per device, not a buffer per device (10^5 here, 25 GB of
# buffers before; 10^6 takes minutes of file creation on a loaded machine: set
# IOTAPE_MANY_DEVICES=1000000 to run it, 581 MiB peak when measured)
n=${IOTAPE_MANY_DEVICES:-100000}
gen "$n" 1 >huge.iolog
/usr/bin/time -f %M -o time "$IOTAPE" export --format fio-iolog huge.iolog -o big \
	>/dev/null 2>err || { cat err >&2; fail "export of $n devices"; }
kib=$(tail -1 time)
echo "$n devices: peak RSS $kib KiB"
if ! ldd "$IOTAPE" | grep -q libasan; then
	# about 0.6 KiB a device (its result and the reader's and depth sink's state)
	[ "$kib" -lt $((32 * 1024 + n)) ] || fail "$n devices took $kib KiB"
fi
expect_eq "jobs" "$(grep -c '^read_iolog=' big/replay.fio)" "$n"
expect_eq "iologs" "$(find big -name '*.iolog' | wc -l)" "$n"
k=$((n * 7 / 9))
expect_eq "a log" "$(cat "big/dev0_$k.iolog")" "fio version 3 iolog
1 /dev/dev0_$k add
1 /dev/dev0_$k open
$k /dev/dev0_$k read $(((k - 1) * 4096)) 4096
$k /dev/dev0_$k close"
echo "PASS"
