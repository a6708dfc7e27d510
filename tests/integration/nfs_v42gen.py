# SPDX-License-Identifier: MIT
# Write a synthetic NFSv4.1/4.2 session as a pcap (nanosecond timestamps, Ethernet, IPv4/TCP):
# EXCHANGE_ID, CREATE_SESSION, LOOKUP, OPEN, WRITE, an asynchronous COPY answered by a
# CB_OFFLOAD on the back channel of the same connection, READ_PLUS, CLONE, ALLOCATE,
# DEALLOCATE, a failing LOOKUP, CLOSE, DESTROY_SESSION. One call is split over several
# segments and sent as two record fragments; one segment is retransmitted. libnfs speaks only
# NFSv4.0, so this is how the 4.1/4.2 paths meet tshark. Synthetic: say so where it is used.
# usage: python3 nfs_v42gen.py OUT.pcap
import struct
import sys

def u32(v): return struct.pack(">I", v & 0xffffffff)
def u64(v): return struct.pack(">Q", v)
def opaque(b):
    return u32(len(b)) + b + b"\0" * ((4 - len(b) % 4) % 4)
def bitmap(*words): return u32(len(words)) + b"".join(u32(w) for w in words)

SID = b"sess-0123456789a"            # sessionid4
STATEID = u32(1) + b"other-123456"  # stateid4
FH_ROOT = b"root-handle-0001"
FH_F = b"file-handle-0001"
FH_G = b"file-handle-0002"
CB_PROG = 0x40000000

def auth_sys():
    body = u32(1) + opaque(b"gen") + u32(0) + u32(0) + u32(0)
    return u32(1) + opaque(body) + u32(0) + u32(0)

def call(xid, prog, vers, proc, args):
    return u32(xid) + u32(0) + u32(2) + u32(prog) + u32(vers) + u32(proc) + auth_sys() + args

def reply(xid, res):
    return u32(xid) + u32(1) + u32(0) + u32(0) + u32(0) + u32(0) + res

def compound(minor, ops):
    return opaque(b"") + u32(minor) + u32(len(ops)) + b"".join(ops)

def compound_res(status, results):
    return u32(status) + opaque(b"") + u32(len(results)) + b"".join(results)

def op(num, args=b""): return u32(num) + args
def res(num, status=0, body=b""): return u32(num) + u32(status) + body

SEQ = op(53, SID + u32(1) + u32(0) + u32(0) + u32(0))
SEQ_R = res(53, 0, SID + u32(1) + u32(0) + u32(0) + u32(0) + u32(0))
def PUTFH(fh): return op(22, opaque(fh))
PUTFH_R = res(22)
GETATTR = op(9, bitmap(0x18))
def GETATTR_R(size): return res(9, 0, bitmap(0x18) + opaque(u64(7) + u64(size)))
GETFH = op(10)
def GETFH_R(fh): return res(10, 0, opaque(fh))

def channel_attrs(): return u32(0) + u32(1 << 20) * 4 + u32(16) + u32(0)

M = 2  # minor version
msgs = []  # (xid, from_server, message bytes, srt_ns) in call order; replies follow
exchange = compound(M, [op(42, b"verifier" + opaque(b"gen-client") + u32(0) + u32(0) + u32(0))])
exchange_r = compound_res(0, [res(42, 0, u64(99) + u32(1) + u32(0) + u32(0) + u64(1) +
                                   opaque(b"srv") + opaque(b"scope") + u32(0))])
session = compound(M, [op(43, u64(99) + u32(1) + u32(0) + channel_attrs() + channel_attrs() +
                           u32(CB_PROG) + u32(1) + u32(0))])
session_r = compound_res(0, [res(43, 0, SID + u32(1) + u32(0) + channel_attrs() + channel_attrs())])
lookup = compound(M, [SEQ, op(24), op(15, opaque(b"f")), GETFH, GETATTR])
lookup_r = compound_res(0, [SEQ_R, res(24), res(15), GETFH_R(FH_F), GETATTR_R(4096)])
open_ = compound(M, [SEQ, PUTFH(FH_ROOT), op(18, u32(0) + u32(3) + u32(0) + u64(99) +
                                              opaque(b"owner") + u32(0) + u32(0) + opaque(b"f")),
                     GETFH])
open_r = compound_res(0, [SEQ_R, PUTFH_R, res(18, 0, STATEID + u32(1) + u64(1) + u64(2) + u32(0) +
                                              bitmap() + u32(0)), GETFH_R(FH_F)])
data = bytes(range(256)) * 16
write = compound(M, [SEQ, PUTFH(FH_F), op(38, STATEID + u64(0) + u32(2) + opaque(data)), GETATTR])
write_r = compound_res(0, [SEQ_R, PUTFH_R, res(38, 0, u32(len(data)) + u32(2) + b"verfverf"),
                           GETATTR_R(4096)])
copy = compound(M, [SEQ, PUTFH(FH_F), op(32), PUTFH(FH_G),
                    op(60, STATEID + STATEID + u64(0) + u64(0) + u64(1 << 20) + u32(1) + u32(0) +
                       u32(0))])
COPY_CB = u32(1) + b"copy-stateid"
copy_r = compound_res(0, [SEQ_R, PUTFH_R, res(32), PUTFH_R,
                          res(60, 0, u32(1) + COPY_CB + u64(0) + u32(0) + b"verfverf" + u32(1) +
                              u32(0))])
cb = opaque(b"") + u32(M) + u32(1) + u32(2) + \
    op(11, SID + u32(1) + u32(0) + u32(0) + u32(0) + u32(0)) + \
    op(15, opaque(FH_G) + COPY_CB + u32(0) + u32(0) + u64(1 << 20) + u32(2) + b"verfverf")
