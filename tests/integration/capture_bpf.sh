#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The bpf backend against the blk tracer: one workload captured by the tracefs backend and by
# the bpf backend at the events and io levels, all three at once. Per IO the D2C agree within
# the time between the two tracers' probes on one tracepoint, the action counts and the idle
# gaps agree, and the bpf records carry the workload's blkio cgroup (manifest path too).
# Safety: SIGINT, SIGTERM and SIGKILL leave no program of the capture loaded; a kernel
# without BTF (IOTAPE_BTF pointed elsewhere) gets tracefs and one line saying why.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd fio
need_cmd bpftool
need_cmd python3
need_bpf

make_loop 256M
CG=""
if [ -d /sys/fs/cgroup/blkio ]; then
	CG=/sys/fs/cgroup/blkio/iotape-test-$$
elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	CG=/sys/fs/cgroup/iotape-test-$$
fi
cg_cleanup() { if [ -n "$CG" ] && [ -d "$CG" ]; then rmdir "$CG" 2>/dev/null || true; fi; }
cleanup_hooks=(cg_cleanup "${cleanup_hooks[@]}")
[ -n "$CG" ] && mkdir "$CG"

# bpf_ids PID: "prog N" and "link N" for the BPF programs and links process PID holds (from
# its descriptors' fdinfo: Debian's bpftool cannot name the holders)
bpf_ids() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*/prog /p; s/^link_id:[[:space:]]*/link /p' | sort -u
}
# gone IDS: none of these programs and links exists any more (freed after an RCU grace
# period): nothing of the capture stays attached
gone() {
	local i kind id left
	for i in $(seq 50); do
		left=""
		while read -r kind id; do
			[ -n "$kind" ] && bpftool "$kind" show id "$id" >/dev/null 2>&1 && left="$left $kind $id"
		done <<<"$1"
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "still there after the capture ended:$left"
}

# --- the same IO through the blk tracer and the bpf programs, at once -----------------------
wait_tracer_free
"$IOTAPE" capture -o "$TMP/tr" -d "$LOOP" --backend tracefs -- sleep 600 2>"$TMP/tr.err" &
TR=$!
wait_tracing_on "$TR"
# attached in this order, each capture's probe runs right after the one before it: the
# events capture's right after the tracer's (the D2C of two tracers differ by the run time
# of the probes between them, at the D and at the C)
"$IOTAPE" capture -o "$TMP/ev" -d "$LOOP" --backend bpf -- sleep 600 2>"$TMP/ev.err" &
EVC=$!
wait_bpf "$EVC"
"$IOTAPE" capture -o "$TMP/io" -d "$LOOP" --backend bpf --detail io -- sleep 600 2>"$TMP/io.err" &
IOC=$!
wait_bpf "$IOC"
# the summary level twice: alone, and with the io level's records of the same IOs (the same
# clock reads: analyze of those must give the summary's figures exactly)
"$IOTAPE" capture -o "$TMP/sp" -d "$LOOP" --detail summary -- sleep 600 2>"$TMP/sp.err" &
SPC=$!
wait_bpf "$SPC"
IOTAPE_BPF_SUMMARY_WITH_IO=1 "$IOTAPE" capture -o "$TMP/sm" -d "$LOOP" --detail summary -- sleep 600 2>"$TMP/sm.err" &
SMC=$!
wait_bpf "$SMC"
# the workload, in a blkio cgroup of its own: random reads of distinct blocks (fio's random
# map), in bursts with 40 ms pauses (idle gaps), then writes
sh -c '
	[ -n "$1" ] && echo $$ >"$1/cgroup.procs"
	fio --name=r --filename="$2" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=4 --size=128M --io_size=16M --thinktime=40000 --thinktime_blocks=128 \
		--output=/dev/null &&
	dd if=/dev/zero of="$2" bs=64k count=64 seek=3000 oflag=direct status=none' sh "$CG" "$LOOP" ||
	fail "the workload failed"
