#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# report_nfsgen.py OUT.pcap [SEED]: a synthetic NFSv3-over-TCP capture (not a real one, and
# it says so here): GETATTR, READ and WRITE calls with replies in two bursts separated by a
# one-second idle period. Nanosecond pcap, Ethernet, one TCP connection with a handshake.
import random, struct, sys

out, seed = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
rnd = random.Random(seed)
CLI, SRV = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
CPORT, SPORT = 901, 2049
frames = []
seq = {"c": 1000, "s": 5000}


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def frame(t, frm_client, flags, payload=b""):
    src, dst = (CLI, SRV) if frm_client else (SRV, CLI)
    sp, dp = (CPORT, SPORT) if frm_client else (SPORT, CPORT)
    me, peer = ("c", "s") if frm_client else ("s", "c")
    tcp = struct.pack("!HHIIBBHHH", sp, dp, seq[me], seq[peer], 5 << 4, flags, 65535, 0, 0)
    seg = tcp + payload
    pseudo = src + dst + struct.pack("!BBH", 0, 6, len(seg))
    seg = seg[:16] + struct.pack("!H", csum(pseudo + seg)) + seg[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(seg), 0, 0x4000, 64, 6, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00"
    frames.append((t, eth + ip + seg))
    seq[me] += len(payload) + (1 if flags & 0x03 else 0)


def opaque(b):
    return struct.pack("!I", len(b)) + b + b"\0" * (-len(b) % 4)


FH = opaque(b"\x01\x02\x03\x04\x05\x06\x07\x08")
FATTR = struct.pack("!IIIII", 1, 0o644, 1, 0, 0) + struct.pack("!QQQQQ", 4096, 4096, 0, 1, 2) \
    + struct.pack("!IIIIII", 0, 0, 0, 0, 0, 0)


def rpc_call(xid, proc, args):
    body = struct.pack("!IIIIII", xid, 0, 2, 100003, 3, proc) + struct.pack("!IIII", 0, 0, 0, 0)
    body += args
    return struct.pack("!I", 0x80000000 | len(body)) + body


def rpc_reply(xid, res):
    body = struct.pack("!IIIIII", xid, 1, 0, 0, 0, 0) + res
    return struct.pack("!I", 0x80000000 | len(body)) + body


t = 1_700_000_000_000_000_000
frame(t, True, 0x02)            # SYN
frame(t + 50_000, False, 0x12)  # SYN-ACK
frame(t + 100_000, True, 0x10)  # ACK
t += 1_000_000
xid = 0x1000
for burst in range(2):
    for i in range(400):
        xid += 1
        kind = rnd.choice(["GETATTR", "READ", "READ", "WRITE"])
        if kind == "GETATTR":
            call, res, srt = rpc_call(xid, 1, FH), struct.pack("!I", 0) + FATTR, 80_000
        elif kind == "READ":
            data = bytes(4096)
            call = rpc_call(xid, 6, FH + struct.pack("!QI", i * 4096, 4096))
            res = struct.pack("!IIII", 0, 0, 4096, 0) + opaque(data)
            srt = 300_000
        else:
            data = bytes(4096)
            call = rpc_call(xid, 7, FH + struct.pack("!QII", i * 4096, 4096, 2) + opaque(data))
            res = struct.pack("!IIIII", 0, 0, 0, 4096, 2) + bytes(8)
            srt = 900_000
        srt = int(srt * rnd.uniform(0.5, 1.5))
        frame(t, True, 0x18, call)
        frame(t + srt, False, 0x18, rpc_reply(xid, res))
        t += srt + rnd.randint(100_000, 400_000)
    t += 1_000_000_000  # one second with nothing on the wire
frame(t, True, 0x11)
frame(t + 50_000, False, 0x11)

frames.sort(key=lambda f: f[0])
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
    for ts, data in frames:
        f.write(struct.pack("<IIII", ts // 1_000_000_000, ts % 1_000_000_000, len(data), len(data)))
        f.write(data)
