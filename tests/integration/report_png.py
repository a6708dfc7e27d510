#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# report_png.py BLANK.png SHOT.png [NAME=RRGGBB...]: fail unless SHOT has many more colours
# than BLANK and the given colours (default: read blue, write red, first run orange) are
# present. PNG decoded with zlib
# alone (RFC 2083 filters), since the test machine has no imaging library.
import struct, sys, zlib


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "unsupported PNG"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    out = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        out.append(bytes(line))
        prev = line
    cols = {}
    for line in out[::2]:  # every other row is plenty
        for i in range(0, stride, bpp * 2):
            px = line[i:i + 3]
            cols[px] = cols.get(px, 0) + 1
    return cols


blank, shot = pixels(sys.argv[1]), pixels(sys.argv[2])
print(f"colours: blank page {len(blank)}, report {len(shot)}")
if len(shot) < 50 or len(shot) < 10 * len(blank):
    sys.exit("the report screenshot looks blank")


def near(rgb, tol=40):
    return sum(n for px, n in shot.items()
               if all(abs(px[k] - rgb[k]) <= tol for k in range(3)))


# the colours to find: NAME=RRGGBB arguments, else the report's read, write and first run's
# (common/palette.c)
want = [("read blue", (0x1f, 0x77, 0xb4)), ("write red", (0xd6, 0x27, 0x28)),
        ("first run orange", (0xff, 0x7f, 0x0e))]
if len(sys.argv) > 3:
    want = [(a.split("=")[0], tuple(int(a.split("=")[1][i:i + 2], 16) for i in (0, 2, 4)))
            for a in sys.argv[3:]]
for name, rgb in want:
    if near(rgb) < 50:
        sys.exit(f"no {name} pixels in the screenshot")
