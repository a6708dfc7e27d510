# SPDX-License-Identifier: MIT
# Compare `iotape analyze --json` NFS procedures with `tshark -q -z rpc,srt,100003,V`.
# usage: python3 nfs_compare.py IOTAPE.json TSHARK.txt VERSION(3|4) [--unanswered-ok]
# Exit 1 with a message on any difference: call counts must be equal, mean SRT within 1 us.
# tshark's table counts answered calls only; with --unanswered-ok (captures with gaps, where a
# reply may be missing) iotape's calls may exceed its replies, which must equal tshark's.
import json
import re
import sys

doc = json.load(open(sys.argv[1]))
nfs = doc["nfs"] if "nfs" in doc else doc
vers = sys.argv[3]
unanswered_ok = "--unanswered-ok" in sys.argv[4:]
tshark = {}
in_table = False
for line in open(sys.argv[2]):
    if line.startswith("Filter:"):
        in_table = line.strip().endswith("nfs.procedure_v" + vers)
        continue
    m = re.match(r"\s*\d+\s+(\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
    if in_table and m:
        tshark[m.group(1)] = (int(m.group(2)), float(m.group(5)), float(m.group(6)))

mine = {}  # name -> [calls, replies, srt sum ns]
for p in nfs["procedures"]:
    if p["program"] != "NFS" or not p["version"].startswith(vers):
        continue
    if vers == "4":
        name = "NULL" if p["name"] == "NULL" and p["kind"] == "procedure" else "COMPOUND"
    else:
        name = p["name"]
    m = mine.setdefault(name, [0, 0, 0.0])
    m[0] += p["calls"]
    m[1] += p["srt_ns"]["count"]
    m[2] += p["srt_ns"]["sum"]

bad = []
for name in sorted(set(tshark) | set(mine)):
    t = tshark.get(name, (0, 0.0, 0.0))
    m = mine.get(name, [0, 0, 0.0])
    if t[0] != m[1] or (t[0] != m[0] and not (unanswered_ok and m[0] > m[1])):
        bad.append("%s: calls %d (replied %d), tshark %d" % (name, m[0], m[1], t[0]))
        continue
    if m[1]:
        mean = m[2] / m[1] / 1e9
        if abs(mean - t[1]) > 1.0005e-6:
            bad.append("%s: mean %.9f s, tshark %.6f s" % (name, mean, t[1]))
    print("v%s %-12s calls %6d  mean srt %.6f s  tshark %6d %.6f s" %
          (vers, name, m[0], m[2] / m[1] / 1e9 if m[1] else 0, t[0], t[1]))
if not tshark:
    bad.append("tshark reported no NFSv%s procedures" % vers)
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
