#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Why was the disk idle, on a real capture: two loop devices, a journal-like writer on the
# second (bursts of synchronous writes, holding a lock) while reads on the first wait for the
# lock, and the writes' data arriving over TCP on lo. The first device's longest gaps must be
# explained by the second ("other_device_busy"), with the traffic during them.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd python3
cd "$TMP"

make_loop 64M
DATA=$LOOP
truncate -s 64M "$TMP/journal.img"
JOURNAL=$(losetup -f --show "$TMP/journal.img") || skip "losetup -f failed: no free loop device"
cleanup_hooks=("losetup -d $JOURNAL" "${cleanup_hooks[@]}")
# the data device holds something to read
dd if=/dev/urandom of="$DATA" bs=1M count=32 oflag=direct status=none

PORT=$((20000 + RANDOM % 20000))
RUN="$TMP/run"
capture -o "$RUN" -d "$DATA" -d "$JOURNAL" -i lo --filter "tcp port $PORT" -- \
	python3 "$SRCDIR/tests/integration/idle_journal.py" "$DATA" "$JOURNAL" "$PORT" ||
	fail "capture exited $?"
tracing_is_off
"$IOTAPE" analyze --json --top 20 "$RUN" >a.json 2>err.txt || fail "analyze: $(cat err.txt)"
"$IOTAPE" analyze --top 5 "$RUN" >a.txt
python3 - a.json "$(stat -c %t,%T "$DATA")" "$(stat -c %t,%T "$JOURNAL")" <<'EOF' ||
import json, sys
d = json.load(open(sys.argv[1]))
hexdev = lambda s: '%d,%d' % tuple(int(x, 16) for x in s.split(','))
data, journal = hexdev(sys.argv[2]), hexdev(sys.argv[3])
dev = {x['dev']: x for x in d['devices']}
idle = dev[data]['idle']
longest = idle['longest']
# the bursts: the data device idle, the journal busy (synchronous writes back to back). On a
# loaded machine the reader thread may also pause 10 ms or more between its reads with the
# journal idle: those gaps are not bursts (no_work_offered), so the bursts are picked by the
# journal's writes during them, not by rank; and a burst the reader was slow to follow (CI's
# ASan pass: 30 ms of writes in a 154 ms gap) is mostly the reader's own pause, which the
# explanation rightly ranks elsewhere (periodic): a burst is a gap the journal filled at least
# half of.
# (a gap before the journal's first IO has no entry for it: it did nothing then)
def journal_of(g):
    return next((o for o in g['explain']['devices'] if o['dev'] == journal),
                {'ios': 0, 'busy_ns': 0})
bursts = [g for g in longest
          if journal_of(g)['ios'] >= 16 and 2 * journal_of(g)['busy_ns'] >= g['duration_ns']]
assert len(bursts) >= 4, 'only %d bursts among %d gaps' % (len(bursts), len(longest))
for g in bursts:
    e = g['explain']
    assert e['cause'] == 'other_device_busy', (g['duration_ns'], e)
    j = [o for o in e['devices'] if o['dev'] == journal][0]
    assert j['ios'] > 0 and 2 * j['busy_ns'] >= g['duration_ns'], j
    assert g['io_after']['rwbs'].startswith('R'), g['io_after']
    # the burst's data came over TCP during the gap
    assert e['network'][0]['packets'] > 0, e['network']
tot = idle['explain']
assert [o for o in tot['devices'] if o['dev'] == journal][0]['ios'] >= 5 * 16, tot
n = tot['network'][0]
assert '127.0.0.1' in n['local_addresses'] and n['local_from'] == 'manifest', n
assert n['packets_local'] == n['packets'] > 0, n  # lo: both ends are the host's
print('data device %s: %d gaps, %d of them bursts explained by %s' % (
    data, idle['gaps'], len(bursts), journal))
EOF
	fail "the data device's gaps are not explained by the journal: $(cat a.txt)"
grep -q "other_device_busy" a.txt || fail "text: no cause"
echo "idle_capture: ok"
