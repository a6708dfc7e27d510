# SPDX-License-Identifier: MIT
# NFS replay --capture (#13): a synthetic NFSv3 capture (nfs_v3gen.py load: files created,
# written, committed, read, truncated, renamed, removed) replayed onto a directory
# on an ext4 loop device while the device is traced: the capture is a run directory of that
# device (blkparse and analyze read it), the replay's writes are in it, and tracing is off
# afterwards; --record beside it.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"

python3 "$SRCDIR/tests/integration/nfs_v3gen.py" load "$TMP/w.pcap" 3000 16
make_loop 256M
make_fs ext4
mkdir "$MNT/r"
"$IOTAPE" replay --timing afap --json "$TMP/w.pcap" --target "$MNT/r" --capture "$TMP/cap" \
	--record "$TMP/rec" >"$TMP/r.json" 2>"$TMP/err" || fail "replay failed: $(cat "$TMP/err")"
tracing_is_off
python3 - "$TMP/r.json" <<'PY' || fail "replay counts"
import json, sys
r = json.load(open(sys.argv[1]))["replay"]
assert r["calls"] == 3000 and r["diverged"] == 0 and r["refused"] == 0, r
PY
ls "$TMP/cap/$LOOPNAME.blktrace."* >/dev/null || fail "no trace of $LOOPNAME in the capture"
blkparse -i "$TMP/cap/$LOOPNAME" -d /dev/null >/dev/null || fail "blkparse cannot read it"
"$IOTAPE" analyze --json "$TMP/cap" >"$TMP/cap.json" || fail "analyze cannot read it"
python3 - "$TMP/cap.json" "$TMP/cap/manifest.json" <<'PY' || fail "the capture"
import json, sys
d = json.load(open(sys.argv[1]))
m = json.load(open(sys.argv[2]))
assert m["state"] in ("complete", "interrupted"), m["state"]  # stopped by the replay
dev = d["devices"][0]
assert dev["writes"]["bytes"] > 0, dev["writes"]
PY
"$IOTAPE" analyze "$TMP/rec" >"$TMP/rec.txt" || fail "analyze of the record failed"
grep -q WRITE "$TMP/rec.txt" || fail "the record has no WRITE"
# a target with no block device under it
mkdir "$TMP/tmpfs"
mount -t tmpfs iotape-test "$TMP/tmpfs"
cleanup_hooks+=("umount '$TMP/tmpfs'")
if "$IOTAPE" replay --timing afap "$TMP/w.pcap" --target "$TMP/tmpfs" --capture "$TMP/cap2" \
	>/dev/null 2>"$TMP/err"; then
	fail "--capture of a tmpfs target"
fi
grep -q "no block device" "$TMP/err" || fail "no reason: $(cat "$TMP/err")"
echo ok