cb_r = compound_res(0, [res(11, 0, SID + u32(1) + u32(0) + u32(0) + u32(0)), res(15)])
read_plus = compound(M, [SEQ, PUTFH(FH_F), op(68, STATEID + u64(0) + u32(4096))])
read_plus_r = compound_res(0, [SEQ_R, PUTFH_R, res(68, 0, u32(1) + u32(2) +
                                                   u32(0) + u64(0) + opaque(data[:1024]) +
                                                   u32(1) + u64(1024) + u64(3072))])
clone = compound(M, [SEQ, PUTFH(FH_F), op(32), PUTFH(FH_G),
                     op(71, STATEID + STATEID + u64(0) + u64(0) + u64(4096))])
clone_r = compound_res(0, [SEQ_R, PUTFH_R, res(32), PUTFH_R, res(71)])
alloc = compound(M, [SEQ, PUTFH(FH_F), op(59, STATEID + u64(0) + u64(1 << 20))])
alloc_r = compound_res(0, [SEQ_R, PUTFH_R, res(59)])
dealloc = compound(M, [SEQ, PUTFH(FH_F), op(62, STATEID + u64(0) + u64(4096))])
dealloc_r = compound_res(0, [SEQ_R, PUTFH_R, res(62)])
noent = compound(M, [SEQ, PUTFH(FH_ROOT), op(15, opaque(b"missing")), GETFH])
noent_r = compound_res(2, [SEQ_R, PUTFH_R, res(15, 2)])
close = compound(M, [SEQ, PUTFH(FH_F), op(4, u32(0) + STATEID)])
close_r = compound_res(0, [SEQ_R, PUTFH_R, res(4, 0, STATEID)])
destroy = compound(M, [op(44, SID)])
destroy_r = compound_res(0, [res(44)])

NFS = 100003
plan = [  # (xid, server_calls, call, reply, srt_us)
    (1, False, call(1, NFS, 4, 0, b""), reply(1, b""), 21),
    (2, False, call(2, NFS, 4, 1, exchange), reply(2, exchange_r), 53),
    (3, False, call(3, NFS, 4, 1, session), reply(3, session_r), 87),
    (4, False, call(4, NFS, 4, 1, lookup), reply(4, lookup_r), 31),
    (5, False, call(5, NFS, 4, 1, open_), reply(5, open_r), 140),
    (6, False, call(6, NFS, 4, 1, write), reply(6, write_r), 412),
    (7, False, call(7, NFS, 4, 1, copy), reply(7, copy_r), 95),
    (900, True, call(900, CB_PROG, 1, 1, cb), reply(900, cb_r), 18),
    (8, False, call(8, NFS, 4, 1, read_plus), reply(8, read_plus_r), 77),
    (9, False, call(9, NFS, 4, 1, clone), reply(9, clone_r), 66),
    (10, False, call(10, NFS, 4, 1, alloc), reply(10, alloc_r), 58),
    (11, False, call(11, NFS, 4, 1, dealloc), reply(11, dealloc_r), 49),
    (12, False, call(12, NFS, 4, 1, noent), reply(12, noent_r), 25),
    (13, False, call(13, NFS, 4, 1, close), reply(13, close_r), 37),
    (14, False, call(14, NFS, 4, 1, destroy), reply(14, destroy_r), 44),
]

C, S = (bytes([10, 1, 0, 1]), 870), (bytes([10, 1, 0, 2]), 2049)
seq = {C: 5000, S: 90000}
frames = []
t = 1_700_000_000_000_000_000

def checksum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

def frame(ts, src, dst, payload, flags=0x18, seqno=None):
    s = seq[src] if seqno is None else seqno
    ack = seq[dst]
    tcp = struct.pack(">HHIIBBHHH", src[1], dst[1], s & 0xffffffff, ack & 0xffffffff, 0x50,
                      flags, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), 1, 0x4000, 64, 6,
                     0, src[0], dst[0])
    ip = ip[:10] + struct.pack(">H", checksum(ip)) + ip[12:]
    eth = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00"
    frames.append((ts, eth + ip + tcp + payload))
    if seqno is None:
        seq[src] += len(payload) + (1 if flags & 0x03 else 0)

def send(ts, src, dst, msg, split=False):
    rec = u32(0x80000000 | len(msg)) + msg
    if not split:
        frame(ts, src, dst, rec)
        return
    # two record fragments, sent over three segments, the middle one retransmitted
    half = len(msg) // 2
    rec = u32(half) + msg[:half] + u32(0x80000000 | (len(msg) - half)) + msg[half:]
    a, b = len(rec) // 3, 2 * len(rec) // 3
    frame(ts, src, dst, rec[:a])
    s0 = seq[src]
    frame(ts + 1000, src, dst, rec[a:b])
    frame(ts + 2000, src, dst, rec[a:b], seqno=s0)  # retransmission
    frame(ts + 3000, src, dst, rec[b:])

frame(t, C, S, b"", flags=0x02)
frame(t + 10_000, S, C, b"", flags=0x12)
frame(t + 20_000, C, S, b"", flags=0x10)
t += 100_000
for xid, from_server, c, r, srt_us in plan:
    a, b = (S, C) if from_server else (C, S)
    split = xid == 6
    send(t, a, b, c, split)
    done = t + (3000 if split else 0)
    send(done + srt_us * 1000, b, a, r)
    t = done + srt_us * 1000 + 200_000
frame(t, C, S, b"", flags=0x11)
frame(t + 10_000, S, C, b"", flags=0x11)

with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
    for ts, data in frames:
        f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(data), len(data)))
        f.write(data)
