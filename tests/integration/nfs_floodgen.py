# SPDX-License-Identifier: MIT
# A hostile capture for the memory bound: thousands of connections each left inside a record
# (heads held), out-of-order segments parked behind holes, an XID flood of unanswered calls
# (LOOKUPs with 255-byte names, each with its own AUTH_SYS uid and machine name) and calls to
# made-up programs, then 70000 answered READs of as many handles from 4000 connections over
# 20 hours: past every table's cap (files, names, clients, uids, machines, timeline bins).
# usage: python3 nfs_floodgen.py OUT.pcap
import struct
import sys

def u32(v): return struct.pack(">I", v & 0xffffffff)

frames = []
ts = 1_700_000_000_000_000_000

def frame(sport, dport, seq, payload, flags=0x18, src=1, dst=2, rev=False):
    global ts
    ts += 1000
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq & 0xffffffff, 0, 0x50, flags, 65535, 0, 0)
    a, b = bytes([10, src >> 8 & 255, src & 255, 1]), bytes([10, 0, dst & 255, 2])
    if rev:  # the server's direction
        a, b = b, a
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), 1, 0, 64, 6, 0, a, b)
    frames.append((ts, b"\0" * 12 + b"\x08\x00" + ip + tcp + payload))

def call(xid, prog, proc, pad=0):
    m = u32(xid) + u32(0) + u32(2) + u32(prog) + u32(3) + u32(proc) + u32(0) * 4 + b"\0" * pad
    return u32(0x80000000 | len(m)) + m

def opaque(b):
    return u32(len(b)) + b + b"\0" * (-len(b) % 4)

def auth_sys(uid, machine):
    cred = u32(0) + opaque(machine) + u32(uid) + u32(uid) + u32(0)
    return u32(1) + opaque(cred) + u32(0) * 2

def lookup(xid, uid, fh, name):
    m = (u32(xid) + u32(0) + u32(2) + u32(100003) + u32(3) + u32(3) + auth_sys(uid, b"m%05d" % uid) +
         opaque(fh) + opaque(name))
    return u32(0x80000000 | len(m)) + m

def read_call(xid, uid, fh):
    m = (u32(xid) + u32(0) + u32(2) + u32(100003) + u32(3) + u32(6) + auth_sys(uid, b"h%05d" % uid) +
         opaque(fh) + struct.pack(">Q", 0) + u32(4096))
    return u32(0x80000000 | len(m)) + m

def read_reply(xid):
    m = u32(xid) + u32(1) + u32(0) + u32(0) * 3 + u32(0) + u32(0) + u32(4096) + u32(1) + u32(0)
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
    if x % 2:
        m = lookup(1_000_000 + x, x, b"dir-%07d" % x, b"n" * 250 + b"%05d" % (x % 100000))
    else:
        m = call(1_000_000 + x, 200000 + x, x % 64)
    frame(999, 2049, seq, m, src=4000)
    seq += len(m)
# answered READs: 70000 handles, 4000 connections, a call every second
cseq, sseq = {}, {}
for x in range(70000):
    conn = x % 4000
    sport, src = 20000 + conn, 5000 + conn // 250
    if conn not in cseq:
        frame(sport, 2049, 0, b"", flags=0x02, src=src)
        frame(2049, sport, 0, b"", flags=0x12, src=src, rev=True)
        cseq[conn], sseq[conn] = 1, 1
    ts += 10**9
    c = read_call(5_000_000 + x, x % 3000, b"file-handle-%08d" % x)
    frame(sport, 2049, cseq[conn], c, src=src)
    cseq[conn] += len(c)
    r = read_reply(5_000_000 + x)
    frame(2049, sport, sseq[conn], r, src=src, rev=True)
    sseq[conn] += len(r)

with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
    for t, d in frames:
        f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(d), len(d)))
        f.write(d)
