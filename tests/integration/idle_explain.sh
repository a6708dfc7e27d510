# SPDX-License-Identifier: MIT
# Why was the disk idle: each gap explained, against synthetic runs with a known answer
# (idle_gen.py): two devices busy exactly in each other's gaps; a capture whose flows and NFS
# calls fall in known gaps; periodic and random gaps (no false period); two hosts whose trace
# clocks are 7.5 s apart, on one clock through their manifests.
source "$SRCDIR/tests/integration/lib.bash"
cd "$TMP"
GEN="python3 $SRCDIR/tests/integration/idle_gen.py"

check() { # check FILE PYTHON: assertions on the JSON document d
	python3 - "$1" "$2" <<'EOF' || fail "$2"
import json, sys
d = json.load(open(sys.argv[1]))
dev = {x['dev']: x for x in d['devices']}
def gap(name, k): return dev[name]['idle']['longest'][k]
exec(sys.argv[2])
EOF
}

# --- two devices, each busy exactly in the other's gaps -------------------------------------
$GEN pair pair
"$IOTAPE" analyze --json pair >pair.json
check pair.json "
g = gap('8,0', 0)
assert (g['start_ns'], g['end_ns']) == (999000000, 2000000000), g
o = g['explain']['devices'][0]
assert o['dev'] == '8,16' and o['busy_ns'] == 900000000 and o['ios'] == 100, o
assert o['bytes'] == 409600 and o['inflight_start'] == 0 and o['inflight_end'] == 0, o
assert g['explain']['cause'] == 'other_device_busy', g['explain']
assert g['io_before']['action'] == 'complete' and g['io_before']['pid'] == 1000, g
assert g['io_before']['rwbs'] == 'R' and g['io_before']['bytes'] == 4096, g
assert g['io_after']['action'] == 'issue' and g['io_after']['sector'] == 4096, g
t = gap('8,0', 1)
assert t['ended_by'] == 'end' and t['io_after'] is None, t
assert t['explain']['devices'][0]['busy_ns'] == 900000000, t
tot = dev['8,0']['idle']['explain']
assert tot['gaps_ns'] == 2001000000 and tot['devices'][0]['busy_ns'] == 1800000000, tot
assert tot['devices'][0]['ios'] == 200 and tot['devices'][0]['gaps_busy'] == 2, tot
assert tot['causes']['other_device_busy'] == 2, tot
b = gap('8,16', 1)
assert b['at_start'] and b['io_before'] is None, b
assert b['explain']['devices'][0]['busy_ns'] == 900000000, b
"
"$IOTAPE" analyze pair >pair.txt
grep -q "while idle: 8,16 busy 1.800 s of the gaps' 2.001 s (90.0%), 200 IOs" pair.txt ||
	fail "text: the other device's totals"
grep -q "8,16 had IO in flight for 900.000 ms of the gap's 1.001 s (90%): 100 IOs" pair.txt ||
	fail "text: the gap's cause and its numbers"

# --- a capture: flows, NFS calls and a held request in known gaps ----------------------------
$GEN net net
"$IOTAPE" analyze --json net >net.json
check net.json "
g = [gap('8,0', k) for k in range(4)]
g.sort(key=lambda x: x['start_ns'])
n = g[0]['explain']['network'][0]
assert (n['packets'], n['bytes']) == (34, 25400), n
assert (n['packets_in'], n['bytes_in']) == (24, 20400), n
assert (n['packets_out'], n['bytes_out']) == (10, 5000), n
f = n['flows'][0]
assert (f['src'], f['sport'], f['dst'], f['dport']) == ('10.0.0.2', 6800, '10.0.0.1', 40000), f
assert (f['proto'], f['packets'], f['bytes'], f['direction']) == ('tcp', 20, 20000, 'in'), f
assert [x['proto'] for x in n['flows']] == ['tcp', 'tcp', 'udp'], n['flows']
assert g[0]['explain']['cause'] == 'network_traffic', g[0]['explain']
s = g[1]['explain']['nfs'][0]
assert (s['busy_ns'], s['outstanding_max'], s['arrivals']) == (1700000000, 2, 3), s
assert abs(s['outstanding_mean'] - 1.9e9 / 1.901e9) < 1e-9, s
assert g[1]['explain']['cause'] == 'nfs_calls_outstanding', g[1]['explain']
assert g[2]['explain']['cause'] == 'held_in_queue' and g[2]['queued_ns'] == 1500000000, g[2]
assert g[3]['explain']['cause'] == 'no_work_offered', g[3]['explain']
tot = dev['8,0']['idle']['explain']
assert tot['network'][0]['local_addresses'] == ['10.0.0.1'], tot['network']
assert tot['network'][0]['local_from'] == 'manifest', tot['network']
assert tot['network'][0]['packets'] == 40, tot['network']  # 5 packets fell in a burst
assert tot['nfs'][0]['idle_with_work_ns'] == 1700000000, tot['nfs']
"

