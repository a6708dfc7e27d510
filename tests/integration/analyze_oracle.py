# SPDX-License-Identifier: MIT
# Helpers for the analyze_*.sh integration tests: craft blktrace files, read blkparse's and btt's
# summaries, and compare them (and blkgen's ground truth) with `iotape analyze --json`.
# Not a test itself (ctest runs *.sh only).
import json
import random
import re
import struct
import sys

MAGIC = 0x65617400
TC_SHIFT = 16
F_READ, F_WRITE, F_QUEUE, F_REQUEUE, F_ISSUE, F_COMPLETE, F_FS, F_NOTIFY = (
    1 << 0, 1 << 1, 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8, 1 << 10)
ACT = {'Q': 1, 'M': 2, 'F': 3, 'G': 4, 'R': 6, 'D': 7, 'C': 8, 'P': 9, 'U': 10, 'UT': 11, 'I': 12}
CAT = {'Q': F_QUEUE, 'M': F_QUEUE, 'F': F_QUEUE, 'G': F_QUEUE, 'I': F_QUEUE, 'R': F_REQUEUE,
       'D': F_ISSUE, 'C': F_COMPLETE, 'P': F_QUEUE, 'U': F_QUEUE, 'UT': F_QUEUE}


def rec7(seq, time, sector, nbytes, action, pid, dev, cpu, pdu=b'', version=7, magic=MAGIC):
    """One version-7 struct blk_io_trace (include/uapi/linux/blktrace_api.h), host order."""
    return struct.pack('<IIQQIIIIIHH', magic | version, seq, time, sector, nbytes, action, pid,
                       dev, cpu, 0, len(pdu)) + pdu


def mkdev(ma, mi):
    return ma << 20 | mi


def write_set(path_prefix, events, ncpus):
    """events: (time, cpu, kind, write, sector, sectors, pid, dev); per-CPU files in time order."""
    files = [open('%s.blktrace.%d' % (path_prefix, c), 'wb') for c in range(ncpus)]
    seq = {}
    for c in range(ncpus):  # process names, as blktrace writes them first
        for pid, name in ((1000, b'fio\0'), (1001, b'kworker/1:2\0')):
            files[c].write(rec7(0, 0, 0, 0, F_NOTIFY << TC_SHIFT, pid, mkdev(8, 0), c, name))
    for (t, cpu, kind, write, sector, n, pid, dev) in sorted(events, key=lambda e: e[0]):
        key = (dev, cpu)
        seq[key] = seq.get(key, 0) + 1
        flags = CAT[kind] | F_FS | (F_WRITE if write else (F_READ if n else 0))
        pdu = struct.pack('>Q', 1) if kind in ('U', 'UT') else b''
        files[cpu].write(rec7(seq[key], t, sector, n * 512, flags << TC_SHIFT | ACT[kind], pid,
                              dev, cpu, pdu))
    for f in files:
        f.close()


