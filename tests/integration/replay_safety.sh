#!/bin/bash
# SPDX-License-Identifier: MIT
# What iotape replay refuses to write to, and how: a target identified by device and inode
# (hard links and bind mounts of a mounted loop device's backing file), a mounted btrfs found
# through its device, the replay's own input, a symlink in place of a file, the signatures
# libblkid knows (vfat, ntfs, LUKS, LVM2, MD RAID, swap, GPT, MBR), and a mounted target
# refused even with --force unless --allow-mounted, whose message says what will happen.
source "$SRCDIR/tests/integration/lib.bash"
need_root
need_cmd losetup
need_cmd blkid
for t in mkfs.ext4 mkfs.btrfs mkfs.vfat mkntfs mkswap sfdisk; do
	command -v "$t" >/dev/null || fail "$t missing (scripts/deps.sh installs it)"
done

gen="$TOOLS/replaygen"
"$gen" -o "$TMP/tr" -n sdb --ios 200 --seed 7 --gap-us 100 --lat-us 200 --read-pct 50 \
	--span-mb 6
loops=()
mounts=()
cleanup() {
	local m l
	for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
}
cleanup_hooks+=(cleanup)

# refused WHAT PATTERN ARGS...: iotape replay ARGS exits 3 and its message says PATTERN
refused() {
	local what=$1 pat=$2 rc=0
	shift 2
	"$IOTAPE" replay --timing afap "$@" >/dev/null 2>"$TMP/err" || rc=$?
	expect_eq "$what: exit status" "$rc" 3
	grep -q -- "$pat" "$TMP/err" || fail "$what: message lacks '$pat': $(cat "$TMP/err")"
}

# ---- a mounted loop device's backing file, by any name --------------------------------
truncate -s 128M "$TMP/disk.img"
mkfs.ext4 -q -F "$TMP/disk.img"
loop=$(losetup -f --show "$TMP/disk.img") || skip "no loop devices"
loops+=("$loop")
mkdir -p "$TMP/mnt" "$TMP/bind"
mount "$loop" "$TMP/mnt"
mounts=("$TMP/mnt" "${mounts[@]}")
ln "$TMP/disk.img" "$TMP/hardlink.img"
: >"$TMP/bind/disk.img"
mount --bind "$TMP/disk.img" "$TMP/bind/disk.img"
mounts=("$TMP/bind/disk.img" "${mounts[@]}")
sum=$(sha256sum <"$TMP/disk.img")
for p in "$TMP/disk.img" "$TMP/hardlink.img" "$TMP/bind/disk.img"; do
	refused "backing file $p" "mounted on $TMP/mnt" --allow-writes --target "$p" "$TMP/tr/sdb"
	refused "backing file $p, --force" "mounted on $TMP/mnt" --allow-writes --force \
		--target "$p" "$TMP/tr/sdb"
done
expect_eq "the mounted filesystem's image" "$(sha256sum <"$TMP/disk.img")" "$sum"

# ---- mounted, even with --force; --allow-mounted says what it does ---------------------
refused "mounted device, --force --allow-writes" "refused even with --force" \
	--force --allow-writes --target "$loop" "$TMP/tr/sdb"
grep -q -- "--allow-mounted" "$TMP/err" || fail "no --allow-mounted hint: $(cat "$TMP/err")"
"$IOTAPE" replay --timing afap --force --target "$loop" "$TMP/tr/sdb" >/dev/null 2>&1 ||
	fail "--force did not allow a read-only replay of a mounted device"
umount "$TMP/bind/disk.img"
umount "$TMP/mnt"
mounts=()

