#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Ceph OSD diagnosis on a real cluster (issue #23): a throwaway single-host Ceph Pacific
# from Debian's packages (tests/integration/ceph.bash: 1 mon, 1 mgr, 2 filestore OSDs, xfs and
# ext4, each on a loop device with its journal on a loop device of its own), rados bench under
# `iotape capture` with the devices given as plain /dev/loopN and packets on lo by default.
# Checks: capture discovers each disk's role and group; the data disks' listed gaps are never
# put on the other OSD; every device has its gap table in the report; the journals' text warns
# of completions btt cannot match (split requests); compare keeps the disks apart by role;
# with filestore_max_sync_interval at 1 s, a second capture finds the sync thread's gaps
# periodic.
# Runs in a network namespace of its own (ports 3300, 6789, 6800+ are the test's) and a mount
# namespace (capture_lib.bash); everything it starts, mounts or attaches is undone on exit.
source "$SRCDIR/tests/integration/lib.bash"
need_root
for c in ceph-mon ceph-mgr ceph-osd ceph monmaptool ceph-authtool rados mkfs.xfs unshare ip; do
	command -v "$c" >/dev/null 2>&1 || fail "$c missing (scripts/deps.sh installs it)"
done
if [ -z "${IOTAPE_CEPH_NS:-}" ]; then
	trap - EXIT
	rm -rf "$TMP"
	export IOTAPE_CEPH_NS=1
	exec unshare --net bash -c 'ip link set lo up || exit 1; exec bash "$0" "$@"' "$0" "$@"
fi
source "$SRCDIR/tests/integration/capture_lib.bash"
source "$SRCDIR/tests/integration/ceph.bash"