def edge_events(seed, ndev):
    """Random requests through every path btt knows: back and front merges, inserts, requeues,
    duplicate sectors, bios overlapping bios in flight, lost issues, zero-length flushes, zero
    time deltas, interleaved devices."""
    rnd = random.Random(seed)
    ev = []
    for d in range(ndev):
        dev = mkdev(8, 16 * d)
        t = 1000 + d * 7
        nxt = 4096
        for r in range(400):
            write = rnd.random() < 0.6
            cpu = rnd.randrange(2)
            pid = 1000 + rnd.randrange(2)
            nb = rnd.choice([1, 1, 1, 2, 3, 4])
            sizes = [rnd.choice([1, 8, 8, 16, 24]) for _ in range(nb)]
            r = rnd.random()
            if r < 0.3:
                nxt = rnd.randrange(0, 1 << 20) * 8
            elif r < 0.4 and ev:  # inside a recent request, maybe still in flight: overlap
                back = [x for x in ev[-40:] if x[2] == 'Q' and x[7] == dev]
                if back:
                    b = rnd.choice(back)
                    nxt = b[4] + rnd.randrange(0, max(1, b[5]))
            start = nxt
            total = sum(sizes)
            nxt = start + total
            tt = t
            step = lambda: rnd.choice([0, 0, 1, 50, 300, 2000])
            front = nb > 1 and rnd.random() < 0.4
            if front:  # the last bio first, then the rest merge in front of it
                offs = []
                o = 0
                for s in sizes:
                    offs.append(o)
                    o += s
                order = list(range(nb))[::-1]
                first = order[0]
                ev.append((tt, cpu, 'Q', write, start + offs[first], sizes[first], pid, dev))
                tt += step()
                ev.append((tt, cpu, 'G', write, start + offs[first], sizes[first], pid, dev))
                for i in order[1:]:
                    tt += step()
                    ev.append((tt, cpu, 'Q', write, start + offs[i], sizes[i], pid, dev))
                    tt += step()
                    ev.append((tt, cpu, 'F', write, start + offs[i], sizes[i], pid, dev))
            else:
                o = 0
                for i, s in enumerate(sizes):
                    ev.append((tt, cpu, 'Q', write, start + o, s, pid, dev))
                    tt += step()
                    ev.append((tt, cpu, 'G' if i == 0 else 'M', write, start + o, s, pid, dev))
                    tt += step()
                    o += s
            if rnd.random() < 0.05:  # the same sector queued again while outstanding
                ev.append((tt, cpu, 'Q', write, start, sizes[0], pid, dev))
            tt += step()
            ev.append((tt, cpu, 'I', write, start, total, pid, dev))
            tt += rnd.randrange(0, 5000)
            lost_d = rnd.random() < 0.03
            if not lost_d:
                ev.append((tt, cpu, 'D', write, start, total, pid, dev))
                if rnd.random() < 0.05:
                    tt += rnd.randrange(0, 3000)
                    ev.append((tt, cpu, 'R', write, start, total, pid, dev))
                    tt += rnd.randrange(0, 3000)
                    ev.append((tt, cpu, 'D', write, start, total, pid, dev))
            tc = tt + rnd.randrange(0, 400000)
            ev.append((tc, rnd.randrange(2), 'C', write, start, total, 0, dev))
            if rnd.random() < 0.05:  # a flush: no data, no position
                ev.append((tc + 5, cpu, 'D', False, 0, 0, pid, dev))
                ev.append((tc + 900, cpu, 'C', False, 0, 0, pid, dev))
            if rnd.random() < 0.1:
                ev.append((t, cpu, 'P', False, 0, 0, pid, dev))
                ev.append((tt, cpu, 'U' if rnd.random() < 0.8 else 'UT', False, 0, 0, pid, dev))
            t += rnd.choice([0, 100, 1000, 30000, 200000])
    return ev


# --------------------------------------------------------------------------------------------

def size_cnv(num, in_kb):
    """blkparse's size_cnv(): divide by 1000 while above a million, and name the unit."""
    suff = ['', 'K', 'M', 'G', 'P']
    i = 1 if in_kb else 0
    while num > 1000 * 1000 and i < len(suff) - 1:
        i += 1
        num //= 1000
    return '%d%s' % (num, suff[i])