IO_IDS=$(bpf_ids "$IOC")
kill -INT "$EVC" "$IOC" "$TR" "$SPC" "$SMC"
for p in "$EVC" "$IOC" "$TR" "$SPC" "$SMC"; do wait "$p" || true; done
tracing_is_off
gone "$IO_IDS"
for r in tr io ev sp sm; do
	expect_eq "$r state" "$(json '["state"]' "$TMP/$r/manifest.json")" "interrupted"
	expect_eq "$r lost" "$(json '["counts"]["lost"]' "$TMP/$r/manifest.json")" "0"
done
expect_eq "ev backend" "$(json '["backend"]["name"]' "$TMP/ev/manifest.json")" "bpf"
expect_eq "io detail" "$(json '["detail"]["level"]' "$TMP/io/manifest.json")" "io"
expect_eq "summary detail" "$(json '["detail"]["level"]' "$TMP/sp/manifest.json")" "summary"
# events and io: the records were encoded by the idle-priority thread, and all of them before
# the capture ended (the per-IO checks below hold its files to the tracer's)
for r in ev io; do
	expect_eq "$r encoder" "$(json '["backend"]["encoder"]["thread"]' "$TMP/$r/manifest.json")" "idle"
	expect_eq "$r reader stalls" "$(json '["backend"]["encoder"]["reader_stalls"]' "$TMP/$r/manifest.json")" "0"
done
expect_eq "summary encoder" "$(json '["backend"]["encoder"]["thread"]' "$TMP/sp/manifest.json")" "reader"
[ ! -e "$TMP/sp/$LOOPNAME.blktrace.0" ] || fail "a summary run has trace files"
# the summary as analyze reads it, beside analyze of the records of the same IOs
mkdir "$TMP/smsum"
cp "$TMP/sm/summary.json" "$TMP/sm/manifest.json" "$TMP/smsum/"
"$IOTAPE" analyze --json --top 1000 "$TMP/smsum" >"$TMP/smsum.json" || fail "analyze of a summary run"
"$IOTAPE" analyze --json --top 1000 "$TMP/sm" >"$TMP/smrec.json" || fail "analyze of the summary's records"
"$IOTAPE" analyze --json --top 1000 "$TMP/sp" >"$TMP/sp.json" || fail "analyze of the summary run"
"$IOTAPE" analyze --json --top 1000 "$TMP/tr" >"$TMP/trana.json" || fail "analyze of the tracefs run"
"$IOTAPE" analyze "$TMP/sp" >"$TMP/sp.txt" || fail "analyze (text) of the summary run"
grep -q "captured at --detail summary: not given:" "$TMP/sp.txt" || fail "the text does not say what a summary lacks"
python3 - "$TMP" <<'EOF2' || fail "the summary disagrees with analyze (above)"
import json, sys
tmp = sys.argv[1]
load = lambda n: json.load(open(f"{tmp}/{n}.json"))["devices"][0]
sm, rec, sp, tr = load("smsum"), load("smrec"), load("sp"), load("trana")
bad = []
def eq(what, a, b):
    if a != b:
        bad.append(f"{what}: {a} != {b}")
keys = ("count", "sum", "min", "max", "p50", "p90", "p99")
# the same clock reads: the kernel's histogram, seeks, gaps and bins are analyze's exactly
for k in keys:
    eq(f"d2c {k} (summary vs analyze of its records)", sm["latency_ns"]["d2c"][k],
       rec["latency_ns"]["d2c"][k])
for k in ("count", "seekwatcher", "transitions", "sequential", "forward", "backward"):
    eq(f"seeks {k}", sm["seeks"][k], rec["seeks"][k])
for k in ("reads", "writes"):
    eq(k, sm[k], rec[k])
mid = lambda d: sorted((g["start_ns"], g["end_ns"]) for g in d["idle"]["longest"]
                       if not g["at_start"] and g["ended_by"] == "issue")
