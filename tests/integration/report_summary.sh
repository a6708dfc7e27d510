#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A summary run (capture --detail summary: no records) read by report, compare and movie. The
# report draws what summary.json holds (timeline bins, the latency histogram, idle gaps, seek
# counts), and Chromium's DOM of it holds analyze's figures of the same run exactly, says that
# there are no per-IO points and no sector plot, and has no sector plot. compare takes the run
# for the metrics it holds, and names those a bio-based summary lacks as not given, not 0.
# movie says why it cannot draw one.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd fio
need_cmd python3
need_cmd chromium
need_bpf

make_loop 128M
# random reads in bursts with 60 ms pauses (idle gaps, seeks), over about two seconds
capture -o "$TMP/s" -d "$LOOP" --detail summary -- fio --name=r --filename="$LOOP" \
	--rw=randread --bs=4k --direct=1 --ioengine=psync --size=64M --io_size=3M \
	--thinktime=60000 --thinktime_blocks=32 --output=/dev/null || fail "the summary capture failed"
expect_eq "detail" "$(json '["detail"]["level"]' "$TMP/s/manifest.json")" "summary"
[ -s "$TMP/s/summary.json" ] || fail "no summary.json"
"$IOTAPE" analyze --json "$TMP/s" >"$TMP/a.json" || fail "analyze of the summary run"

# the report: rendered by Chromium, its DOM read back
"$IOTAPE" report -o "$TMP/r.html" "$TMP/s" 2>"$TMP/r.err" || fail "report of a summary run: $(cat "$TMP/r.err")"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$(mktemp -d "$TMP/chr.XXXXXX")" --dump-dom "file://$TMP/r.html" \
	>"$TMP/dom.html" 2>/dev/null || true
[ -s "$TMP/dom.html" ] || fail "chromium gave no DOM of the report"
python3 - "$TMP/dom.html" "$TMP/a.json" <<'EOF' || fail "the report of the summary run (above)"
import json, sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.el = [], []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = set(a.get("class", "").split())
        self.el.append((tag, a, cls, [s for s in self.stack]))
        if tag not in ("br", "img", "meta", "rect", "line", "path", "circle", "image"):
            self.stack.append((tag, cls))
    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

dom = open(sys.argv[1]).read()
p = P(); p.feed(dom)
d = json.load(open(sys.argv[2]))["devices"][0]
bad = []
def eq(what, a, b):
    if a != b:
        bad.append(f"{what}: report {a}, analyze {b}")
inside = lambda anc, c: any(c in s[1] for s in anc)
secs = [e for e in p.el if e[0] == "section" and "summary-run" in e[2]]
eq("summary sections", len(secs), 1)
eq("section device", secs[0][1].get("data-dev") if secs else None, d["dev"])
# what it cannot show is said, and not drawn
note = dom[dom.find('summary-missing'):]
note = note[:note.find('</p>')]
for words in ("no per-IO points", "no sector-offset plot"):
    if words not in note:
        bad.append(f"the note does not say '{words}'")
if any(e[1].get("id", "").endswith("-offset") for e in p.el):
    bad.append("a sector plot in a summary run's report")
ids = {e[1].get("id") for e in p.el if e[0] == "svg"}
for k in ("mbps", "iops", "seeks"):
    if not any(i and i.endswith("-" + k) for i in ids):
        bad.append(f"no {k} chart ({sorted(i for i in ids if i)})")
# the latency table: analyze's histogram figures exactly
lat = d["latency_ns"]["d2c"]
cells = {e[1]["data-key"]: float(e[1]["data-v"]) for e in p.el
         if e[0] == "td" and "data-v" in e[1] and inside(e[3], "sum-lat")}
for k in ("count", "min", "p50", "p90", "p99", "max"):
    eq(f"d2c {k}", cells.get(k), float(lat[k]))
rows = [int(e[1]["data-count"]) for e in p.el if e[0] == "tr" and "data-count" in e[1]]
eq("histogram rows' sum", sum(rows), lat["count"])
# the idle gaps: analyze's longest, in its order, on the run's time axis
t0 = json.load(open(sys.argv[2]))["start_ns"]
gaps = [(int(e[1]["data-start-ns"]), int(e[1]["data-duration-ns"])) for e in p.el
        if e[0] == "tr" and "data-duration-ns" in e[1]]
eq("gaps", gaps, [(g["start_ns"] - t0, g["duration_ns"]) for g in d["idle"]["longest"]])
if not gaps:
    bad.append("no idle gap in the workload's pauses")
bands = [e for e in p.el if e[0] == "rect" and "idle-gap" in e[2]]
eq("gap bands per chart", len(bands), 3 * len(gaps))
seeks = {}
for i, e in enumerate(p.el):
    if e[0] == "td" and "data-key" in e[1] and inside(e[3], "sum-seeks"):
        seeks[e[1]["data-key"]] = e
for k in ("count", "sequential", "forward", "backward"):
    if k not in seeks:
        bad.append(f"no seeks {k}")
if bad:
    sys.exit("\n".join(bad))
EOF
# the seek counts as text (the cell's content is the figure)
python3 - "$TMP/r.html" "$TMP/a.json" <<'EOF' || fail "the seek counts differ from analyze's"
import json, re, sys
h = open(sys.argv[1]).read()
s = json.load(open(sys.argv[2]))["devices"][0]["seeks"]
for k in ("count", "sequential", "forward", "backward"):
    m = re.search(r'<td class="n" data-key="%s">(\d+)</td>' % k, h[h.find("sum-seeks"):])
    if not m or int(m.group(1)) != s[k]:
        sys.exit(f"seeks {k}: {m and m.group(1)} != {s[k]}")
EOF

# compare: the run's metrics; a bio-based summary's missing ones named, not 0
mkdir "$TMP/z"
cp "$SRCDIR/tests/fuzz/seeds/bpf_summary/zram.json" "$TMP/z/summary.json"
"$IOTAPE" compare --label loop --label zram "$TMP/s" "$TMP/z" >"$TMP/c.txt" 2>"$TMP/c.err" ||
	fail "compare of summary runs: $(cat "$TMP/c.err")"
grep -q "^D2C p50 (us) *loop *1 " "$TMP/c.txt" || fail "compare has no D2C of the summary run: $(cat "$TMP/c.txt")"
for m in "D2C p50 (us)" "idle (%)" "seeks/s"; do
	grep -q "^$m *zram *0 *not given" "$TMP/c.txt" || fail "compare: $m of a bio-based summary not named as not given: $(cat "$TMP/c.txt")"
done
"$IOTAPE" compare --format json "$TMP/s" "$TMP/z" >"$TMP/c.json" 2>/dev/null || fail "compare --json"
grep -q '"not_given": true' "$TMP/c.json" || fail "compare --json does not say not_given"

# movie: no records, nothing to draw, and it says why
rc=0
"$IOTAPE" movie -o "$TMP/m.mp4" "$TMP/s" 2>"$TMP/m.err" || rc=$?
expect_eq "movie of a summary run" "$rc" 2
grep -q "is a summary run" "$TMP/m.err" || fail "movie does not say why: $(cat "$TMP/m.err")"
[ ! -e "$TMP/m.mp4" ] || fail "movie left a file"
echo PASS