def parse_blkparse(text):
    """Per device: its Total block, or its only CPU block (blkparse prints a Total only past
    one CPU), plus Events and Skips. Values are kept as printed (number, unit suffix)."""
    devs = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r'^(CPU\d+|Total) \((\d+,\d+)\):$', line)
        if m:
            d = devs.setdefault(m.group(2), {'blocks': []})
            cur = {'total': m.group(1) == 'Total'}
            d['blocks'].append(cur)
            continue
        m = re.match(r'^Events \((\d+,\d+)\): ([\d,]+) entries', line)
        if m:
            devs.setdefault(m.group(1), {'blocks': []})['events'] = int(m.group(2).replace(',', ''))
            last = m.group(1)
            continue
        m = re.match(r'^Skips: ([\d,]+) forward \(([\d,]+) -', line)
        if m:
            devs[last]['skips'] = int(m.group(1).replace(',', ''))
            devs[last]['skipped_records'] = int(m.group(2).replace(',', ''))
            continue
        if cur is None or not line.startswith(' '):
            continue
        for part in line.split('\t'):
            m = re.match(r'^\s*([A-Za-z .]+?):\s+([\d,]+)([KMGP]?)(?:,\s+([\d,]+)([KMGP]?)iB)?\s*$',
                         part)
            if m:
                cur[m.group(1)] = (m.group(2).replace(',', ''), m.group(3),
                                   (m.group(4) or '').replace(',', ''), m.group(5))
    for d in devs.values():
        tot = [b for b in d['blocks'] if b['total']]
        d['summary'] = tot[0] if tot else (d['blocks'][0] if len(d['blocks']) == 1 else None)
    return devs


BLKPARSE_FIELDS = [
    # (blkparse label, our count key, our KiB key or None)
    ('Reads Queued', 'reads_queued', 'reads_queued_kib'),
    ('Writes Queued', 'writes_queued', 'writes_queued_kib'),
    ('Read Dispatches', 'read_dispatches', 'read_dispatches_kib'),
    ('Write Dispatches', 'write_dispatches', 'write_dispatches_kib'),
    ('Reads Requeued', 'reads_requeued', None),
    ('Writes Requeued', 'writes_requeued', None),
    ('Reads Completed', 'reads_completed', 'reads_completed_kib'),
    ('Writes Completed', 'writes_completed', 'writes_completed_kib'),
    ('Read Merges', 'read_merges', 'read_merges_kib'),
    ('Write Merges', 'write_merges', 'write_merges_kib'),
    ('IO unplugs', 'io_unplugs', None),
    ('Timer unplugs', 'timer_unplugs', None),
]


def compare_blkparse(ours_path, text_path, skips=True):
    ours = {d['dev']: d for d in json.load(open(ours_path))['devices']}
    theirs = parse_blkparse(open(text_path).read())
    bad = []
    if sorted(ours) != sorted(theirs):
        bad.append('devices: ours %s, blkparse %s' % (sorted(ours), sorted(theirs)))
    checked = 0
    for dev, t in theirs.items():
        if dev not in ours:
            continue
        bp = ours[dev]['blkparse']
        summ = t.get('summary')
        if summ is None:
            bad.append('%s: no Total block' % dev)
            continue
        for label, ck, kk in BLKPARSE_FIELDS:
            if label not in summ:
                bad.append('%s %s: not in blkparse output' % (dev, label))
                continue
            n, nsuf, k, ksuf = summ[label]
            if ('%s%s' % (n, nsuf)) != size_cnv(bp[ck], False):
                bad.append('%s %s: ours %d, blkparse %s%s' % (dev, label, bp[ck], n, nsuf))
            if kk and ('%s%s' % (k, ksuf)) != size_cnv(bp[kk], True):
                bad.append('%s %s KiB: ours %d, blkparse %s%siB' % (dev, label, bp[kk], k, ksuf))
            checked += 1
        for key in ('events', 'skips', 'skipped_records')[:3 if skips else 1]:
            if t.get(key) != bp[key]:
                bad.append('%s %s: ours %s, blkparse %s' % (dev, key, bp[key], t.get(key)))
            checked += 1
        # the depth lines are per-CPU (the device's figure in each CPU block), never in Total;
        # with records lost, blkparse's depth counts differently (as its skips do)
        for b in (t['blocks'] if skips else []):
            for label, ck in (('Read depth', 'read_depth'), ('Write depth', 'write_depth')):
                if b['total']:
                    if label in b:
                        bad.append('%s %s: in the Total block' % (dev, label))
                    continue
                if label not in b:
                    bad.append('%s %s: not in a CPU block' % (dev, label))
                elif int(b[label][0]) != bp[ck]:
                    bad.append('%s %s: ours %d, blkparse %s' % (dev, label, bp[ck], b[label][0]))
                checked += 1
    return bad, checked