eq("idle gaps ended by an issue", mid(sm), mid(rec))
binsof = lambda d: {b["start_ns"]: (b["ios"], b["write_ios"], b["read_bytes"], b["write_bytes"],
                                    b["seeks"]) for b in d["timeline"] if b["ios"] or b["seeks"]}
eq("timeline bins", binsof(sm), binsof(rec))
# a summary capture of its own (its own probes): the same IOs, seeks and gaps as the tracer's
eq("summary alone: d2c count", sp["latency_ns"]["d2c"]["count"], tr["latency_ns"]["d2c"]["count"])
for k in ("reads", "writes"):
    eq(f"summary alone: {k}", sp[k], tr[k])
eq("summary alone: seeks", sp["seeks"]["count"], tr["seeks"]["count"])
eq("summary alone: idle gaps", len(mid(sp)), len(mid(tr)))
p50 = (sp["latency_ns"]["d2c"]["p50"], tr["latency_ns"]["d2c"]["p50"])
if abs(p50[0] - p50[1]) > 0.1 * p50[1] + 2000:
    bad.append(f"summary alone: d2c p50 {p50[0]} vs the tracer's {p50[1]}")
print("summary vs analyze:", "agree" if not bad else "disagree",
      f"(d2c p50 {sm['latency_ns']['d2c']['p50']} ns, {len(mid(sm))} gaps, "
      f"{len(binsof(sm))} bins)")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF2

python3 - "$TMP" "$LOOPNAME" "$CG" <<'EOF' || fail "the captures disagree (above)"
import glob, json, os, struct, sys, statistics
tmp, dev, cg = sys.argv[1], sys.argv[2], sys.argv[3]

def records(run):
    """(time, action, flags, sector, bytes, cgroup) of every record of the device's set"""
    out = []
    for f in glob.glob(f"{run}/{dev}.blktrace.*"):
        b = open(f, "rb").read()
        i = 0
        while i + 48 <= len(b):
            magic, seq, t, sector, nbytes, action, pid, d, cpu, err, pl = struct.unpack_from(
                "<IIQQIIIIIHH", b, i)
            assert magic == 0x65617407, (f, i, hex(magic))
            pdu = b[i + 48:i + 48 + pl]
            i += 48 + pl
            cats = action >> 16
            if cats & 0x400:  # notify
                continue
            code = action & 0xff
            cgid = struct.unpack("<Q", pdu)[0] if pl == 8 and code in (1, 2, 3, 4, 5, 6, 7, 8, 12) \
                and not cats & 0x200 else 0
            out.append((t, code, cats, sector, nbytes, cgid))
    out.sort()
    return out

tr, ev, io = (records(f"{tmp}/{r}") for r in ("tr", "ev", "io"))
bad = []

# every action the blk tracer wrote, the bpf events capture wrote as often
def counts(rs):
    c = {}
    for r in rs:
        c[r[1]] = c.get(r[1], 0) + 1
    return c
ctr, cev = counts(tr), counts(ev)
if ctr != cev:
    bad.append(f"action counts: tracefs {ctr}, bpf {cev}")
print("actions (code: count):", ctr)

# per IO: D2C, the request found by (sector, bytes, direction) of its D and its C
def d2c(rs):
    pending, out = {}, {}
    for t, code, cats, sector, nbytes, _ in rs:
        key = (sector, nbytes, cats & 3)
        if code == 7:
            pending[key] = t
        elif code == 8 and key in pending:
            out.setdefault(key, []).append(t - pending.pop(key))
    return out
