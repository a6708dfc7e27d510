# SPDX-License-Identifier: MIT
# An NFS server's capture that also holds traffic which is not RPC (synthetic): NFSv3 GETATTRs
# from one client on port 2049, and beside them two TCP connections of another protocol
# (a Ceph messenger's banner "ceph v027" and random bytes, both ways), one seen from its SYN,
# one joined mid-stream. Lossless: every segment of every connection is in the file.
# usage: python3 nfs_nonrpcgen.py OUT.pcap [CALLS] [OTHER_BYTES]
# Prints "CALLS OTHER_BYTES_TOTAL" (the ground truth: RPC calls, and the payload bytes of the
# other protocol over both connections and both directions).
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tcpgen import Capture, opaque, u32  # noqa: E402

out = sys.argv[1]
ncalls = int(sys.argv[2]) if len(sys.argv) > 2 else 40
nother = int(sys.argv[3]) if len(sys.argv) > 3 else 200000
rnd = random.Random(12)
NFSC, SRV, OSD = bytes([10, 3, 0, 1]), bytes([10, 3, 0, 2]), bytes([10, 3, 0, 3])


def getattr_call(xid):
    m = (u32(xid) + u32(0) + u32(2) + u32(100003) + u32(3) + u32(1) + u32(0) * 4 +
         opaque(b"nonrpc-fh-0001"))
    return u32(0x80000000 | len(m)) + m


def getattr_reply(xid):
    attr = u32(1) + u32(0o644) + u32(1) + u32(0) * 2 + struct.pack(">QQ", 4096, 4096) + \
        u32(0) * 2 + struct.pack(">QQ", 1, 7) + u32(0) * 6
    m = u32(xid) + u32(1) + u32(0) * 4 + u32(0) + attr
    return u32(0x80000000 | len(m)) + m


cap = Capture(20_000)
frame = cap.frame


class Conn:
    def __init__(self, a, b, pa, pb, syn):
        self.a, self.b, self.pa, self.pb = a, b, pa, pb
        self.seq = [rnd.randrange(1 << 32), rnd.randrange(1 << 32)]
        if syn:
            frame(a, b, pa, pb, self.seq[0], 0, 0x02)
            frame(b, a, pb, pa, self.seq[1], self.seq[0] + 1, 0x12)
            self.seq = [self.seq[0] + 1, self.seq[1] + 1]
            frame(a, b, pa, pb, self.seq[0], self.seq[1], 0x10)

    def send(self, d, data):  # d 0: a to b
        src, dst, sp, dp = (self.a, self.b, self.pa, self.pb) if d == 0 else \
            (self.b, self.a, self.pb, self.pa)
        for o in range(0, len(data), 1448):
            seg = data[o:o + 1448]
            frame(src, dst, sp, dp, self.seq[d], self.seq[1 - d], 0x18, seg)
            self.seq[d] += len(seg)


nfs = Conn(NFSC, SRV, 801, 2049, True)
ceph = Conn(SRV, OSD, 40100, 6800, True)
late = Conn(SRV, OSD, 40101, 6801, False)
other = 0
banner = b"ceph v027"
chunk = max(1, nother // (4 * ncalls))
for i in range(ncalls):
    nfs.send(0, getattr_call(0x5000 + i))
    for c in (ceph, late):
        for d in (0, 1):
            data = (banner if i == 0 and c is ceph else b"") + rnd.randbytes(chunk)
            c.send(d, data)
            other += len(data)
    nfs.send(1, getattr_reply(0x5000 + i))

cap.write(out)
print(ncalls, other)
