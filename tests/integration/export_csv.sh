# SPDX-License-Identifier: MIT
# iotape export --format csv against blkparse's own fields: every event row's device, CPU,
# sequence, time, pid, action, RWBS, sector, bytes and error equal what `blkparse -f` prints for
# the same record, on generated traces with every kind of record (several CPUs and devices,
# remaps, splits, PDUs, errors, requeues, sequence gaps, a late start, v8, other byte order,
# gzip) and random ones; the process column is the name blkparse gives or none yet; a dump and
# standard input give the set's rows, one per-CPU file its CPU's.
source "$SRCDIR/tests/integration/lib.bash"
need_cmd blkparse
[ -x "$TOOLS/blkgen" ] || skip "blkgen not built"
blkgen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/blkgen" "$@"; }
cd "$TMP"

# the CSV's columns as blkparse prints them for one event, one line each
fmt='%M:%m,%c,%s,%T.%9t,%p,%a,%d,%S,%N,%e,%C\n'

# check WHAT DIR: the CSV of DIR/trace against blkparse's fields for it
check() {
	blkparse -i "$2/trace" -f "$fmt" -o bp.txt >/dev/null 2>&1 || fail "$1: blkparse"
	"$IOTAPE" export "$2/trace" -f csv -o io.csv || fail "$1: export"
	python3 - bp.txt io.csv "$1" <<'EOF' || fail "$1: the CSV differs from blkparse's fields"
import csv, re, sys
from collections import Counter
act = {"Q": "queue", "M": "backmerge", "F": "frontmerge", "G": "getrq", "S": "sleeprq",
       "R": "requeue", "D": "issue", "C": "complete", "P": "plug", "U": "unplug",
       "UT": "unplug_timer", "I": "insert", "X": "split", "B": "bounce", "A": "remap"}
bp = {}  # the ten fields -> the process names blkparse gave
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split(",", 10)
    if len(f) != 11 or not re.fullmatch(r"\d+:\d+", f[0]) or f[5] not in act:
        continue  # the summaries, messages
    s, ns = f[3].split(".")
    key = (f[0], f[1], f[2], str(int(s) * 10**9 + int(ns)), f[4], act[f[5]]) + tuple(f[6:10])
    bp.setdefault(key, []).append("" if f[10] == "(null)" else f[10])
rows = list(csv.reader(open(sys.argv[2])))
assert rows[0] == ["time_ns", "device", "cpu", "sequence", "pid", "action", "rwbs", "sector",
                   "bytes", "error", "process"], rows[0]
io = Counter()
named = 0
for r in rows[1:]:
    if r[5] == "drv_data":  # blkparse prints nothing for them
        continue
    key = (r[1], r[2], r[3], r[0], r[4], r[5]) + tuple(r[6:10])
    io[key] += 1
    names = bp.get(key, [])
    # blkparse learns a name when the note's batch is read (earlier), and keeps 15 bytes
    if r[10]:
        assert r[10][:15] in names, (key, r[10], names)
        named += 1
want = Counter({k: len(v) for k, v in bp.items()})
assert io == want, ("only blkparse", list((want - io).elements())[:5],
                    "only csv", list((io - want).elements())[:5])
assert named > 0, "no process names"
kinds = {k[5] for k in io}
print(sys.argv[3], "rows:", sum(io.values()), "named:", named, "actions:", len(kinds))
EOF
}

mkdir g
blkgen -o g --ios 3000 --seed 3 --cpus 3 --devices 2 --extras --drop-pct 1 \
	--start-ns 5000000000 >/dev/null
check "extras, 3 CPUs, 2 devices, gaps" g
# every action blkgen --extras writes is in that trace
expect_eq "actions" "$(tail -n +2 io.csv | cut -d, -f6 | sort -u | wc -l)" 16
awk -F, 'NR > 1 && $10 != 0 { n++ } END { exit !n }' io.csv || fail "no errors in the rows"

# the same rows from v8, the other byte order and gzip, and from one file, a dump, stdin
for v in --v8 --swap --gzip; do
	mkdir "g$v"
	blkgen -o "g$v" --ios 3000 --seed 3 --cpus 3 --devices 2 --extras --drop-pct 1 \
		--start-ns 5000000000 "$v" >/dev/null
	"$IOTAPE" export "g$v/trace" -f csv -o v.csv || fail "$v: export"
	cmp -s io.csv v.csv || fail "$v: other rows than the plain v7 set"
done
"$IOTAPE" export g/trace.blktrace.1 -f csv -o one.csv || fail "a file of the set"
# one per-CPU file is read alone, as analyze reads it: that CPU's rows
expect_eq "rows of CPU 1" "$(tail -n +2 one.csv | cut -d, -f3 | sort -u)" 1
expect_eq "rows of one file" "$(($(wc -l <one.csv) - 1))" "$(awk -F, '$3 == 1' io.csv | wc -l)"
blkparse -i g/trace -d g.dump -o /dev/null >/dev/null 2>&1 || fail "blkparse -d"
"$IOTAPE" export g.dump -f csv -o dump.csv || fail "a dump"
"$IOTAPE" export - -f csv <g.dump >stdin.csv || fail "stdin"
cmp -s dump.csv stdin.csv || fail "stdin: other rows than the dump file"
# a dump holds what blkparse kept in its order (its notes earlier): the same events
cmp -s <(cut -d, -f1-10 io.csv | sort) <(cut -d, -f1-10 dump.csv | sort) ||
	fail "the dump: other rows than the set"

# random traces
for seed in 11 12 13 14 15 16; do
	mkdir "r$seed"
	blkgen -o "r$seed" --ios $((200 + seed * 37)) --seed "$seed" --cpus $((seed % 4 + 1)) \
		--devices $((seed % 3 + 1)) --merge-pct $((seed * 3)) --read-pct $((seed * 5)) \
		--extras >/dev/null
	check "random seed $seed" "r$seed"
done
echo "export_csv: ok"
