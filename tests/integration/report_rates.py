#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# report_rates.py ANALYZE.json SVGDIR [ANALYZE.json ...]: the report's rate graphs (MB/s, IOPS,
# seeks/s) against the summary (issue #27 item 3). Each states its interval in its title; the
# interval holds at least 8 IOs on average in every run drawn (so that one IO cannot make a
# peak); no line or envelope holds more than the run's whole total in one interval; the axis
# covers the lines; the offset graph's dots lie whole inside its frame.
import glob, json, re, sys

MIN_IOS = 8
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
SUFFIX = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def ticks(svg):
    """(pixel y, value) of the y axis labels: the text is drawn 4 px below its line."""
    g = re.search(r'<g fill="#333" text-anchor="end">(.*?)</g>', svg, re.S).group(1)
    out = []
    for y, lab in re.findall(r'<text x="\d+" y="([\d.]+)">([^<]*)</text>', g):
        m = re.fullmatch(r"(-?[\d.e+-]+)\s*([kMGT]?)", lab.strip())
        assert m, f"tick label {lab!r}"
        out.append((float(y) - 4, float(m.group(1)) * SUFFIX[m.group(2)]))
    assert len(out) >= 2, out
    return out


def values(svg):
    """Every plotted y value (lines, single points and envelopes) and the lines' alone."""
    (y0, v0), (y1, v1) = ticks(svg)[0], ticks(svg)[-1]
    to_v = lambda y: v0 + (y - y0) * (v1 - v0) / (y1 - y0)
    lines, env = [], []
    for pts in re.findall(r'<polyline [^>]*points="([^"]*)"', svg):
        lines += [to_v(float(p.split(",")[1])) for p in pts.split()]
    lines += [to_v(float(y)) for y in re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', svg)]
    for pts in re.findall(r'<polygon [^>]*points="([^"]*)"', svg):
        env += [to_v(float(p.split(",")[1])) for p in pts.split()]
    return lines, env, max(v for _, v in ticks(svg))


def main():
    runs = [json.load(open(a)) for a in sys.argv[1::2]]
    dirs = sys.argv[2::2]
    for doc, d in zip(runs, dirs):
        span = doc["span_ns"] / 1e9
        dev = doc["devices"][0]
        ios = dev["reads"]["ios"] + dev["writes"]["ios"]
        total = {"mbps": dev["reads"]["bytes"] + dev["writes"]["bytes"], "iops": ios,
                 "seeks": dev["seeks"]["count"] if isinstance(dev.get("seeks"), dict) else ios}
        for key in ("mbps", "iops", "seeks"):
            f = glob.glob(f"{d}/*-{key}.svg")
            assert len(f) == 1, (d, key, f)
            svg = open(f[0]).read()
            title = re.search(r"<title>([^<]*)</title>", svg).group(1)
            m = re.search(r"per ([\d.]+) (ns|us|ms|s) interval", title)
            assert m, f"{f[0]}: no interval in the title {title!r}"
            width = float(m.group(1)) * UNIT[m.group(2)]
            # the title rounds to 3 digits
            assert width * 1.01 * ios >= MIN_IOS * span, \
                f"{f[0]}: {width} s intervals hold {width * ios / span:.2f} IOs on average"
            ylab = re.search(r'transform="rotate\(-90[^"]*"[^>]*>([^<]*)<', svg).group(1)
            scale = {"MB/s": 1e6, "MiB/s": 1048576.0}.get(ylab, 1.0)
            lines, env, axis = values(svg)
            peak = max(lines + env)
            # one interval cannot hold more than the run did in all
            assert peak * scale * width <= total[key] * 1.02 + 1e-9, \
                f"{f[0]}: peak {peak} {ylab} over {width} s exceeds the total {total[key]}"
            assert max(lines) <= axis * 1.0001, f"{f[0]}: lines above the axis ({axis})"
        off = open(sorted(glob.glob(f"{d}/*-offset*.svg"))[0]).read()
        fx, fy, fw, fh = map(float, re.search(
            r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" '
            r'fill="none" stroke="#999"/>', off).groups())
        dots = re.findall(r'<rect (?:class="dot" )?x="([\d.]+)" y="([\d.]+)" width="3" '
                          r'height="3"', off)
        assert dots or "<image " in off, "neither dots nor an image on the offset graph"
        for x, y in dots:
            x, y = float(x), float(y)
            assert fx < x and x + 3 < fx + fw and fy < y and y + 3 < fy + fh, \
                f"dot at {x},{y} not inside the frame {fx},{fy} {fw}x{fh}"
    print("report_rates.py: ok")


main()