def parse_btt(text):
    rows = {}
    in_all = False
    for line in text.splitlines():
        if line.startswith('==================== All Devices'):
            in_all = True
            continue
        if in_all and line.startswith('===================='):
            break
        m = re.match(r'^(Q2Q|Q2G|G2I|Q2M|I2D|M2D|D2C|Q2C)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)',
                     line)
        if in_all and m:
            rows[m.group(1)] = (m.group(2), m.group(3), m.group(4), int(m.group(5)))
    return rows


def secs_to_ns(s):
    whole, frac = s.split('.')
    return int(whole) * 1000000000 + int((frac + '000000000')[:9])


def compare_btt(ours_path, text_path, with_q2q):
    doc = json.load(open(ours_path))
    rows = parse_btt(open(text_path).read())
    bad = []
    checked = 0
    names = ['Q2G', 'G2I', 'Q2M', 'I2D', 'M2D', 'D2C', 'Q2C'] + (['Q2Q'] if with_q2q else [])
    for name in names:
        key = name.lower()
        hs = [d['latency_ns'][key] for d in doc['devices']]
        n = sum(h['count'] for h in hs)
        if name not in rows:
            if n:
                bad.append('%s: btt has no row, ours has %d' % (name, n))
            continue
        bmin, bavg, bmax, bn = rows[name]
        total = sum(h['sum'] for h in hs)
        mn = min(h['min'] for h in hs if h['count'])
        mx = max(h['max'] for h in hs if h['count'])
        if n != bn:
            bad.append('%s N: ours %d, btt %d' % (name, n, bn))
        if mn != secs_to_ns(bmin) or mx != secs_to_ns(bmax):
            bad.append('%s min/max: ours %d/%d, btt %s/%s' % (name, mn, mx, bmin, bmax))
        # btt prints the mean in seconds with 9 decimals: equal within its rounding (1 ns)
        mean = total / n if n else 0
        if abs(mean - secs_to_ns(bavg)) > 1.0:
            bad.append('%s mean: ours %.3f ns, btt %s s' % (name, mean, bavg))
        checked += 1
    return bad, checked


def compare_truth(ours_path, truth_path):
    doc = json.load(open(ours_path))
    ours = {d['dev']: d for d in doc['devices']}
    truth = json.load(open(truth_path))
    bad = []
    for t in truth['devices']:
        o = ours.get(t['dev'])
        if o is None:
            bad.append('%s: missing' % t['dev'])
            continue

        def eq(what, a, b):
            if a != b:
                bad.append('%s %s: ours %s, truth %s' % (t['dev'], what, a, b))

        def near(what, a, b, tol):
            if abs(a - b) > tol:
                bad.append('%s %s: ours %r, truth %r' % (t['dev'], what, a, b))

        L = o['latency_ns']
        eq('reads', o['reads'], t['reads'])
        eq('writes', o['writes'], t['writes'])
        eq('requests (d2c_request count)', L['d2c_request']['count'], t['requests'])
        eq('queued bios (q2c count)', L['q2c']['count'], t['queued'])
        eq('back merges', o['actions']['backmerge']['reads'] + o['actions']['backmerge']['writes'],
           t['merges'])
        # the truth prints means with 3 decimals
        near('q2c mean', L['q2c']['mean'], t['q2c_mean_ns'], 0.0006)
        near('q2d mean', L['q2d']['mean'], t['q2d_mean_ns'], 0.0006)
        near('d2c per request mean', L['d2c_request']['mean'], t['d2c_mean_ns'], 0.0006)
        eq('seeks', o['seeks']['count'], t['seeks'])
        eq('seeks over 128 sectors', o['seeks']['seekwatcher'], t['seeks_128'])
        eq('sequential', o['seeks']['sequential'], t['sequential'])
        idle = o['idle']
        # the truth lists gaps between requests; the trace's edges are ours to add
        inner = sorted([g['start_ns'], g['end_ns']] for g in idle['longest']
                       if g['ended_by'] == 'issue' and not g['at_start'])
        edges = [g for g in idle['longest'] if g['ended_by'] != 'issue' or g['at_start']]
        eq('idle gaps', idle['gaps'] - len(edges), t['idle']['gaps'])
        eq('idle total', idle['total_ns'] - sum(g['duration_ns'] for g in edges),
           t['idle']['total_ns'])
        if idle['gaps'] <= len(idle['longest']):
            eq('idle gap list', inner, sorted(t['idle']['list']))
        eq('idle threshold', idle['threshold_ns'], truth['threshold_ns'])
        # the timeline adds up to the totals
        tl = o['timeline']
        eq('timeline ios', sum(b['ios'] for b in tl), o['reads']['ios'] + o['data_writes']['ios'])
        eq('timeline read bytes', sum(b['read_bytes'] for b in tl), o['reads']['bytes'])
        eq('timeline write bytes', sum(b['write_bytes'] for b in tl), o['data_writes']['bytes'])
        eq('timeline idle', sum(b['idle_ns'] for b in tl), idle['total_ns'])
        eq('timeline seeks', sum(b['seeks'] for b in tl), o['seeks']['count'])
        eq('matching', (o['matching']['outstanding_bios'], o['matching']['evicted'],
                        o['matching']['unmatched_completions']), (0, 0, 0))
    return bad


