# SPDX-License-Identifier: MIT
# A lossless capture whose segments are reordered and duplicated the way a receiver-side
# capture shows a retransmission: NFSv3 WRITEs of 64 KiB from one client, one segment lost on
# the wire before the capture point and retransmitted after REORDER bytes of later data, every
# seventh segment captured twice. Every byte is in the file; every call has its reply.
# usage: python3 nfs_reordergen.py OUT.pcap [CALLS] [REORDER_BYTES] [HELD_SEGMENT]
# Prints "CALLS WRITE_BYTES" (the ground truth).
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tcpgen import Capture, opaque, u32  # noqa: E402

out = sys.argv[1]
ncalls = int(sys.argv[2]) if len(sys.argv) > 2 else 48
reorder = int(sys.argv[3]) if len(sys.argv) > 3 else 1536 * 1024
SEG = 16384
IOSZ = 65536
CLI, SRV = bytes([10, 2, 0, 1]), bytes([10, 2, 0, 2])
CPORT, SPORT = 777, 2049
FH = b"reorder-file-handle-0001"


def call(xid, off):
    cred = u32(1) + opaque(b"gen") + u32(0) + u32(0) + u32(0)
    m = (u32(xid) + u32(0) + u32(2) + u32(100003) + u32(3) + u32(7) + u32(1) + opaque(cred) +
         u32(0) + u32(0) + opaque(FH) + struct.pack(">Q", off) + u32(IOSZ) + u32(0) +
         opaque(bytes((off // IOSZ + i) & 255 for i in range(IOSZ))))
    return u32(0x80000000 | len(m)) + m


def reply(xid):
    m = (u32(xid) + u32(1) + u32(0) + u32(0) + u32(0) + u32(0) + u32(0) + u32(0) + u32(0) +
         u32(IOSZ) + u32(0) + b"verf0001")
    return u32(0x80000000 | len(m)) + m


cap = Capture(10_000)
frame = cap.frame


# handshake
cisn, sisn = 1000, 900000
frame(CLI, SRV, CPORT, SPORT, cisn, 0, 0x02)
frame(SRV, CLI, SPORT, CPORT, sisn, cisn + 1, 0x12)
frame(CLI, SRV, CPORT, SPORT, cisn + 1, sisn + 1, 0x10)

stream = b"".join(call(0x1000 + i, i * IOSZ) for i in range(ncalls))
ends = []  # stream offset where each call ends
o = 0
for i in range(ncalls):
    o += len(call(0, 0))
    ends.append(o)
segs = [(o, stream[o:o + SEG]) for o in range(0, len(stream), SEG)]
held = int(sys.argv[4]) if len(sys.argv) > 4 else 6  # lost on the wire, retransmitted late
release_after = next(k for k, (o, _) in enumerate(segs) if o >= segs[held][0] + reorder)

sseq = sisn + 1
received = 0  # in-order bytes the server has
replied = 0
order = [k for k in range(len(segs)) if k != held]
order.insert(order.index(release_after) + 1, held)
have = set()
for n, k in enumerate(order):
    off, data = segs[k]
    frame(CLI, SRV, CPORT, SPORT, cisn + 1 + off, sseq, 0x18, data)
    if n % 7 == 3:  # captured twice: a spurious retransmission
        frame(CLI, SRV, CPORT, SPORT, cisn + 1 + off, sseq, 0x18, data)
    have.add(k)
    while received // SEG in have and received < len(stream):
        received = min(segs[received // SEG][0] + len(segs[received // SEG][1]), len(stream))
    # the server answers every call it has whole, in order; duplicate ACKs meanwhile
    while replied < ncalls and ends[replied] <= received:
        r = reply(0x1000 + replied)
        frame(SRV, CLI, SPORT, CPORT, sseq, cisn + 1 + received, 0x18, r)
        if replied == 5:
            frame(SRV, CLI, SPORT, CPORT, sseq, cisn + 1 + received, 0x18, r)
        sseq += len(r)
        replied += 1
    frame(SRV, CLI, SPORT, CPORT, sseq, cisn + 1 + received, 0x10)

cap.write(out)
print(ncalls, ncalls * IOSZ)
