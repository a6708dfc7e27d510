#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An export killed mid-stream (SIGKILL: no handler runs) leaves no partial file under an
# output's name: the fio iologs, like -o FILE of csv and blkparse, are written beside their
# place and renamed in at the end, and what was there before stays whole. The trace comes
# through a FIFO that is held open after a large head of it, so the export is caught while it
# streams (its output written, the input not ended), whatever the machine's speed.
source "$SRCDIR/tests/integration/lib.bash"
need_cmd python3
cd "$TMP"

# a v3 iolog of two devices (dev0_1, dev0_2), 400 000 IOs each (24 MB, far more than an output's buffer)
python3 - <<'PY' >big.iolog
import sys
out = ["fio version 3 iolog", "1 /dev/a add", "1 /dev/b add", "1 /dev/a open", "1 /dev/b open"]
for i in range(400000):
    out.append("%d /dev/a read %d 4096" % (i + 2, i * 4096))
    out.append("%d /dev/b write %d 8192" % (i + 2, i * 8192))
sys.stdout.write("\n".join(out) + "\n")
PY

# killed WHAT OUTDIR EXPORT-ARGS...: export the trace's first 20 MB from a FIFO held open,
# wait until OUTDIR holds written bytes, SIGKILL the export; then no file but the old ones may
# be under OUTDIR's visible names, and those must be unchanged
killed() {
	local what=$1 dir=$2 pid n=0
	shift 2
	rm -f in.fifo
	mkfifo in.fifo
	"$IOTAPE" export - "$@" <in.fifo >/dev/null 2>"$what.err" &
	pid=$!
	cleanup_hooks+=("kill -9 $pid 2>/dev/null")
	exec 3>in.fifo
	head -c 20000000 big.iolog >&3 || true
	# the export has written when a file under dir (its temporary, or the output itself) has
	# bytes; it cannot end, since the FIFO stays open
	until [ -n "$(find "$dir" -type f -size +0 2>/dev/null)" ]; do
		kill -0 "$pid" 2>/dev/null || { exec 3>&-; cat "$what.err" >&2; fail "$what: the export ended"; }
		n=$((n + 1))
		[ "$n" -lt 1200 ] || { exec 3>&-; fail "$what: nothing written in 120 s"; }
		sleep 0.1
	done
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	exec 3>&-
	find "$dir" -type f ! -name '.*' | sort >"$what.left"
}

# fio-iologs into a new directory: no log, no job file under its name
mkdir logs
killed iolog logs -f fio-iolog -o logs
expect_eq "iolog: files under their names" "$(cat iolog.left)" ""
# ... and into one holding an earlier export: its files stay as they were
"$IOTAPE" export big.iolog -f fio-iolog -o logs >/dev/null || fail "a whole export"
(cd logs && md5sum dev0_1.iolog dev0_2.iolog replay.fio) >before.md5
killed iolog2 logs -f fio-iolog -o logs
(cd logs && md5sum -c --quiet ../before.md5) || fail "iolog: an earlier export's files changed"
expect_eq "iolog: files" "$(cat iolog2.left)" "logs/dev0_1.iolog
logs/dev0_2.iolog
logs/replay.fio"

# csv -o FILE: none left, or the old one whole
mkdir csv
killed csv csv -f csv -o csv/out.csv
expect_eq "csv: files under their names" "$(cat csv.left)" ""
echo old >csv/out.csv
killed csv2 csv -f csv -o csv/out.csv
expect_eq "csv: the old file" "$(cat csv/out.csv)" "old"
echo "PASS"
