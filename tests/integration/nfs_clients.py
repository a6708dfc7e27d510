# SPDX-License-Identifier: MIT
# Compare `iotape analyze --json --top N` per-client figures and slowest calls with tshark's.
# usage: python3 nfs_clients.py IOTAPE.json CALLS.tsv REPLIES.tsv CONV.txt
#   CALLS.tsv:   tshark -T fields -e tcp.srcport -e rpc.xid -e rpc.auth.uid -e rpc.auth.gid
#                -e rpc.auth.machinename   (NFS calls; several RPCs in a frame: comma lists)
#   REPLIES.tsv: tshark -T fields -e tcp.dstport -e rpc.xid -e rpc.time   (NFS replies)
#   CONV.txt:    tshark -q -z conv,tcp
# Per connection (client port), per uid/gid and per machine name: calls and replies equal,
# mean response time within 1 us; the connections are those tshark lists; the slowest calls'
# response times are the top of tshark's rpc.time.
import json
import re
import sys

doc = json.load(open(sys.argv[1]))["nfs"]
bad = []


def split(line):
    cols = line.rstrip("\n").split("\t")
    return [c.split(",") if c else [] for c in cols]


calls = {}  # (port, xid) -> (uid, gid, machine)
for line in open(sys.argv[2]):
    port, xids, uids, gids, machines = split(line)
    for i, x in enumerate(xids):
        key = (int(port[0]), int(x, 16))
        calls[key] = (int(uids[i]), int(gids[i]), machines[i]) if i < len(uids) else None
replies = {}  # (port, xid) -> srt seconds
for line in open(sys.argv[3]):
    port, xids, times = split(line)
    for i, x in enumerate(xids):
        if i < len(times):
            replies[(int(port[0]), int(x, 16))] = float(times[i])


def group(keyfn):
    g = {}
    for k, cred in calls.items():
        e = g.setdefault(keyfn(k, cred), [0, 0, 0.0])
        e[0] += 1
        if k in replies:
            e[1] += 1
            e[2] += replies[k]
    return g


def check(name, theirs, ours):
    if set(theirs) != set(ours):
        bad.append("%s: clients %s, tshark %s" % (name, sorted(ours), sorted(theirs)))
        return
    for k, (n, r, s) in theirs.items():
        c = ours[k]
        mean = c["srt_ns"]["mean"] / 1e9
        if c["calls"] != n or c["replies"] != r or abs(mean - s / max(r, 1)) > 1.0005e-6:
            bad.append("%s %s: calls %d replies %d mean %.9f; tshark %d %d %.9f" %
                       (name, k, c["calls"], c["replies"], mean, n, r, s / max(r, 1)))
        print("%-13s %-22s calls %5d replies %5d mean %.6f s  (tshark %5d %5d %.6f s)" %
              (name, k, c["calls"], c["replies"], mean, n, r, s / max(r, 1)))


cl = doc["clients"]
check("connection", group(lambda k, c: k[0]),
      {c["port"]: c for c in cl["by_connection"]})
check("uid", group(lambda k, c: (c[0], c[1])),
      {(c["uid"], c["gid"]): c for c in cl["by_uid"]})
check("machine", group(lambda k, c: c[2]), {c["machine"]: c for c in cl["by_machine"]})

# the connections tshark's conversation table lists, NFS ones (the server's port 2049)
conv = set()
for line in open(sys.argv[4]):
    m = re.match(r"\s*[\d.]+:(\d+)\s+<->\s+[\d.]+:(\d+)\s", line)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        if b == 2049:
            conv.add(a)
        elif a == 2049:
            conv.add(b)
ours = {c["port"] for c in cl["by_connection"]}
if not ours <= conv:
    bad.append("connections %s not all in tshark's conv,tcp %s" % (sorted(ours), sorted(conv)))

# the slowest calls: the top of tshark's rpc.time, in order
top = sorted(replies.values(), reverse=True)[:len(doc["slowest"])]
mine = [s["srt_ns"] / 1e9 for s in doc["slowest"]]
if len(mine) < 10 or any(abs(a - b) > 1e-9 for a, b in zip(mine, top)):
    bad.append("slowest %s, tshark %s" % (mine[:10], top[:10]))
for s in doc["slowest"][:3]:
    print("slow %.6f s xid 0x%08x %s %s" % (s["srt_ns"] / 1e9, s["xid"], s["name"],
                                            s.get("file", "")))
    if replies.get((s["client_port"], s["xid"])) is None or \
            abs(replies[(s["client_port"], s["xid"])] - s["srt_ns"] / 1e9) > 1e-9:
        bad.append("slowest call xid 0x%08x is not tshark's" % s["xid"])
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