def main():
    cmd = sys.argv[1]
    if cmd == 'edge':  # edge PREFIX SEED NDEV
        write_set(sys.argv[2], edge_events(int(sys.argv[3]), int(sys.argv[4])), 2)
        return 0
    if cmd == 'records':  # records FILE N [VERSION] [MAGIC]: N plain v7 queue records
        n = int(sys.argv[3])
        version = int(sys.argv[4]) if len(sys.argv) > 4 else 7
        magic = int(sys.argv[5], 0) if len(sys.argv) > 5 else MAGIC
        with open(sys.argv[2], 'wb') as f:
            for i in range(n):
                f.write(rec7(i + 1, 1000 * (i + 1), 8 * i, 4096,
                             (F_QUEUE | F_WRITE | F_FS) << TC_SHIFT | ACT['Q'], 1, mkdev(8, 0), 0,
                             version=version, magic=magic))
        return 0
    if cmd == 'drop':  # drop FILE FIRST COUNT: remove records (makes sequence skips)
        data = open(sys.argv[2], 'rb').read()
        first, count = int(sys.argv[3]), int(sys.argv[4])
        out = bytearray()
        pos = idx = 0
        while pos < len(data):
            pdu = struct.unpack_from('<H', data, pos + 46)[0]
            size = 48 + pdu
            if not (first <= idx < first + count):
                out += data[pos:pos + size]
            pos += size
            idx += 1
        open(sys.argv[2], 'wb').write(out)
        return 0
    if cmd in ('blkparse', 'blkparse-noskips', 'btt', 'btt-noq2q', 'truth'):
        if cmd.startswith('blkparse'):
            # blkparse 1.2 does not see sequence gaps in a merged dump nor, often, in per-CPU
            # files: where records were dropped its skip counts are not an oracle
            bad, n = compare_blkparse(sys.argv[2], sys.argv[3], cmd == 'blkparse')
        elif cmd == 'truth':
            bad, n = compare_truth(sys.argv[2], sys.argv[3]), 1
        else:
            bad, n = compare_btt(sys.argv[2], sys.argv[3], cmd == 'btt')
        for b in bad:
            print('mismatch: ' + b, file=sys.stderr)
        if not n:
            print('nothing compared', file=sys.stderr)
            return 1
        print('%s: %d values compared, %d mismatches' % (cmd, n, len(bad)))
        return 1 if bad else 0
    print('unknown command %s' % cmd, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
