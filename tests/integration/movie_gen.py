#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# movie_gen.py PREFIX: a block trace with a known shape for tests/integration/movie.sh (synthetic).
# Device 8,16, sectors 0 .. 1,000,000 (one IO at each end fixes the axis):
#   0.0 - 1.0 s   writes, one every 2 ms, in the top quarter (sectors 750,000 .. 999,992)
#   1.0 - 3.0 s   nothing: one idle gap of about 2 s
#   3.0 - 4.0 s   reads, one every 2 ms, in the bottom quarter (sectors 0 .. 249,992)
# Each IO is Q, D and C 100 us later, 8 sectors. Not a test itself.
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_oracle import mkdev, write_set  # noqa: E402

MS = 1000000
DEV = mkdev(8, 16)


def io(ev, t, sector, write):
    for kind, dt in (('Q', 0), ('D', 1000), ('C', 100000)):
        ev.append((t + dt, 0, kind, write, sector, 8, 1000, DEV))


def main():
    rnd = random.Random(18)
    ev = []
    io(ev, 0, 0, True)
    io(ev, 200000, 1000000 - 8, True)
    for t in range(2 * MS, 1000 * MS, 2 * MS):
        io(ev, t, rnd.randrange(750000, 1000000 - 8), True)
    for t in range(3000 * MS, 4000 * MS, 2 * MS):
        io(ev, t, rnd.randrange(0, 250000 - 8), False)
    write_set(sys.argv[1], ev, 1)


main()
