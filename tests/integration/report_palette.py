#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# report_palette.py SVGDIR...: the palette's rules on every graph (issue #27 item 2). In each
# chart every legend entry has its own swatch (colour and dash); everything drawn as data
# (lines, points, envelopes, dots, swatches) has colour; idle shading is neutral grey, as a
# fill or as the lines of a hatching pattern, and never one of the chart's data colours.
import glob, re, sys


def chroma(hexcol):
    v = [int(hexcol[i:i + 2], 16) for i in (1, 3, 5)]
    return max(v) - min(v)


def norm(c):
    c = c.lower()
    if re.fullmatch(r"#[0-9a-f]{3}", c):
        c = "#" + "".join(ch * 2 for ch in c[1:])
    return c


def attrs(tag):
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag))


def check(path):
    svg = open(path).read()
    bad = []
    # the legend: swatches drawn in the top margin
    sw = []
    for tag in re.findall(r'<(?:rect|line) class="swatch"[^>]*>', svg):
        a = attrs(tag)
        sw.append((norm(a.get("fill") or a.get("stroke")), a.get("stroke-dasharray", "")))
    sw += [(norm(attrs(t)["fill"]), "") for t in re.findall(
        r'<rect x="[\d.]+" y="8" width="10" height="10" fill="[^"]*"/>', svg)]
    if len(set(sw)) != len(sw):
        bad.append(f"legend swatches not distinct: {sw}")
    data = set(c for c, _ in sw)
    for tag in re.findall(r'<(?:polyline|polygon|circle)[^>]*>', svg):
        a = attrs(tag)
        c = a.get("stroke") if a.get("fill") in (None, "none") else a.get("fill")
        data.add(norm(c))
    for tag in re.findall(r'<rect class="dot"[^>]*>', svg):
        data.add(norm(attrs(tag)["fill"]))
    for c in data:
        if chroma(c) < 32:
            bad.append(f"data drawn in a grey: {c}")
    patterns = {}
    for pid, body in re.findall(r'<pattern id="([^"]*)"[^>]*>(.*?)</pattern>', svg, re.S):
        patterns[pid] = [norm(attrs(t).get("stroke", "#000")) for t in
                         re.findall(r"<line[^>]*>", body)]
    for tag in re.findall(r'<rect [^>]*class="idle(?:-gap)?"[^>]*>', svg):
        fill = attrs(tag)["fill"]
        m = re.fullmatch(r"url\(#([^)]*)\)", fill)
        cols = patterns.get(m.group(1), ["?"]) if m else [norm(fill)]
        for c in cols:
            if c == "?" or chroma(c) > 8 or c in data:
                bad.append(f"idle shading {fill} ({c}) is not a neutral grey apart from the data")
                break
    return bad


files = [f for d in sys.argv[1:] for f in sorted(glob.glob(f"{d}/*.svg"))]
assert files, "no graphs"
fails = [f"{f}: {b}" for f in files for b in check(f)]
if fails:
    sys.exit("\n".join(sorted(set(fails))[:20]))
print(f"report_palette.py: {len(files)} graphs ok")
