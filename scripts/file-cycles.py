#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Files of one library or of the iotape executable that call each other, found from a build's
# object files (nm): a file defining a symbol another file of the same target uses depends on it;
# a cycle is a set of files that all depend on each other. Prints the cycles and exits 1 when
# there are some.
#   scripts/file-cycles.py [BUILD_DIR] [TARGET...]
# (default: build, every iotape_* library and the iotape executable, whose files are cli/'s)
import collections
import glob
import os
import subprocess
import sys

build = sys.argv[1] if len(sys.argv) > 1 else "build"
src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
libs = set(sys.argv[2:])
defs, uses = {}, collections.defaultdict(set)
objs = glob.glob(build + "/CMakeFiles/iotape_*.dir/**/*.o", recursive=True)
objs += glob.glob(build + "/CMakeFiles/iotape.dir/**/*.o", recursive=True)
for o in objs:
    lib = o.split("CMakeFiles/")[1].split(".dir")[0]
    if libs and lib not in libs:
        continue
    name = (lib, o.split(".dir/")[1].replace("__/", "").replace(".c.o", ".c"))
    # an incremental build keeps the objects of deleted sources; they are not linked
    if not os.path.exists(os.path.join(src, name[1])):
        continue
    for line in subprocess.run(["nm", o], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRC":
            defs[f[2]] = name
        elif len(f) == 2 and f[0] == "U":
            uses[name].add(f[1])
graph = {k: {defs[s] for s in v if s in defs and defs[s] != k and defs[s][0] == k[0]}
         for k, v in uses.items()}
# Tarjan's strongly connected components
index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in graph.get(v, ()):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            cycles.append(comp)


sys.setrecursionlimit(10000)
for v in list(graph):
    if v not in index:
        visit(v)
for c in cycles:
    print("%s: %s" % (c[0][0], " <-> ".join(sorted(f for _, f in c))))
sys.exit(1 if cycles else 0)
