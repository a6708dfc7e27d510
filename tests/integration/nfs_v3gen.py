# SPDX-License-Identifier: MIT
# Write synthetic NFSv3 captures (pcap, nanosecond timestamps, Ethernet, IPv4/TCP) for the NFS
# replay's tests and benchmark. Synthetic: say so where it is used.
#   nfs_v3gen.py hostile OUT.pcap OUTSIDE   names a replay must refuse: '..', '/' inside a
#       name, an empty name, symbolic links to OUTSIDE and to '../..', and a file created
#       through each; a file 'ok' written in between
#   nfs_v3gen.py streams OUT.pcap N   two clients on two connections, N overlapping WRITEs
#       each (A called, B called, A answered, B answered) to a file of their own, 0.62 ms apart
#   nfs_v3gen.py load OUT.pcap CALLS [FILES [GAP_US [LIST]]]   CALLS calls of a file workload:
#       CREATE, WRITE, GETATTR, LOOKUP, READ, COMMIT, SETATTR (truncate), RENAME, REMOVE over FILES
#       files (64) in one directory, GAP_US (50) apart, each answered 20 us after its call;
#       LIST: the same calls as lines for tests/tools/nfsloop (the plain loop of syscalls)
#   nfs_v3gen.py special OUT.pcap   a FIFO made (MKNOD) then written and read; 'f' created,
#       written, linked as 'g' and written through 'g'; 'planted' (a file) written and its mode
#       set; 'fifo2' read; 'sock' made (MKNOD, a socket): what a replay must never open for
#       data, and the files it must not write unless it made their other links
#   nfs_v3gen.py attrs OUT.pcap   what SETATTR, CREATE, MKDIR and MKNOD set: 'f' created 0600,
#       4 KiB written (bytes 0..255, 16 times), set to 04751 owned by 1234:4321, its mtime
#       to 1600000000.123456789; 'd' made 0777 (a umask would take bits of it); 'null' a
#       character device 1,3 of mode 0620; 'cut' written 4 KiB of which the snaplen kept
#       3496 bytes
#   nfs_v3gen.py renames OUT.pcap N M   a directory 'd' that exists before the capture, its N
#       files looked up (each 4096 bytes), then the directory renamed M times (d, d1, ... dM),
#       16 bytes of one of its files read after each rename: --prepare must make d and its
#       N files
import struct
import sys

def u32(v): return struct.pack(">I", v & 0xffffffff)
def u64(v): return struct.pack(">Q", v)
def opaque(b):
    return u32(len(b)) + b + b"\0" * ((4 - len(b) % 4) % 4)

SATTR_NONE = u32(0) * 6

def call(xid, proc, args):
    return u32(xid) + u32(0) + u32(2) + u32(100003) + u32(3) + u32(proc) + u32(0) * 4 + args

def reply(xid, res):
    return u32(xid) + u32(1) + u32(0) + u32(0) + u32(0) + u32(0) + res

def fattr(size):
    return u32(1) + u32(0o644) + u32(1) + u32(0) * 2 + u64(size) * 2 + u32(0) * 2 + u64(1) + \
        u64(7) + u32(0) * 6

def fh(n): return opaque(b"fh%06d" % n)

ROOT = 0

