#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# idle_gen.py SCENARIO DIR [SEED]: synthetic run directories (not real captures, and they say so here)
# with a known answer for tests/integration/idle_explain.sh. Each writes DIR/*.blktrace.0, a
# manifest.json with clock pairs (realtime = trace time + OFFSET) and, for some, net.pcap.
#   pair      devices 8,0 and 8,16, each busy exactly in the other's gaps: bursts of 100 IOs
#             (9 ms each, 1 ms apart) at 0, 2, ... s on 8,0 and 1, 3, ... s on 8,16
#   net       one device 8,0, bursts of 10 IOs (99 ms) at 0, 2, 4, 6, 8.7 s; a capture whose
#             flows fall in the gap 0.099-2 s (TCP in and out, UDP), NFS calls outstanding in
#             the gap 2.099-4 s, a request queued from 4.5 s until the issue at 6 s, nothing in
#             6.099-8.7 s (the last burst late: the gaps the one process ended are no series)
#   periodic  8,0: a burst every 5 s (+- 1 ms) and shorter random gaps between: a 5 s period
#   random    8,0: gaps of random length at random times (exponential): no period
#   four      devices 8,48, 8,32, 8,16, 8,0 (first events in that order, the reverse of the
#             numbers), bursts of 10 IOs every second, 250 ms apart; the manifest says what they
#             are: osd.0's data (8,0) and journal (8,16), osd.1's data (8,32) and journal (8,48)
#   hostA / hostB   two hosts, one device 8,0 each, on trace clocks 7.5 s apart (hostB's manifest
#             says so): hostB's device busy exactly in hostA's gaps, as "pair" on one clock
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_oracle import mkdev, write_set  # noqa: E402

MS = 1000000
S = 1000 * MS
OFFSET = 1_700_000_000 * S + 123_456_789  # realtime - trace time
DEV_A, DEV_B = mkdev(8, 0), mkdev(8, 16)


def io(ev, t, dur, sector, write, dev, pid=1000, queue_at=None):
    q = t if queue_at is None else queue_at
    ev.append((q, 0, 'Q', write, sector, 8, pid, dev))
    ev.append((t, 0, 'D', write, sector, 8, pid, dev))
    ev.append((t + dur, 0, 'C', write, sector, 8, 0, dev))


def burst(ev, t0, n, dev, write=False, step=10 * MS, dur=9 * MS):
    for k in range(n):
        io(ev, t0 + k * step, dur, 4096 + k * 8, write, dev)


def manifest(d, devs, span, offset=OFFSET, trace0=0, host='synthetic', addrs=None, roles=None):
    m = {
        'format': 'iotape-run', 'format_version': 1, 'iotape_version': 'synthetic',
        'state': 'complete', 'host': {'hostname': host},
        'clock': {'trace_clock': 'mono',
                  'start': {'realtime_ns': trace0 + offset, 'trace_ns': trace0,
                            'uncertainty_ns': 150},
                  'end': {'realtime_ns': trace0 + span + offset, 'trace_ns': trace0 + span,
                          'uncertainty_ns': 250}},
        'devices': [{'name': n, 'major': ma, 'minor': mi, 'files': n + '.blktrace'}
                    for (n, ma, mi) in devs],
    }
    for dev, (role, group) in zip(m['devices'], roles or []):
        dev.update({'key': role, 'key_from': 'role', 'role': role, 'group': group})
    if addrs is not None:
        m['network'] = {'interface': 'eth0', 'file': 'net.pcap', 'addresses': addrs}
    with open(os.path.join(d, 'manifest.json'), 'w') as f:
        json.dump(m, f, indent=1)


# -- packets ----------------------------------------------------------------------------------
def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


