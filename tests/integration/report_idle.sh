# SPDX-License-Identifier: MIT
# Why was the disk idle, in the report and in compare: the report's gap table under each device
# gives analyze's gaps and causes in analyze's order, with the chart of the other devices' and
# the network's throughput beneath the offset graph (the network series holds every payload
# byte of the capture); compare's idle_other_busy and idle_nfs_work are analyze's figures.
# Synthetic runs with known answers (idle_gen.py). "four" numbers its devices in the reverse
# of the order they first appear in: every device still gets its table (matched by identity,
# never by position), with its role in the heading.
source "$SRCDIR/tests/integration/lib.bash"
cd "$TMP"
GEN="python3 $SRCDIR/tests/integration/idle_gen.py"
$GEN pair pair
$GEN net net
$GEN four four

for run in pair net four; do
	"$IOTAPE" analyze --json "$run" >"$run.json" || fail "$run: analyze"
	"$IOTAPE" report -o "$run.html" --svg "svg-$run" "$run" || fail "$run: report"
	python3 - "$run.json" "$run.html" "svg-$run" "$run" <<'EOF' || fail "$run: the report's gaps"
import glob, html, json, re, sys
d = json.load(open(sys.argv[1]))
page = open(sys.argv[2]).read()
run = sys.argv[4]
tables = re.findall(r'<h2>Device (\d+,\d+).*?(?=<h2>|</body>)', page, re.S)
sections = dict(zip(tables, re.split(r'<h2>Device \d+,\d+', page)[1:]))
assert set(sections) == {x['dev'] for x in d['devices']}, sections.keys()
for dev in d['devices']:
    sec = sections[dev['dev']]
    rows = re.findall(r'<table class="idle-gaps">(.*?)</table>', sec, re.S)
    assert len(rows) == 1, (dev['dev'], len(rows))
    cells = [c for c in re.findall(r'<tr>(.*?)</tr>', rows[0], re.S) if '<td' in c]
    longest = dev['idle']['longest']
    assert len(cells) == len(longest), (len(cells), len(longest))
    for tr, g in zip(cells, longest):
        td = [html.unescape(re.sub('<[^>]*>', '', c)) for c in re.findall(r'<td[^>]*>(.*?)</td>', tr, re.S)]
        assert abs(float(td[0]) - (g['start_ns'] - d['start_ns']) / 1e9) < 1e-6, (td, g)
        assert abs(float(td[1]) - g['duration_ns'] / 1e6) < 1e-3, (td, g)
        ex = g['explain']
        assert td[5] == ', '.join(ex['causes']), (td, g)
        assert td[6] == ''.join('%s: %s' % (r['cause'], r['because']) for r in ex['reasons']), (td, g)
        assert td[6].startswith('%s: %s' % (ex['cause'], ex['because'])), (td, g)
    # the chart beneath the offset graph: after it, before the throughput graph
    devid = 'dev' + dev['dev'].replace(',', '-')
    o, i, t = (sec.find('id="%s-%s"' % (devid, k)) for k in ('offset', 'idle', 'mbps'))
    assert 0 <= o < i < t, (dev['dev'], o, i, t)
    svg = open('%s/%s-idle.svg' % (sys.argv[3], devid)).read()
    others = [x['dev'] for x in d['devices'] if x['dev'] != dev['dev']]
    for x in others:
        assert re.search(re.escape(x) + r'\)? MiB/s', svg), (x, 'not in the chart')
    assert ('network MiB/s' in svg) == (run == 'net'), run
    if run == 'four':
        head = re.search(r'<h2>Device %s(.*?)</h2>' % dev['dev'], page).group(1)
        assert dev['role'] in head and dev['group'] in head, (dev['dev'], head)
        assert '%s (%s)' % (dev['role'], dev['dev']) not in svg, 'the chart names itself'
        for x in d['devices']:
            if x['dev'] != dev['dev']:
                assert x['role'] in svg, (x['role'], 'not in the chart')
EOF
done

# compare: the same figures as analyze's idle.explain
"$IOTAPE" compare --format json pair >pair-cmp.json || fail "compare pair"
"$IOTAPE" compare --format json net >net-cmp.json || fail "compare net"
python3 - pair.json pair-cmp.json net.json net-cmp.json <<'EOF' || fail "compare's idle metrics"
import json, sys
def metric(path, key):
    d = json.load(open(path))
    m = [m for m in d['metrics'] if m['key'] == key]
    return {r['group']: r['mean'] for r in m[0]['rows']} if m else {}
a = json.load(open(sys.argv[1]))
want = [max(o['busy_pct'] for o in x['idle']['explain']['devices']) for x in a['devices']]
got = metric(sys.argv[2], 'idle_other_busy')
close = lambda x, y: abs(x - y) < 1e-6
assert len(got) == 2 and all(map(close, sorted(got.values()), sorted(want))), (got, want)
assert close(want[0], 100 * 1.8 / 2.001), want  # busy 1.8 s of the gaps' 2.001 s
assert metric(sys.argv[2], 'idle_nfs_work') == {}, 'no capture, no figure'
n = json.load(open(sys.argv[3]))
want = n['devices'][0]['idle']['explain']['nfs'][0]['idle_with_work_pct']
got = list(metric(sys.argv[4], 'idle_nfs_work').values())
assert len(got) == 1 and close(got[0], want) and close(want, 100 * 1.7 / 8.304), (got, want)
assert metric(sys.argv[4], 'idle_other_busy') == {}, 'one device: no other'
EOF
echo "report_idle: ok"
