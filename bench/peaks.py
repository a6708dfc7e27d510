#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# bench/peaks.py OUT ERR CMD...: run CMD (standard output to OUT, error to ERR) and print
# "wall_s cpu_s top_kib child_kib": wall time, CPU time (user + system, children it waited for
# included), the peak RSS of CMD's own process, and the largest peak RSS among its descendants
# (an encoder it runs; VmHWM read every 20 ms, so a child living less than that may be missed).
# GNU time's %M is the largest of all of them, not each; this says whose it is. Exit status:
# CMD's.
import os
import sys
import time


def hwm(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{t}/children") as f:
                    kids = [int(c) for c in f.read().split()]
                out += kids
                todo += kids
        except OSError:
            pass
    return out


def main():
    out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    t0 = time.monotonic()
    with open(out, "wb") as o, open(err, "wb") as e:
        pid = os.fork()
        if pid == 0:
            os.dup2(o.fileno(), 1)
            os.dup2(e.fileno(), 2)
            try:
                os.execvp(cmd[0], cmd)
            finally:
                os._exit(127)
    top = child = 0
    while True:
        r, status, ru = os.wait4(pid, os.WNOHANG)
        if r == pid:
            break
        top = max(top, hwm(pid))
        for c in descendants(pid):
            child = max(child, hwm(c))
        time.sleep(0.02)
    wall = time.monotonic() - t0
    if not top:  # ended before the first look: the kernel's figure for the largest process
        top = ru.ru_maxrss
    print(f"{wall:.2f} {ru.ru_utime + ru.ru_stime:.2f} {top} {child}")
    sys.exit(os.waitstatus_to_exitcode(status))


main()