CEPHDIR=$TMP/ceph
cleanup_hooks=("ceph_down $CEPHDIR" "${cleanup_hooks[@]}")
export CEPH_CONF=$CEPHDIR/ceph.conf
if ! ceph_up "$CEPHDIR" xfs ext4; then
	tail -20 "$CEPHDIR"/log/*.log >&2 || true
	fail "the cluster did not come up"
fi
read -r _ D0 J0 < <(sed -n 1p "$CEPHDIR/osds")
read -r _ D1 J1 < <(sed -n 2p "$CEPHDIR/osds")

RUN=$TMP/run
capture -o "$RUN" -d "$D0" -d "$J0" -d "$D1" -d "$J1" -i lo -- \
	rados -p bench bench 12 write -b 4M -t 16 --no-cleanup >"$TMP/bench.txt" ||
	fail "capture of rados bench exited $?: $(tail -5 "$TMP/bench.txt")"
LOOPNAME=$(basename "$D0")
tracing_is_off
grep -q "Bandwidth (MB/sec)" "$TMP/bench.txt" || fail "rados bench: $(tail -5 "$TMP/bench.txt")"

# 1. which disk is which, discovered from plain /dev/loopN
python3 - "$RUN/manifest.json" <<'PY' || fail "roles"
import json, sys
m = json.load(open(sys.argv[1]))
got = [(d['role'], d['group'], d['key']) for d in m['devices']]
want = [('osd.0 data', 'osd.0', 'osd.0 data'), ('osd.0 journal', 'osd.0', 'osd.0 journal'),
        ('osd.1 data', 'osd.1', 'osd.1 data'), ('osd.1 journal', 'osd.1', 'osd.1 journal')]
assert got == want, got
assert m['network']['packets'] > 100, ('the default filter kept the messenger', m['network'])
assert any(t['process'] == 'ceph-osd' for t in m['threads']), m['threads'][:5]
PY

"$IOTAPE" analyze --json "$RUN" >"$TMP/a.json" || fail "analyze"
"$IOTAPE" analyze "$RUN" >"$TMP/a.txt" || fail "analyze (text)"
python3 - "$TMP/a.json" <<'PY' || fail "the data disks' gaps"
import json, sys
a = json.load(open(sys.argv[1]))
devs = {d['role']: d for d in a['devices']}
assert set(devs) == {'osd.0 data', 'osd.0 journal', 'osd.1 data', 'osd.1 journal'}, set(devs)
for role in ('osd.0 data', 'osd.1 data'):
    d = devs[role]
    # 2. a data disk's gaps: never put on the other OSD's disks (they rank last)
    for g in d['idle']['longest']:
        ex = g['explain']
        assert ex['cause'] not in ('other_group_busy', 'other_device_busy'), (role, ex)
        for r in ex['reasons']:
            if r['cause'] == 'other_group_busy':
                assert 'osd.%s' % ('1' if role.startswith('osd.0') else '0') in r['because'], r
        if ex['cause'] == 'own_group_busy':
            assert 'journal' in ex['because'], ex
    # the gaps by the thread that ended them
    by = {c['comm']: c for c in d['idle']['explain']['ended_by']}
    print(role, {k: (v['gaps'], v['periodicity'] and v['periodicity']['period_ns']) for k, v in by.items()})
    assert any(c['process'] == 'ceph-osd' for c in by.values()), by
PY
# 4. the journals' split requests: the text says why btt's rows miss most completions, on
# each device where more than a tenth went unmatched (a 4 MiB bench splits the journals'
# writes over max_sectors_kb; how many depends on how the journal batched them, which a slow
# machine changes: the note is checked against the document's own counts)
notes=0
for j in "$J0" "$J1"; do
	mm=$(printf '%d,%d' "$(stat -c '0x%t' "$j")" "$(stat -c '0x%T' "$j")")
	due=$(python3 - "$TMP/a.json" "$mm" <<'PY'
import json, sys
d = [x for x in json.load(open(sys.argv[1]))['devices'] if x['dev'] == sys.argv[2]][0]
un = d['matching']['unmatched_completions']
n = d['reads']['ios'] + d['writes']['ios']
print('%d of %d completions unmatched, %d bios split' % (un, n, d['actions']['split']['writes']),
      file=sys.stderr)
print(1 if n and 10 * un > n else 0)
PY
	)
	# (the section into a variable first: grep -q leaving early would kill sed, and the
	# pipeline would fail under pipefail)
	sec=$(sed -n "/^device $mm /,/^device /p" "$TMP/a.txt")
	if grep -q "matched no queued bio" <<<"$sec"; then
		[ "$due" = 1 ] || fail "an unmatched-completion note for the journal $j ($mm) with few unmatched"
		notes=$((notes + 1))
	else
		[ "$due" = 0 ] || fail "no unmatched-completion note for the journal $j ($mm)"
	fi
done
echo "unmatched-completion notes on $notes of 2 journals"
grep -q "ended by  .* (ceph-osd)" "$TMP/a.txt" || fail "text: no gaps by thread"

# 5. the report: every device with gaps has its table, headed with its role
"$IOTAPE" report -o "$TMP/r.html" "$RUN" || fail "report"
python3 - "$TMP/a.json" "$TMP/r.html" <<'PY' || fail "the report's tables"
import json, re, sys
a = json.load(open(sys.argv[1]))
page = open(sys.argv[2]).read()
secs = re.split(r'<h2>Device ', page)[1:]
for d in a['devices']:
    sec = [s for s in secs if s.startswith(d['dev'] + ':')]
    assert len(sec) == 1, (d['dev'], len(sec))
    assert d['role'] in sec[0].split('</h2>')[0], (d['dev'], sec[0][:200])
    if d['idle']['longest']:
        assert sec[0].count('<table class="idle-gaps">') == 1, d['dev']
PY

# 6. compare keeps the disks apart by what they are
"$IOTAPE" compare --format json "$RUN" >"$TMP/c.json" 2>"$TMP/c.err" || fail "compare: $(cat "$TMP/c.err")"
python3 - "$TMP/c.json" <<'PY' || fail "compare's groups"
import json, sys
c = json.load(open(sys.argv[1]))
# the filesystem differs too (xfs, ext4, none for a journal): the key ends the label
assert sorted(g['label'].split(' / ')[-1] for g in c['groups']) == \
    ['osd.0 data', 'osd.0 journal', 'osd.1 data', 'osd.1 journal'], c['groups']
PY
# 7. the periodic sync: filestore_max_sync_interval set to 1 s (live), and a light load that
# the page cache holds until the sync (64 KiB writes one at a time: the write-back throttle's
# thresholds are seldom reached between syncs). On xfs the sync thread's writes end the data
# disk's gaps every second (on ext4, jbd2's commits share them), among the throttle's: found
# periodic, and (most of) its gaps labelled so, whatever the messenger carried meanwhile
ceph_cmd "$CEPHDIR" tell 'osd.*' config set filestore_max_sync_interval 1 >/dev/null 2>&1 ||
	fail "cannot set filestore_max_sync_interval"
RUN2=$TMP/run2
capture -o "$RUN2" -d "$D0" -d "$J0" -d "$D1" -d "$J1" -i lo -- \
	rados -p bench bench 20 write -b 65536 -t 1 --no-cleanup >"$TMP/bench2.txt" ||
	fail "capture of rados bench (64 KiB) exited $?: $(tail -5 "$TMP/bench2.txt")"
tracing_is_off
"$IOTAPE" analyze --json "$RUN2" >"$TMP/a2.json" || fail "analyze (64 KiB)"
python3 - "$TMP/a2.json" <<'PY' || fail "the periodic sync"
import json, sys
a = json.load(open(sys.argv[1]))
d = [x for x in a['devices'] if x['role'] == 'osd.0 data'][0]
by = {c['comm']: c for c in d['idle']['explain']['ended_by']}
s = by.get('filestore_sync')
print('osd.0 data, 64 KiB writes:', {k: (v['gaps'], v['periodicity']) for k, v in by.items()})
assert s and s['periodicity'], by
assert 0.9e9 < s['periodicity']['period_ns'] < 1.2e9, s
assert s['process'] == 'ceph-osd', s
causes = [g['explain']['cause'] for g in d['idle']['longest']]
assert 'periodic' in causes, causes
sync = []
for g in d['idle']['longest']:
    assert g['explain']['cause'] not in ('other_group_busy', 'other_device_busy'), g['explain']
    if g['comm'] == 'filestore_sync' and g['duration_ns'] >= s['periodicity']['min_gap_ns']:
        sync.append(g)
# the sync thread also syncs off its period (the first sync after the setting, or one the
# journal's fill forces early): most of its gaps are on the period, not necessarily all
on = sum(1 for g in sync if g['explain']['periodic'])
print('filestore_sync gaps on the period: %d of %d' % (on, len(sync)))
assert sync and 3 * on >= 2 * len(sync), [(g['start_offset_ns'], g['duration_ns'],
                                           g['explain']['periodic']) for g in sync]
PY
echo "ceph_osd: ok"