class Pcap:
    """Packets queued in any order, numbered (TCP sequence) and written in time order."""

    def __init__(self):
        self.pkts = []

    def tcp(self, t, src, sp, dst, dp, payload):
        self.pkts.append((t, 6, bytes(src), sp, bytes(dst), dp, payload))

    def udp(self, t, src, sp, dst, dp, payload):
        self.pkts.append((t, 17, bytes(src), sp, bytes(dst), dp, payload))

    @staticmethod
    def frame(src, dst, proto, l4):
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(l4), 0, 0x4000, 64, proto, 0, src,
                         dst)
        ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
        return b'\x02\0\0\0\0\x02' + b'\x02\0\0\0\0\x01' + b'\x08\x00' + ip + l4

    def write(self, path):
        seq = {}
        with open(path, 'wb') as f:
            f.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
            for t, proto, src, sp, dst, dp, pl in sorted(self.pkts, key=lambda x: x[0]):
                if proto == 6:
                    key, back = (src, sp, dst, dp), (dst, dp, src, sp)
                    s, a = seq.get(key, 1000), seq.get(back, 5000)
                    l4 = struct.pack('!HHIIBBHHH', sp, dp, s, a, 5 << 4, 0x18, 65535, 0, 0) + pl
                    seq[key] = s + len(pl)
                else:
                    l4 = struct.pack('!HHHH', sp, dp, 8 + len(pl), 0) + pl
                fr = self.frame(src, dst, proto, l4)
                f.write(struct.pack('<IIII', t // S, t % S, len(fr), len(fr)) + fr)


def rpc_call(xid, proc, args):
    body = struct.pack('!IIIIII', xid, 0, 2, 100003, 3, proc) + struct.pack('!IIII', 0, 0, 0, 0)
    body += args
    return struct.pack('!I', 0x80000000 | len(body)) + body


def rpc_reply(xid, res):
    body = struct.pack('!IIIIII', xid, 1, 0, 0, 0, 0) + res
    return struct.pack('!I', 0x80000000 | len(body)) + body


LOCAL, PEER, PEER2 = [10, 0, 0, 1], [10, 0, 0, 2], [10, 0, 0, 3]
FH = struct.pack('!I', 8) + b'\x01\x02\x03\x04\x05\x06\x07\x08'


# -- scenarios --------------------------------------------------------------------------------
def pair(d):
    ev = []
    for b in range(4):
        burst(ev, b * S, 100, DEV_A if b % 2 == 0 else DEV_B, write=b % 2 == 1)
    write_set(os.path.join(d, 'sda'), [e for e in ev if e[7] == DEV_A], 1)
    write_set(os.path.join(d, 'sdb'), [e for e in ev if e[7] == DEV_B], 1)
    manifest(d, [('sda', 8, 0), ('sdb', 8, 16)], 4 * S)


def net(d):
    ev = []
    for t in (0, 2 * S, 4 * S, 6 * S, 8700 * MS):
        burst(ev, t, 10, DEV_A)
    # a request queued at 4.5 s, held until 6 s (the burst's first issue is its D)
    ev = [e for e in ev if not (e[0] == 6 * S and e[2] == 'Q')]
    ev.append((4500 * MS, 0, 'Q', False, 4096, 8, 1000, DEV_A))
    write_set(os.path.join(d, 'sda'), ev, 1)
    manifest(d, [('sda', 8, 0)], 9 * S, addrs=['10.0.0.1'])
    p = Pcap()
    r = OFFSET
    # the gap 0.099-2 s: flows
    for k in range(20):  # in: 20 x 1000 bytes
        p.tcp(r + 1200 * MS + k * MS, PEER, 6800, LOCAL, 40000, bytes(1000))
    for k in range(10):  # out: 10 x 500 bytes
        p.tcp(r + 1500 * MS + k * MS, LOCAL, 40001, PEER2, 6801, bytes(500))
    for k in range(4):  # udp in: 4 x 100 bytes
        p.udp(r + 1700 * MS + k * MS, PEER2, 53, LOCAL, 33333, bytes(100))
    for k in range(5):  # during the burst at 0 s: in no gap
        p.tcp(r + 20 * MS + k * MS, PEER, 6800, LOCAL, 40000, bytes(1000))
    # the gap 2.099-4 s: NFS calls outstanding 2.2-3.9, 2.3-2.4, 2.5-2.6 s (a second connection)
    calls = [(1, 2200, 3900), (2, 2300, 2400), (3, 2500, 2600)]
    for xid, c, r_ in calls:
        p.tcp(r + c * MS, PEER, 900, LOCAL, 2049, rpc_call(xid, 1, FH))
        p.tcp(r + r_ * MS, LOCAL, 2049, PEER, 900,
              rpc_reply(xid, struct.pack('!I', 0) + bytes(84)))
    p.write(os.path.join(d, 'net.pcap'))


def periodic(d, seed=5):
    rnd = random.Random(seed)
    ev = []
    for b in range(12):
        t0 = b * 5 * S + rnd.randrange(0, 2 * MS)
        # a 1 s burst with two short irregular pauses inside it
        t = t0
        while t < t0 + S:
            io(ev, t, 2 * MS, 4096 + (t // MS) * 8, True, DEV_A)
            t += 3 * MS
            if rnd.random() < 0.01:
                t += rnd.randrange(20, 200) * MS
    write_set(os.path.join(d, 'sda'), ev, 1)
    manifest(d, [('sda', 8, 0)], 60 * S)


def random_gaps(d, seed=9):
    rnd = random.Random(seed)
    ev = []
    t = 0
    while t < 120 * S:
        for _ in range(rnd.randrange(1, 50)):
            io(ev, t, 2 * MS, 4096 + (t // MS) * 8, False, DEV_A)
            t += 3 * MS
        t += int(rnd.expovariate(1 / 2.0) * S) + 10 * MS
    write_set(os.path.join(d, 'sda'), ev, 1)
    manifest(d, [('sda', 8, 0)], t)


def four(d):
    devs = [mkdev(8, 48), mkdev(8, 32), mkdev(8, 16), mkdev(8, 0)]
    ev = []
    for b in range(4):
        for k, dev in enumerate(devs):
            burst(ev, b * S + k * 250 * MS, 10, dev, write=True)
    for name, dev in zip(('sdd', 'sdc', 'sdb', 'sda'), devs):
        write_set(os.path.join(d, name), [e for e in ev if e[7] == dev], 1)
    manifest(d, [('sda', 8, 0), ('sdb', 8, 16), ('sdc', 8, 32), ('sdd', 8, 48)], 4 * S,
             roles=[('osd.0 data', 'osd.0'), ('osd.0 journal', 'osd.0'),
                    ('osd.1 data', 'osd.1'), ('osd.1 journal', 'osd.1')])


SHIFT = 7500 * MS  # hostB's trace clock runs 7.5 s ahead of hostA's


def host(d, which):
    ev = []
    for b in range(4):
        if (b % 2 == 0) == (which == 'A'):
            burst(ev, b * S + (SHIFT if which == 'B' else 0), 100, DEV_A, write=which == 'B')
    write_set(os.path.join(d, 'sda'), ev, 1)
    manifest(d, [('sda', 8, 0)], 4 * S, offset=OFFSET - (SHIFT if which == 'B' else 0),
             trace0=SHIFT if which == 'B' else 0, host='host' + which)


def main():
    scen, d = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else None
    os.makedirs(d, exist_ok=True)
    if seed is not None:
        {'periodic': periodic, 'random': random_gaps}[scen](d, seed)
        return
    {'pair': pair, 'net': net, 'periodic': periodic, 'random': random_gaps, 'four': four,
     'hostA': lambda d: host(d, 'A'), 'hostB': lambda d: host(d, 'B')}[scen](d)


main()
