# SPDX-License-Identifier: MIT
# A hostile capture for the memory bound: thousands of connections each left inside a record
# (heads held), out-of-order segments parked behind holes, an XID flood of unanswered calls and
# calls to made-up programs. usage: python3 nfs_floodgen.py OUT.pcap
import struct
import sys

def u32(v): return struct.pack(">I", v & 0xffffffff)

frames = []
ts = 1_700_000_000_000_000_000

def frame(sport, dport, seq, payload, flags=0x18, src=1, dst=2):
    global ts
    ts += 1000
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq & 0xffffffff, 0, 0x50, flags, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), 1, 0, 64, 6, 0,
                     bytes([10, src >> 8 & 255, src & 255, 1]), bytes([10, 0, dst & 255, 2]))
    frames.append((ts, b"\0" * 12 + b"\x08\x00" + ip + tcp + payload))

def call(xid, prog, proc, pad=0):
    m = u32(xid) + u32(0) + u32(2) + u32(prog) + u32(3) + u32(proc) + u32(0) * 4 + b"\0" * pad
    return u32(0x80000000 | len(m)) + m

# 6000 connections, each stopping 1 KiB into a 64 KiB record, and a parked segment ahead
for c in range(6000):
    sport = 1024 + c % 60000
    src = 1 + c // 200
    frame(sport, 2049, 0, b"", flags=0x02, src=src)
    rec = call(c, 100003, 7, 65536)
    frame(sport, 2049, 1, rec[:1024], src=src)
    frame(sport, 2049, 1 + 4096, rec[4096:5120], src=src)
# an XID flood on one connection, half to made-up programs
seq = 1
frame(999, 2049, 0, b"", flags=0x02, src=4000)
for x in range(40000):
    m = call(1_000_000 + x, 100003 if x % 2 else 200000 + x, x % 64)
    frame(999, 2049, seq, m, src=4000)
    seq += len(m)

with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
    for t, d in frames:
        f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(d), len(d)))
        f.write(d)
