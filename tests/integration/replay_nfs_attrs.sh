# SPDX-License-Identifier: MIT
# NFS replay sets what the workload set and writes what it wrote (#28 items 1 and 2), on a
# synthetic NFSv3 capture (nfs_v3gen.py attrs), as root under umask 022: a mode a SETATTR sets
# (glibc 2.36's fchmodat refused it: every SETATTR of a mode diverged), the owner, group and
# mtime it sets, the exact modes of what CREATE, MKDIR and MKNOD made (a character device,
# with its numbers), the WRITE's payload as captured, and where the snaplen cut a payload,
# the captured part and a pattern for the rest, counted. A replay that diverges exits 1 and
# lists the divergences; --allow-divergence exits 0.
source "$SRCDIR/tests/integration/lib.bash"
need_root

python3 "$SRCDIR/tests/integration/nfs_v3gen.py" attrs "$TMP/a.pcap"
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 16)' >"$TMP/data"
mkdir "$TMP/t"
umask 022
"$IOTAPE" replay --timing afap --json "$TMP/a.pcap" --target "$TMP/t" >"$TMP/r.json" \
	2>"$TMP/err" || fail "replay failed: $(cat "$TMP/err")"
python3 - "$TMP/r.json" <<'PY' || fail "counts"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["replay"]
assert r["diverged"] == 0 and r["errors"] == 0 and r["owners_not_set"] == 0, r
c = d["capture"]
assert c["write_payloads_cut"] == 1 and c["write_payload_bytes_missing"] == 600, c
PY
expect_eq "f" "$(stat -c '%a %u:%g %s %Y' "$TMP/t/f")" "4751 1234:4321 4096 1600000000"
expect_eq "f's mtime" "$(stat -c '%y' "$TMP/t/f")" "2020-09-13 12:26:40.123456789 +0000"
cmp "$TMP/data" "$TMP/t/f" || fail "f's content is not the capture's"
expect_eq "d" "$(stat -c '%a %F' "$TMP/t/d")" "777 directory"
expect_eq "null" "$(stat -c '%a %F %t,%T' "$TMP/t/null")" "620 character special file 1,3"
expect_eq "cut's size" "$(stat -c %s "$TMP/t/cut")" 4096
cmp -n 3496 "$TMP/data" "$TMP/t/cut" || fail "cut: the captured part differs"
cmp -s "$TMP/data" "$TMP/t/cut" && fail "cut: a pattern is not where the payload was cut"

# a replay that diverges: onto a target where f is a directory (its CREATE, GUARDED, and a
# WRITE fail)
mkdir "$TMP/t2" "$TMP/t2/f"
rc=0
"$IOTAPE" replay --timing afap --force --no-prepare "$TMP/a.pcap" --target "$TMP/t2" \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
expect_eq "exit status of a divergent replay" "$rc" 1
grep -q "ended otherwise than in the capture" "$TMP/err" || fail "no message: $(cat "$TMP/err")"
grep -Eq "v3 WRITE +capture NFS_OK +replay ISDIR +1$" "$TMP/out" ||
	fail "divergences not listed by procedure and status: $(cat "$TMP/out")"
rm -rf "$TMP/t2" && mkdir "$TMP/t2" "$TMP/t2/f"
"$IOTAPE" replay --timing afap --force --no-prepare --allow-divergence "$TMP/a.pcap" \
	--target "$TMP/t2" >/dev/null 2>&1 || fail "--allow-divergence: not 0"
echo ok
