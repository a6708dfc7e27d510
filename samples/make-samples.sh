#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Re-create samples/{ext4,xfs,btrfs}: real `iotape capture` runs of one small workload on a
# file-backed loop device. Needs root. Usage: samples/make-samples.sh [IOTAPE] [FS...]
set -euo pipefail
IOTAPE=${1:-iotape}
shift || true
FSLIST=("${@:-ext4 xfs btrfs}")
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/iotape-samples.XXXXXX)
LOOP=""
cleanup() {
	mountpoint -q "$WORK/mnt" && umount "$WORK/mnt"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$WORK"
}
trap cleanup EXIT

# The workload: 4 MiB written with O_DIRECT, fsync'd metadata, 4 MiB read back with O_DIRECT,
# then 32 small files written through the page cache and synced.
WORKLOAD='dd if=/dev/urandom of=$M/data bs=1M count=4 oflag=direct status=none &&
sync &&
dd if=$M/data of=/dev/null bs=1M iflag=direct status=none &&
mkdir $M/small && for i in $(seq 32); do head -c 8192 /dev/urandom > $M/small/f$i; done &&
sync'

for fs in ${FSLIST[@]}; do
	truncate -s 512M "$WORK/disk.img"
	LOOP=$(losetup -f --show "$WORK/disk.img")
	case $fs in
	ext4) mkfs.ext4 -q -F "$LOOP" ;;
	xfs) mkfs.xfs -q -f "$LOOP" ;;
	btrfs) mkfs.btrfs -q -f "$LOOP" >/dev/null ;;
	esac
	mkdir -p "$WORK/mnt"
	mount "$LOOP" "$WORK/mnt"
	rm -rf "${HERE:?}/$fs"
	M="$WORK/mnt" "$IOTAPE" capture -o "$HERE/$fs" -d "$LOOP" -- sh -c "M=$WORK/mnt; $WORKLOAD"
	umount "$WORK/mnt"
	losetup -d "$LOOP"
	LOOP=""
	rm -f "$WORK/disk.img"
	blkparse -i "$HERE/$fs/$(ls "$HERE/$fs" | sed -n 's/\.blktrace\.0$//p')" -d /dev/null |
		tail -n 3 | head -n 1
done
