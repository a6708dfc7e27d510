#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the hand-made `iotape analyze --json` summaries the compare golden tests read.
# The numbers are invented (two distros x two filesystems x two runs) and say so.
import json, os

here = os.path.dirname(os.path.abspath(__file__))
# (distro, fs, run): bytes read/written (MB), ios, d2c p50/p99 us, idle ms, longest gap ms,
# seeks, sequential %, NFSv3 READ srt mean ms
table = [
    ("debian12", "ext4", 1, 400, 100000, 210, 1900, 120, 45, 5000, 80.0, 1.10),
    ("debian12", "ext4", 2, 410, 102000, 205, 2000, 110, 40, 5100, 79.5, 1.20),
    ("debian12", "xfs", 1, 380, 95000, 220, 2400, 150, 60, 5500, 77.0, 1.30),
    ("debian12", "xfs", 2, 376, 94000, 230, 2500, 160, 62, 5600, 76.5, 1.25),
    ("ubuntu24", "ext4", 1, 430, 107000, 200, 1800, 100, 38, 4900, 81.0, 1.00),
    ("ubuntu24", "ext4", 2, 426, 106500, 198, 1850, 95, 36, 4950, 81.5, 1.05),
    ("ubuntu24", "xfs", 1, 300, 75000, 260, 3100, 300, 120, 6000, 70.0, 1.60),
    ("ubuntu24", "xfs", 2, 310, 77000, 255, 3000, 280, 110, 6100, 70.5, 1.55),
]
for distro, fs, run, mb, ios, p50, p99, idle, gap, seeks, seq, srt in table:
    span = 10_000_000_000  # 10 s
    d = {
        "span_ns": span,
        "manifest": {"kernel": "6.1.0", "distro": distro,
                     "devices": [{"name": "sdb", "filesystems": [{"type": fs}]}]},
        "devices": [{
            "dev": "8,16",
            "reads": {"ios": ios // 4, "bytes": mb * 250_000},
            "writes": {"ios": ios - ios // 4, "bytes": mb * 750_000},
            "throughput": {"mbps": (mb * 250_000 + mb * 750_000) / span * 1e3,
                           "iops": ios / span * 1e9},
            "latency_ns": {"d2c": {"count": ios, "mean": p50 * 1100, "p50": p50 * 1000,
                                   "p90": p99 * 600, "p99": p99 * 1000, "min": 50000,
                                   "max": p99 * 3000}},
            "idle": {"threshold_ns": 10_000_000, "gaps": 7, "total_ns": idle * 1_000_000,
                     "pct": idle * 1e6 / span * 100,
                     "longest": [{"start_ns": 1_000_000, "duration_ns": gap * 1_000_000}]},
            "seeks": {"count": seeks, "sequential_pct": seq, "per_sec": seeks / 10},
        }],
        "nfs": {"procedures": [{"version": 3, "name": "READ", "calls": 1000, "errors": 0,
                                "bytes": 4096000,
                                "srt_ns": {"count": 1000, "mean": srt * 1e6, "p50": srt * 1e6,
                                           "p99": srt * 3e6, "max": srt * 9e6}}]},
    }
    with open(os.path.join(here, "runs", f"{distro}-{fs}-{run}.json"), "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