# --- periodic gaps are found, random ones are not -----------------------------------------------
for seed in 1 2 3; do
	$GEN periodic per$seed $seed
	"$IOTAPE" analyze --json per$seed >per$seed.json
	check per$seed.json "
p = dev['8,0']['idle']['explain']['periodicity']
assert p and abs(p['period_ns'] - 5e9) < 2e6 and p['jitter_ns'] < 2e6 and p['count'] == 10, p
assert all(x['explain']['periodic'] for x in dev['8,0']['idle']['longest']), 'members'
"
done
for seed in $(seq 1 12); do
	$GEN random rnd$seed $seed
	"$IOTAPE" analyze --json rnd$seed >rnd$seed.json
	check rnd$seed.json "
assert dev['8,0']['idle']['gaps'] > 20
assert dev['8,0']['idle']['explain']['periodicity'] is None, 'a false period'
"
done
# --- two hosts, trace clocks 7.5 s apart, one clock through their manifests -------------------
$GEN hostA hostA
$GEN hostB hostB
"$IOTAPE" analyze --json --hosts hostA hostB >hosts.json
check hosts.json "
h = {x['host']: x for x in d['hosts']}
assert h['hostA']['offset_ns'] == 0 and h['hostB']['offset_ns'] == -7500000000, d['hosts']
assert d['alignment_error_ns'] == 500, d['alignment_error_ns']
a = [x for x in d['devices'] if x['host'] == 'hostA'][0]
b = [x for x in d['devices'] if x['host'] == 'hostB'][0]
assert a['dev'] == b['dev'] == '8,0'
g = a['idle']['longest'][0]
assert (g['start_ns'], g['end_ns']) == (999000000, 2000000000), g
o = g['explain']['devices'][0]
assert (o['dev'], o['host'], o['busy_ns'], o['ios']) == ('8,0', 'hostB', 900000000, 100), o
assert g['explain']['cause'] == 'other_device_busy'
g = b['idle']['longest'][0]
assert (g['start_ns'], g['end_ns']) == (9499000000, 10500000000), g
o = g['explain']['devices'][0]
assert (o['host'], o['busy_ns'], o['ios']) == ('hostA', 900000000, 100), o
"
"$IOTAPE" analyze --hosts hostA hostB >hosts.txt
grep -q "8,0 on hostB had IO in flight for 900.000 ms of the gap's 1.001 s" hosts.txt ||
	fail "hosts: text"
grep -q "alignment error at most 500 ns" hosts.txt || fail "hosts: the alignment error"
# a host without clock pairs cannot be placed
python3 - hostB/manifest.json <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
del m['clock']
json.dump(m, open(sys.argv[1], 'w'))
EOF
set +e
"$IOTAPE" analyze --hosts hostA hostB >/dev/null 2>err.txt
rc=$?
set -e
expect_eq "hosts without clock pairs: exit status" "$rc" 2
grep -q "no clock pairs" err.txt || fail "hosts without clock pairs: the message"
echo "idle_explain: ok"