class Pcap:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
        self.seq = {}
        self.t = 1_700_000_000_000_000_000
        self.open(0)

    def open(self, conn):  # a TCP connection per client port (800 + conn)
        self.seq[(conn, True)] = 1000 + conn
        self.seq[(conn, False)] = 9000 + conn
        self.frame(True, b"", 0x02, conn)
        self.frame(False, b"", 0x12, conn)

    def frame(self, client, payload, flags=0x18, conn=0, cut=0):
        src, dst = (b"\x7f\0\0\1", b"\x7f\0\0\2") if client else (b"\x7f\0\0\2", b"\x7f\0\0\1")
        sp, dp = (800 + conn, 2049) if client else (2049, 800 + conn)
        tcp = struct.pack(">HHIIBBHHH", sp, dp, self.seq[(conn, client)],
                          self.seq[(conn, not client)], 0x50, flags, 65535, 0, 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), 1, 0x4000, 64, 6, 0,
                         src, dst)
        eth = (b"\2\0\0\0\0\2\2\0\0\0\0\1" if client else b"\2\0\0\0\0\1\2\0\0\0\0\2") + \
            b"\x08\x00"
        data = eth + ip + tcp + payload
        # cut: the last bytes not captured (a snaplen)
        self.f.write(struct.pack("<IIII", self.t // 10**9, self.t % 10**9, len(data) - cut,
                                 len(data)))
        self.f.write(data[:len(data) - cut])
        self.seq[(conn, client)] += len(payload) + (1 if flags & 0x03 else 0)

    def call(self, xid, proc, args, conn=0, cut=0):
        c = call(xid, proc, args)
        self.frame(True, u32(0x80000000 | len(c)) + c, 0x18, conn, cut)

    def reply(self, xid, res, conn=0):
        r = reply(xid, res)
        self.frame(False, u32(0x80000000 | len(r)) + r, 0x18, conn)

    def rpc(self, xid, proc, args, res, gap_ns=50_000, srt_ns=20_000, cut=0):
        srt_ns = min(srt_ns, gap_ns // 2)
        self.call(xid, proc, args, 0, cut)
        self.t += srt_ns
        self.reply(xid, res)
        self.t += gap_ns - srt_ns

    def close(self):
        self.f.close()

def created(n):  # CREATE/MKDIR/SYMLINK3resok: post_op_fh3, post_op_attr, wcc_data
    return u32(0) + u32(1) + fh(n) + u32(0) + u32(0) * 2

def hostile(path, outside):
    p = Pcap(path)
    x = iter(range(1, 1000))
    # FSINFO on the root: the first unnamed directory handle becomes the export's root
    p.rpc(next(x), 19, fh(ROOT), u32(0) + u32(0) + u32(0) * 12)
    p.rpc(next(x), 3, fh(ROOT) + opaque(b".."), u32(0) + fh(90) + u32(0) * 2)
    p.rpc(next(x), 8, fh(ROOT) + opaque(b"a/b") + u32(0) + SATTR_NONE, created(91))
    p.rpc(next(x), 8, fh(ROOT) + opaque(b"") + u32(0) + SATTR_NONE, created(92))
    p.rpc(next(x), 8, fh(ROOT) + opaque(b"ok") + u32(0) + SATTR_NONE, created(1))
    p.rpc(next(x), 7, fh(1) + u64(0) + u32(4) + u32(0) + opaque(b"data"),
          u32(0) + u32(0) * 2 + u32(4) + u32(0) + u64(0))
    # a symbolic link out of the target, and a file created through it
    p.rpc(next(x), 10, fh(ROOT) + opaque(b"esc") + SATTR_NONE + opaque(outside.encode()),
          created(2))
    p.rpc(next(x), 8, fh(2) + opaque(b"x") + u32(0) + SATTR_NONE, created(3))
    p.rpc(next(x), 7, fh(3) + u64(0) + u32(4) + u32(0) + opaque(b"data"),
          u32(0) + u32(0) * 2 + u32(4) + u32(0) + u64(0))
    p.rpc(next(x), 10, fh(ROOT) + opaque(b"up") + SATTR_NONE + opaque(b"../../../../.."),
          created(4))
    p.rpc(next(x), 9, fh(4) + opaque(b"y") + SATTR_NONE, created(5))
    # a rename onto '..' and a name with a NUL
    p.rpc(next(x), 14, fh(ROOT) + opaque(b"ok") + fh(ROOT) + opaque(b".."), u32(0) + u32(0) * 4)
    p.rpc(next(x), 8, fh(ROOT) + opaque(b"n\0ul") + u32(0) + SATTR_NONE, created(93))
    p.close()

def load(path, calls, files, gap_us=50, listpath=None):
    p = Pcap(path)
    lst = open(listpath, "w") if listpath else None
    def say(*a):
        if lst:
            lst.write(" ".join(str(x) for x in a) + "\n")
    xid = 1
    p.rpc(xid, 19, fh(ROOT), u32(0) + u32(0) + u32(0) * 12)
    p.rpc(xid + 1, 9, fh(ROOT) + opaque(b"d") + SATTR_NONE, created(1))
    say("fsstat", ".")
    say("mkdir", "d")
    xid += 2
    gap = gap_us * 1000
    n = 2
    size = {}
    kinds = ["create", "write", "getattr", "lookup", "read", "write", "commit", "setattr",
             "read", "rename", "lookup", "remove"]
    i = 0
    renamed = set()
    while n < calls:
        k = kinds[i % len(kinds)]
        f = (i // len(kinds)) % files
        name = b"f%d" % f + (b"r" if f in renamed else b"")
        h = 100 + f
        if k == "create":
            renamed.discard(f)
            name = b"f%d" % f
            p.rpc(xid, 8, fh(1) + opaque(name) + u32(0) + SATTR_NONE, created(h), gap)
            say("create", "d/" + name.decode())
            size[f] = 0
        elif k == "write":
            off = size.get(f, 0)
            p.rpc(xid, 7, fh(h) + u64(off) + u32(4096) + u32(0) + u32(0),  # no data
                  u32(0) + u32(0) * 2 + u32(4096) + u32(0) + u64(0), gap)
            say("write", "d/" + name.decode(), off, 4096)
            size[f] = off + 4096
        elif k == "getattr":
            p.rpc(xid, 1, fh(h), u32(0) + fattr(size.get(f, 0)), gap)
            say("stat", "d/" + name.decode())
        elif k == "lookup":
            p.rpc(xid, 3, fh(1) + opaque(name), u32(0) + fh(h) + u32(0) * 2, gap)
            say("stat", "d/" + name.decode())
        elif k == "read":
            p.rpc(xid, 6, fh(h) + u64(0) + u32(4096),
                  u32(0) + u32(0) + u32(4096) + u32(0) + u32(0), gap)
            say("read", "d/" + name.decode(), 0, 4096)
        elif k == "commit":
            p.rpc(xid, 21, fh(h) + u64(0) + u32(0), u32(0) + u32(0) * 2 + u64(0), gap)
            say("commit", "d/" + name.decode())
        elif k == "setattr":  # truncate to 4 KiB
            p.rpc(xid, 2, fh(h) + u32(0) * 3 + u32(1) + u64(4096) + u32(0) * 3,
                  u32(0) + u32(0) * 2, gap)
            say("truncate", "d/" + name.decode(), 4096)
            size[f] = 4096
        elif k == "rename":
            p.rpc(xid, 14, fh(1) + opaque(name) + fh(1) + opaque(name + b"r"),
                  u32(0) + u32(0) * 4, gap)
            say("rename", "d/" + name.decode(), "d/" + name.decode() + "r")
            renamed.add(f)
        elif k == "remove":
            p.rpc(xid, 12, fh(1) + opaque(name), u32(0) + u32(0) * 2, gap)
            say("remove", "d/" + name.decode())
            renamed.discard(f)
        xid += 1
        n += 1
        i += 1
    p.close()
    if lst:
        lst.close()

def streams(path, n):
    """two clients on two connections whose WRITEs overlap: A's call, B's call, A's reply,
    B's reply; each to its own file"""
    p = Pcap(path)
    p.open(1)
    wres = u32(0) + u32(0) * 2 + u32(4096) + u32(0) + u64(0)
    p.rpc(1, 19, fh(ROOT), u32(0) + u32(0) + u32(0) * 12)
    p.rpc(2, 8, fh(ROOT) + opaque(b"a") + u32(0) + SATTR_NONE, created(1))
    p.rpc(3, 8, fh(ROOT) + opaque(b"b") + u32(0) + SATTR_NONE, created(2))
    for i in range(n):
        xa, xb = 100 + 2 * i, 101 + 2 * i
        p.call(xa, 7, fh(1) + u64(4096 * i) + u32(4096) + u32(0) + u32(0), 0)
        p.t += 10_000
        p.call(xb, 7, fh(2) + u64(4096 * i) + u32(4096) + u32(0) + u32(0), 1)
        p.t += 100_000
        p.reply(xa, wres, 0)
        p.t += 10_000
        p.reply(xb, wres, 1)
        p.t += 500_000
    p.close()

def wres(n):  # WRITE3resok: wcc_data, count, committed, verifier
    return u32(0) + u32(0) * 2 + u32(n) + u32(2) + u64(0)

def special(path):
    p = Pcap(path)
    x = iter(range(1, 1000))
    data = b"abcd" * 4
    p.rpc(next(x), 19, fh(ROOT), u32(0) + u32(0) + u32(0) * 12)
    p.rpc(next(x), 11, fh(ROOT) + opaque(b"p") + u32(7) + SATTR_NONE, created(1))
    p.rpc(next(x), 7, fh(1) + u64(0) + u32(16) + u32(2) + opaque(data), wres(16))
    p.rpc(next(x), 6, fh(1) + u64(0) + u32(16),
          u32(0) + u32(0) + u32(16) + u32(0) + opaque(data))
    p.rpc(next(x), 8, fh(ROOT) + opaque(b"f") + u32(0) + SATTR_NONE, created(2))
    p.rpc(next(x), 7, fh(2) + u64(0) + u32(16) + u32(2) + opaque(data), wres(16))
    p.rpc(next(x), 15, fh(2) + fh(ROOT) + opaque(b"g"), u32(0) + u32(0) * 3)
    p.rpc(next(x), 3, fh(ROOT) + opaque(b"g"), u32(0) + fh(2) + u32(0) * 2)
    p.rpc(next(x), 7, fh(2) + u64(16) + u32(16) + u32(2) + opaque(data), wres(16))
    p.rpc(next(x), 3, fh(ROOT) + opaque(b"planted"),
          u32(0) + fh(3) + u32(1) + fattr(16) + u32(0))
    p.rpc(next(x), 7, fh(3) + u64(0) + u32(16) + u32(2) + opaque(data), wres(16))
    p.rpc(next(x), 2, fh(3) + u32(1) + u32(0o600) + u32(0) * 5 + u32(0),
          u32(0) + u32(0) * 2)
    p.rpc(next(x), 3, fh(ROOT) + opaque(b"fifo2"), u32(0) + fh(4) + u32(0) * 2)
    p.rpc(next(x), 6, fh(4) + u64(0) + u32(16),
          u32(0) + u32(0) + u32(16) + u32(0) + opaque(data))
    p.rpc(next(x), 11, fh(ROOT) + opaque(b"sock") + u32(6) + SATTR_NONE, created(5))
    p.close()

def sattr(mode=None, uid=None, gid=None, size=None, mtime=None):
    """sattr3: what is given is set; mtime (seconds, nanoseconds) is the client's time"""
    b = b""
    for v in (mode, uid, gid):
        b += u32(0) if v is None else u32(1) + u32(v)
    b += u32(0) if size is None else u32(1) + u64(size)
    b += u32(0)  # atime: unchanged
    b += u32(0) if mtime is None else u32(2) + u32(mtime[0]) + u32(mtime[1])
    return b

def attrs(path):
    p = Pcap(path)
    x = iter(range(1, 1000))
    data = bytes(range(256)) * 16  # more than the 2 KiB of a record the analysis keeps
    p.rpc(next(x), 19, fh(ROOT), u32(0) + u32(0) + u32(0) * 12)
    p.rpc(next(x), 8, fh(ROOT) + opaque(b"f") + u32(1) + sattr(mode=0o600), created(1))
    p.rpc(next(x), 7, fh(1) + u64(0) + u32(4096) + u32(2) + opaque(data), wres(4096))
    p.rpc(next(x), 2, fh(1) + sattr(mode=0o4751, uid=1234, gid=4321) + u32(0),
          u32(0) + u32(0) * 2)
    p.rpc(next(x), 2, fh(1) + sattr(mtime=(1600000000, 123456789)) + u32(0),
          u32(0) + u32(0) * 2)
    p.rpc(next(x), 9, fh(ROOT) + opaque(b"d") + sattr(mode=0o777), created(2))
    p.rpc(next(x), 11, fh(ROOT) + opaque(b"null") + u32(4) + sattr(mode=0o620) + u32(1) + u32(3),
          created(3))
    # a WRITE whose last 600 bytes the snaplen cut
    p.rpc(next(x), 8, fh(ROOT) + opaque(b"cut") + u32(0) + sattr(), created(4))
    p.rpc(next(x), 7, fh(4) + u64(0) + u32(4096) + u32(2) + opaque(data), wres(4096), cut=600)
    p.close()

def renames(path, n, m):
    p = Pcap(path)
    x = iter(range(1, 10 * (n + m) + 10))
    p.rpc(next(x), 19, fh(ROOT), u32(0) + u32(0) + u32(0) * 12)
    p.rpc(next(x), 3, fh(ROOT) + opaque(b"d"), u32(0) + fh(1) + u32(0) * 2)
    for i in range(n):
        p.rpc(next(x), 3, fh(1) + opaque(b"f%d" % i),
              u32(0) + fh(100 + i) + u32(1) + fattr(4096) + u32(0))
    name = b"d"
    for k in range(1, m + 1):
        new = b"d%d" % k
        p.rpc(next(x), 14, fh(ROOT) + opaque(name) + fh(ROOT) + opaque(new), u32(0) + u32(0) * 4)
        name = new
        f = 100 + k % n
        p.rpc(next(x), 6, fh(f) + u64(0) + u32(16),
              u32(0) + u32(0) + u32(16) + u32(0) + opaque(b"\0" * 16))
    p.close()

if __name__ == "__main__":
    if sys.argv[1] == "hostile":
        hostile(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "load":
        a = sys.argv[2:]
        load(a[0], int(a[1]), int(a[2]) if len(a) > 2 else 64, int(a[3]) if len(a) > 3 else 50,
             a[4] if len(a) > 4 else None)
    elif sys.argv[1] == "streams":
        streams(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "attrs":
        attrs(sys.argv[2])
    elif sys.argv[1] == "special":
        special(sys.argv[2])
    elif sys.argv[1] == "renames":
        renames(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit("usage: nfs_v3gen.py hostile OUT OUTSIDE | load OUT CALLS [FILES [GAP_US "
                 "[LIST]]] | streams OUT N | renames OUT N M | special OUT | attrs OUT")