dtr, dev_, dio = d2c(tr), d2c(ev), d2c(io)
for name, other in (("events", dev_), ("io", dio)):
    if set(other) != set(dtr):
        bad.append(f"{name}: {len(set(dtr) ^ set(other))} IOs not in both captures")
        continue
    diffs = [abs(a - b) for k in dtr for a, b in zip(dtr[k], other[k])]
    med, worst = statistics.median(diffs), max(diffs)
    within = sum(d <= 2000 for d in diffs) / len(diffs)
    print(f"D2C tracefs vs bpf {name}: {len(diffs)} IOs, |difference| median {med} ns, "
          f"max {worst} ns, {within * 100:.1f} % within 2 us")
    # the two probes of one tracepoint run one after the other: their clock reads differ by
    # the other probe's run time (well under 2 us), unless an interrupt falls between them or
    # the hypervisor takes the vCPU away (CI saw one IO in 4160 differ by 324 us): a few such
    # IOs are the machine, many are a capture that pairs or times requests wrongly
    far = sum(d > 200000 for d in diffs)
    if med > 1000 or within < 0.95 or far > max(1, len(diffs) // 1000):
        bad.append(f"{name}: D2C differs: median {med} ns, max {worst} ns, {within:.3f} "
                   f"within 2 us, {far} IOs beyond 200 us")

# the io level: one Q, D and C per IO, the D and C the events level saw
cio = counts(io)
if cio.get(7) != ctr.get(7) or cio.get(8) != ctr.get(8) or cio.get(1) != ctr.get(7):
    bad.append(f"io counts {cio} vs tracefs D {ctr.get(7)} C {ctr.get(8)}")

# the cgroup: the reads and writes of the workload carry its cgroup's id
if cg:
    want = os.stat(cg).st_ino
    ids = {r[5] for r in ev if r[1] in (7, 8)}
    if want not in ids:
        bad.append(f"cgroup {want} ({cg}) not in the events' ids {ids}")
    m = json.load(open(f"{tmp}/ev/manifest.json"))
    paths = {c["id"]: c["path"] for c in m.get("cgroups", [])}
    if not paths.get(want, "").endswith(os.path.basename(cg)):
        bad.append(f"manifest cgroups: {m.get('cgroups')} lacks {cg}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF

# analyze agrees on the idle gaps and the IO counts of the three runs
idle() { "$IOTAPE" analyze --json "$1" | python3 -c 'import json,sys
d = json.load(sys.stdin)["devices"][0]
print(d["idle"]["gaps"], d["reads"]["ios"], d["writes"]["ios"])'; }
itr=$(idle "$TMP/tr")
expect_eq "bpf events: idle gaps, reads, writes" "$(idle "$TMP/ev")" "$itr"
expect_eq "bpf io: idle gaps, reads, writes" "$(idle "$TMP/io")" "$itr"
[ "$(echo "$itr" | cut -d' ' -f1)" -ge 20 ] || fail "too few idle gaps to compare: $itr"
# --by cgroup: the workload's IO is its cgroup's, named by its path; plug and unplug belong
# to no IO
if [ -n "$CG" ]; then
	"$IOTAPE" analyze --json --by cgroup "$TMP/ev" >"$TMP/bycg.json" || fail "analyze --by cgroup"
	python3 - "$TMP/bycg.json" "$(basename "$CG")" "$(stat -c %i "$CG")" <<'EOF2' || fail "--by cgroup (above)"
import json, sys
d = json.load(open(sys.argv[1]))
name, cgid = sys.argv[2], int(sys.argv[3])
groups = {g["id"]: g for g in d["cgroups"]}
g = groups.get(cgid)
assert g, f"no group for cgroup {cgid}: {list(groups)}"
assert g["path"] and g["path"].endswith("/" + name), g["path"]
dev = g["devices"][0]
whole = d["devices"][0]
print("cgroup", g["path"], "reads", dev["reads"]["ios"], "writes", dev["writes"]["ios"],
      "of", whole["reads"]["ios"], whole["writes"]["ios"])
assert dev["reads"]["ios"] == 4096 and dev["writes"]["ios"] == 64, dev["reads"]
assert dev["latency_ns"]["d2c"]["count"] == 4160
# every IO is some cgroup's: the groups' IOs add up to the device's
assert sum(x["devices"][0]["reads"]["ios"] for x in d["cgroups"] if x["devices"]) == whole["reads"]["ios"]
assert 0 in groups and not groups[0]["devices"][0]["reads"]["ios"], "plug/unplug group"
EOF2
	"$IOTAPE" analyze --by cgroup "$TMP/ev" >"$TMP/bycg.txt" || fail "analyze --by cgroup (text)"
	grep -q "^cgroup .*$(basename "$CG") (id " "$TMP/bycg.txt" || fail "the text names no cgroup"
fi
# blkparse and btt read the bpf files (the cgroup PDU does not stop them)
blkparse -i "$TMP/ev/$LOOPNAME" -d "$TMP/ev.dump" >"$TMP/ev.txt" 2>&1 || fail "blkparse failed"
! grep -q "Bad fs action" "$TMP/ev.txt" || fail "blkparse: $(grep -m1 "Bad fs" "$TMP/ev.txt")"
btt -i "$TMP/ev.dump" >"$TMP/btt.txt" 2>&1 || fail "btt failed"
grep -q "^D2C" "$TMP/btt.txt" || fail "btt gives no D2C: $(head -20 "$TMP/btt.txt")"

# --- every exit path leaves nothing loaded ---------------------------------------------------
for sig in INT TERM KILL; do
	"$IOTAPE" capture -o "$TMP/sig-$sig" -d "$LOOP" --backend bpf -- sleep 600 2>/dev/null &
	P=$!
	wait_bpf "$P"
	IDS=$(bpf_ids "$P")
	kill -"$sig" "$P"
	wait "$P" || true
	[ -n "$IDS" ] || fail "no BPF programs found for the capture"
	gone "$IDS"
	[ "$sig" = KILL ] ||
		expect_eq "SIG$sig state" "$(json '["state"]' "$TMP/sig-$sig/manifest.json")" "interrupted"
done
# a SIGKILLed bpf capture leaves the tracer as it was: nothing to restore
capture -o "$TMP/after-kill" -d "$LOOP" --backend bpf -- true 2>"$TMP/err" || fail "after SIGKILL: $(cat "$TMP/err")"
! grep -q "restored" "$TMP/err" || fail "a bpf capture left something to restore"

# --- no BTF: tracefs, and one line that says why --------------------------------------------
rc=0
IOTAPE_BTF=/nonexistent/vmlinux capture -o "$TMP/nobtf" -d "$LOOP" -- true 2>"$TMP/err" || rc=$?
expect_eq "no BTF: exit status" "$rc" 0
expect_eq "no BTF: backend" "$(json '["backend"]["name"]' "$TMP/nobtf/manifest.json")" "tracefs"
grep -q "bpf backend unavailable (bpf: the kernel has no BTF ('/nonexistent/vmlinux'" "$TMP/err" ||
	fail "no BTF: $(cat "$TMP/err")"
expect_eq "no BTF: lines said" "$(grep -c "unavailable" "$TMP/err")" 1
# asked for by name, it is an error (system: exit 3), and a level below events needs it
rc=0
IOTAPE_BTF=/nonexistent/vmlinux "$IOTAPE" capture -o "$TMP/nobtf2" -d "$LOOP" --backend bpf -- true 2>"$TMP/err" || rc=$?
expect_eq "--backend bpf without BTF: exit status" "$rc" 3
rc=0
"$IOTAPE" capture -o "$TMP/tio" -d "$LOOP" --backend tracefs --detail io -- true 2>"$TMP/err" || rc=$?
expect_eq "--detail io with tracefs: exit status" "$rc" 2
grep -q "needs the bpf backend" "$TMP/err" || fail "--detail io with tracefs: $(cat "$TMP/err")"
tracing_is_off
echo "capture_bpf: ok"
