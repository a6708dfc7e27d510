#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Functions of the product code longer than the limit (120 lines, from the line of its name to
# its closing brace; issue #24 item 5), apart from those allowed below with their reason: a
# protocol's switch over its operations reads best whole. The ones not split yet are listed with
# their length as a ceiling: they may shrink, never grow. Prints every function over the limit
# that is on neither list, one grown past its ceiling, or a listed one no longer long (take it
# off), and exits 1 when there is one.
#   scripts/long-functions.py [SRCDIR] [--all]   (--all: list the allowed and waiting ones too)
import glob
import os
import re
import sys

# FILE:NAME: why it may be long. Only a switch over a protocol's or format's operations, one
# case an operation, belongs here; anything else is split where a reader needs it.
ALLOWED = {
    "formats/nfs4.c:op_args": "NFSv4's switch over its operations' arguments, one case an op",
    "formats/nfs4_reply.c:op_res": "NFSv4's switch over its operations' results, one case an op",
    "formats/nfs_names_txn.c:nfs_names_txn":
        "the switch over the NFS procedures that name, rename or remove a file",
    "replay/nfs_posix.c:run": "the switch over a replayed NFS operation's POSIX calls",
}

# FILE:NAME: lines today. To be split (#24 item 5); a ceiling, so that none grows meanwhile.
# Empty: every long function has been split; kept for one that cannot be split at once.
NOT_YET = {
}

FOLDERS = ["cli", "common", "formats", "analyze", "compare", "report", "movie", "capture",
           "replay", "export", "fioclient", "sweep"]
START = re.compile(r"^[A-Za-z_][\w \*]*?\b(\w+)\(")

LIMIT = 120
show_all = "--all" in sys.argv[1:]
args = [a for a in sys.argv[1:] if a != "--all"]
src = args[0] if args else "."
bad, listed = [], []
for folder in FOLDERS:
    for path in sorted(glob.glob(os.path.join(src, folder, "**", "*.c"), recursive=True)):
        if path.endswith(".bpf.c"):
            continue
        lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
        rel = os.path.relpath(path, src)
        name, first, body = None, 0, False
        for i, line in enumerate(lines):
            m = START.match(line)
            if name is None and m and not line.rstrip().endswith(";") and \
                    not line.startswith(("typedef", "struct", "enum", "union", "#", "static struct")):
                name, first, body = m.group(1), i, False
            elif name is not None and not body and line.startswith("{"):
                body = True
            elif name is not None and not body and line.rstrip().endswith(";"):
                name = None  # a declaration over several lines
            elif name is not None and body and line.startswith("}"):
                n, key = i - first + 1, rel + ":" + name
                if key in ALLOWED or key in NOT_YET:
                    listed.append((n, key))
                    if key in NOT_YET and n > NOT_YET[key]:
                        bad.append(f"{key}(): {n} lines, grown past its {NOT_YET[key]}: split it")
                elif n > LIMIT:
                    bad.append(f"{key}(): {n} lines (more than {LIMIT}): split it where a "
                               "reader needs it, or list it if it is a protocol's switch")
                name = None
seen = {key: n for n, key in listed}
for key in sorted(set(ALLOWED) | set(NOT_YET)):
    if seen.get(key, 0) <= LIMIT:
        bad.append(f"{key}(): listed but not over {LIMIT} lines (or gone): take it off the list")
for line in bad:
    print(line)
if show_all:
    for n, key in sorted(listed, reverse=True):
        print(f"{key}(): {n} lines, {ALLOWED.get(key) or 'not split yet'}")
sys.exit(1 if bad else 0)