# ---- btrfs: its mountinfo device number is anonymous; found through its device ----------
# (on a loop device of its own: a mount namespace another test creates meanwhile may hold a
# copy of the ext4 mount for a moment, and the device with it)
losetup -d "$loop"
truncate -s 128M "$TMP/disk2.img"
loop=$(losetup -f --show "$TMP/disk2.img")
loops=("$loop")
mkfs.btrfs -q -f "$loop" >/dev/null
mount "$loop" "$TMP/mnt"
mounts=("$TMP/mnt")
refused "mounted btrfs" "mounted on $TMP/mnt" --target "$loop" "$TMP/tr/sdb"
refused "mounted btrfs, --force --allow-writes" "mounted on $TMP/mnt" --force --allow-writes \
	--target "$loop" "$TMP/tr/sdb"
# --allow-mounted: replayed, with a warning that says what it is doing (read-only here, so
# the filesystem stays intact)
"$IOTAPE" replay --timing afap --allow-mounted --target "$loop" "$TMP/tr/sdb" >/dev/null \
	2>"$TMP/err" || fail "--allow-mounted: $(cat "$TMP/err")"
grep -q "mounted on $TMP/mnt" "$TMP/err" || fail "--allow-mounted without a warning"
umount "$TMP/mnt"
mounts=()

# ---- the replay's own input ------------------------------------------------------------
cp -r "$TMP/tr" "$TMP/tr2"
sum=$(cat "$TMP"/tr2/sdb.blktrace.* | sha256sum)
refused "own input" "is one of the replay's input files" --allow-writes --force --wrap \
	--target "$TMP/tr2/sdb.blktrace.0" "$TMP/tr2/sdb"
expect_eq "the input after" "$(cat "$TMP"/tr2/sdb.blktrace.* | sha256sum)" "$sum"

# ---- a symlink where the file target was -----------------------------------------------
truncate -s 16M "$TMP/scratch.img"
ln -s "$TMP/scratch.img" "$TMP/link.img"
rc=0
"$IOTAPE" replay --timing afap --allow-writes --force --target "$TMP/link.img" "$TMP/tr/sdb" \
	>/dev/null 2>"$TMP/err" || rc=$?
expect_eq "symlink to a file: exit status (a bad argument)" "$rc" 2
grep -q "symbolic link" "$TMP/err" || fail "symlink: $(cat "$TMP/err")"
"$IOTAPE" replay --timing afap --allow-writes --target "$TMP/scratch.img" "$TMP/tr/sdb" \
	>/dev/null || fail "a plain scratch file was refused"

# ---- signatures, through libblkid; each image checked with blkid first -------------------
sig() { # NAME BLKID-TYPE: make $TMP/NAME.img, check blkid sees TYPE, iotape refuses it
	local f=$TMP/$1.img
	expect_eq "blkid on $1" "$(blkid -p -o value -s TYPE -s PTTYPE "$f" | head -1)" "$2"
	refused "$1 signature" "$2" --target "$f" "$TMP/tr/sdb"
	"$IOTAPE" replay --timing afap --force --target "$f" "$TMP/tr/sdb" >/dev/null 2>&1 ||
		fail "$1: --force did not allow a read-only replay"
}
truncate -s 16M "$TMP/vfat.img" && mkfs.vfat "$TMP/vfat.img" >/dev/null
sig vfat vfat
truncate -s 16M "$TMP/ntfs.img" && mkntfs -q -F -Q "$TMP/ntfs.img" >/dev/null 2>&1
sig ntfs ntfs
truncate -s 16M "$TMP/swap.img" && mkswap "$TMP/swap.img" >/dev/null
sig swap swap
for t in luks lvm md; do python3 "$SRCDIR/tests/integration/replay_sigimg.py" "$t" "$TMP/$t.img"; done
sig luks crypto_LUKS
sig lvm LVM2_member
sig md linux_raid_member
truncate -s 16M "$TMP/gpt.img" && echo 'label: gpt' | sfdisk -q "$TMP/gpt.img"
sig gpt gpt
truncate -s 16M "$TMP/mbr.img" && printf 'label: dos\n,8M,83\n' | sfdisk -q "$TMP/mbr.img"
sig mbr dos
echo ok
