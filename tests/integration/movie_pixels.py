#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# movie_pixels.py FRAME.rgb WIDTH HEIGHT LAYOUT.json PANEL CHECK: pixel checks on one frame
# of a movie (raw RGB24, as `ffmpeg -f rawvideo -pix_fmt rgb24` writes it), inside the offset
# plot of panel PANEL's first device (from tests/tools/movielayout). CHECK is one of
#   idle          the plot is mostly the idle band, with no IO points at all
#   writes-top    write points in the top quarter of the offset axis, none below the middle,
#                 no reads, not marked idle
#   reads-bottom  read points in the bottom quarter, none above the middle, no writes
#   some-io       IO points (at least 20 pixels, reads or writes)
#   no-io         no IO points at all (a run set's host before its start)
# The colours are iotape movie's (movie/draw.c), after 4:2:0 encoding: loose bounds.
import json
import sys


def is_write(p):
    r, g, b = p
    return r > 150 and g < 150 and b < 150 and r - b > 70


def is_read(p):
    r, g, b = p
    return b > 150 and r < 150 and b - r > 60


def is_idle(p):
    # the palette's neutral grey (common/palette.h) over the dark plot: grey, a little blue
    r, g, b = p
    return 45 <= r <= 100 and 45 <= g <= 100 and 50 <= b <= 105 and max(p) - min(p) <= 16


def main():
    path, w, h, layout, panel, check = sys.argv[1:7]
    w, h, panel = int(w), int(h), int(panel)
    data = open(path, 'rb').read()
    assert len(data) == w * h * 3, f"{path}: {len(data)} bytes, not {w}x{h} RGB24"
    x0, y0, pw, ph = json.load(open(layout))['panels'][panel]['devices'][0]['plot']
    # inside the border, above the time labels of the bottom corners
    inset, label = 3, 16
    counts = {'write': [0] * 4, 'read': [0] * 4, 'idle': 0, 'all': 0}
    for y in range(y0 + inset, y0 + ph - label):
        band = min(3, (y - y0) * 4 // ph)  # quarters of the offset axis, top first
        for x in range(x0 + inset, x0 + pw - inset):
            i = (y * w + x) * 3
            p = data[i], data[i + 1], data[i + 2]
            counts['all'] += 1
            if is_write(p):
                counts['write'][band] += 1
            elif is_read(p):
                counts['read'][band] += 1
            elif is_idle(p):
                counts['idle'] += 1
    print(f"{check}: panel {panel} plot {x0},{y0} {pw}x{ph}: {counts}")
    fail = []
    wr, rd = counts['write'], counts['read']
    if check == 'idle':
        if sum(wr) + sum(rd):
            fail.append('IO points inside an idle gap')
        if counts['idle'] < 0.6 * counts['all']:
            fail.append('the idle band does not cover the plot')
    elif check == 'writes-top':
        if wr[0] < 20:
            fail.append('no write points in the top quarter')
        if wr[2] + wr[3]:
            fail.append('write points below the middle')
        if sum(rd):
            fail.append('read points in a write burst')
        if counts['idle'] > 0.3 * counts['all']:
            fail.append('a busy window marked idle')
    elif check == 'reads-bottom':
        if rd[3] < 20:
            fail.append('no read points in the bottom quarter')
        if rd[0] + rd[1]:
            fail.append('read points above the middle')
        if sum(wr):
            fail.append('write points in a read burst')
    elif check == 'some-io':
        if sum(wr) + sum(rd) < 20:
            fail.append('no IO points')
    elif check == 'no-io':
        if sum(wr) + sum(rd):
            fail.append('IO points')
    else:
        fail.append(f'unknown check {check}')
    if fail:
        sys.exit('FAIL: ' + '; '.join(fail))


main()
