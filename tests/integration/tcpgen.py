# SPDX-License-Identifier: MIT
# What the synthetic TCP capture generators share: XDR words, Ethernet/IPv4/TCP frames, the
# pcap file (nanosecond timestamps). Not a test itself.
import struct


def u32(v):
    return struct.pack(">I", v & 0xffffffff)


def opaque(b):
    return u32(len(b)) + b + b"\0" * (-len(b) % 4)


class Capture:
    """Frames in order, each dt_ns after the one before."""

    def __init__(self, dt_ns, t0_ns=1_700_000_000_000_000_000):
        self.frames, self.t, self.dt = [], t0_ns, dt_ns

    def frame(self, src, dst, sport, dport, seq, ack, flags, payload=b""):
        self.t += self.dt
        tcp = struct.pack(">HHIIBBHHH", sport, dport, seq & 0xffffffff, ack & 0xffffffff, 0x50,
                          flags, 65535, 0, 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), 1, 0x4000, 64, 6, 0,
                         src, dst)
        self.frames.append((self.t, b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + tcp +
                            payload))

    def write(self, path):
        with open(path, "wb") as f:
            f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
            for t, d in self.frames:
                f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(d), len(d)))
                f.write(d)
