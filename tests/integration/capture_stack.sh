#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape capture discovers what each traced device is part of, on the stacks this machine can
# build from loop devices (../../shared/ENVIRONMENT.md "Block devices"): partitions (partx), ext4
# with an external journal, xfs with an external log, btrfs raid1 over two devices, a loop
# device over a file on another loop device's filesystem, and a Ceph OSD's data directory
# (a filestore layout made by hand: whoami, type, fsid, a journal link). The manifest records
# each device's role and group, and its key: -d NAME=DEV's name, a link given as the path, or
# the loop device's backing file. No Ceph needed (tests/integration/ceph_osd.sh runs one).
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/capture_lib.bash"
need_cmd partx
need_cmd sfdisk
need_cmd mkfs.xfs
need_cmd mkfs.btrfs
need_cmd mke2fs

LOOPS=()
MOUNTS=()
stack_cleanup() {
	local i
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}" || true
	done
	for ((i = ${#LOOPS[@]} - 1; i >= 0; i--)); do
		partx -d "${LOOPS[i]}" 2>/dev/null || true
		losetup -d "${LOOPS[i]}" || true
	done
}
cleanup_hooks+=(stack_cleanup)

# loop NAME SIZE [DIR]: a loop device over DIR/NAME.img (default $TMP), its path in $L
loop() {
	truncate -s "$2" "${3:-$TMP}/$1.img"
	L=$(losetup -f --show "${3:-$TMP}/$1.img") || skip "losetup -f failed: no free loop device"
	LOOPS+=("$L")
}
mnt() { mkdir -p "$2" && mount "${@:3}" "$1" "$2" && MOUNTS+=("$2"); }

# partitions: the kernel does not read a loop device's table itself
loop part 64M
PART=$L
printf 'label: gpt\n,24M\n,\n' | sfdisk -q "$PART" >/dev/null 2>&1 || true
partx -a "$PART"
P1=${PART}p1
[ -b "$P1" ] || fail "no $P1 after partx -a"

# ext4 with its journal on a device of its own
loop ext4 128M
E=$L
loop ext4j 64M
EJ=$L
mke2fs -q -O journal_dev -b 4096 "$EJ"
mkfs.ext4 -q -b 4096 -J device="$EJ" "$E"
mnt "$E" "$TMP/e"

# xfs with an external log (at least 64 MiB)
loop xfs 512M
X=$L
loop xfslog 80M
XL=$L
mkfs.xfs -q -f -l logdev="$XL",size=64m "$X"
mnt "$X" "$TMP/x" -o logdev="$XL"

# a loop device over a file on the xfs
loop inner 32M "$TMP/x"
IN=$L

# btrfs raid1 over two devices
loop b1 256M
B1=$L
loop b2 256M
B2=$L
mkfs.btrfs -q -f -d raid1 -m raid1 "$B1" "$B2" >/dev/null
mnt "$B1" "$TMP/b"

# a filestore OSD's data directory, by hand: osd.7, its journal a link to a device
loop osd 320M
OSD=$L
loop osdj 64M
OSDJ=$L
mkfs.xfs -q -f "$OSD"
mnt "$OSD" "$TMP/osd/ceph-7"
echo 7 >"$TMP/osd/ceph-7/whoami"
echo filestore >"$TMP/osd/ceph-7/type"
echo 11111111-2222-3333-4444-555555555555 >"$TMP/osd/ceph-7/fsid"
ln -s "$OSDJ" "$TMP/osd/ceph-7/journal"

# a link to a device, as /dev/disk/by-id links are: given as the path, kept as the key
# (the captured command writes a file on the OSD's data device: what the mounts and mkfs
# wrote before may be on the disk before the capture starts, and the text below needs the
# data device's IO)
ln -s "$B2" "$TMP/b2-link"

RUN=$TMP/run
capture -o "$RUN" -d "$P1" -d "$E" -d "$EJ" -d "$X" -d mylog="$XL" -d "$IN" -d "$B1" \
	-d "$TMP/b2-link" -d "$OSD" -d "$OSDJ" -- \
	sh -c 'echo probe >"$1/osd/ceph-7/probe" && sync' sh "$TMP" || fail "capture exited $?"
LOOPNAME=$(basename "$E")
tracing_is_off

python3 - "$RUN/manifest.json" "$TMP" "$(basename "$PART")" <<'EOF' || fail "the manifest's roles"
import json, sys
m = json.load(open(sys.argv[1]))
tmp, part = sys.argv[2], sys.argv[3]
d = m['devices']
def want(i, role, group, key=None, key_from=None):
    got = (d[i]['role'], d[i]['group'])
    assert got == (role, group), (d[i]['name'], got, (role, group), d[i]['stack'])
    if key is not None:
        assert (d[i]['key'], d[i]['key_from']) == (key, key_from), (d[i]['name'], d[i]['key'], d[i]['key_from'])
want(0, 'partition 1 of ' + part, part, tmp + '/part.img-part1', 'backing_file')
want(1, 'ext4 %s/e data' % tmp, 'ext4 %s/e' % tmp, tmp + '/ext4.img', 'backing_file')
want(2, 'ext4 %s/e journal' % tmp, 'ext4 %s/e' % tmp)
want(3, 'xfs %s/x data' % tmp, 'xfs %s/x' % tmp)
want(4, 'xfs %s/x log' % tmp, 'xfs %s/x' % tmp, 'mylog', 'name')
want(5, 'loop over %s/x/inner.img' % tmp, 'xfs %s/x' % tmp, tmp + '/x/inner.img', 'backing_file')
want(6, 'btrfs %s/b member' % tmp, 'btrfs %s/b' % tmp)
want(7, 'btrfs %s/b member' % tmp, 'btrfs %s/b' % tmp, tmp + '/b2-link', 'path')
want(8, 'osd.7 data', 'osd.7', 'osd.7 data', 'role')
want(9, 'osd.7 journal', 'osd.7', 'osd.7 journal', 'role')
assert d[4]['alias'] == 'mylog' and d[7]['given'] == tmp + '/b2-link', (d[4], d[7])
assert d[1]['signature']['type'] == 'ext4' and d[2]['signature']['type'] == 'jbd', d[1:3]
osd = [s for s in d[8]['stack'] if s['kind'] == 'ceph-osd'][0]
assert (osd['osd'], osd['part'], osd['objectstore']) == (7, 'data', 'filestore'), osd
# the sync's thread is its own process: no threads of others among the pids
assert isinstance(m['threads'], list), m.get('threads')
EOF

# analyze carries them per device; the text shows the role beside the device
"$IOTAPE" analyze --json "$RUN" >"$TMP/a.json"
python3 - "$TMP/a.json" <<'EOF' || fail "analyze's roles"
import json, sys
a = json.load(open(sys.argv[1]))
roles = {x['role'] for x in a['devices']}
assert 'osd.7 journal' in roles or 'osd.7 data' in roles, roles
for x in a['devices']:
    assert 'key' in x and 'group' in x, x
EOF
"$IOTAPE" analyze "$RUN" >"$TMP/a.txt" || fail "analyze (text)"
grep -q "(osd.7 data, group osd.7)" "$TMP/a.txt" ||
	fail "text: no role beside the device: $(grep '^device' "$TMP/a.txt")"

# -d NAME=DEV: a name is not a device path
"$IOTAPE" capture -o "$TMP/bad" -d =/dev/null -- true 2>"$TMP/err" && fail "-d =DEV accepted"
grep -q "is not NAME=DEV" "$TMP/err" || fail "-d =DEV: $(cat "$TMP/err")"
echo "ok"
