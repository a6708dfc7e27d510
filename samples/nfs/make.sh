#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Re-create samples/nfs/run: nfs-ganesha on 127.0.0.1 exporting an ext4 filesystem on a
# file-backed loop device; libnfs traffic (tests/tools/nfsload, NFSv3 then NFSv4.0) captured
# with `iotape capture -i lo -d LOOP`, so the run holds both the packets and the block trace of
# the device under the export. Needs root. Usage: samples/nfs/make.sh [BUILD_DIR]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$HERE/../.." && pwd)
BUILD=${1:-$SRCDIR/build}
export SRCDIR IOTAPE=$BUILD/iotape TOOLS=$BUILD/tests
source "$SRCDIR/tests/integration/lib.bash"

truncate -s 256M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img")
mkfs.ext4 -q -F "$LOOP"
source "$SRCDIR/tests/integration/ganesha.bash"
mount "$LOOP" "$GANESHA_EXPORT"
chmod 777 "$GANESHA_EXPORT"
# hooks run in order: ganesha (registered by ganesha_start) must stop before the unmount
trap 'for h in "${cleanup_hooks[@]}"; do eval "$h" || true; done
      umount "$GANESHA_EXPORT"; losetup -d "$LOOP"; rm -rf "$TMP"' EXIT
ganesha_start

rm -rf "$HERE/run"
"$IOTAPE" capture -o "$HERE/run" -d "$LOOP" -i lo --filter "port 2049 or port 111" -- \
	sh -c "'$TOOLS/nfsload' -v 3 -n 4 -s 65536 -b 16384 127.0.0.1 '$GANESHA_EXPORT' /v3 &&
	       '$TOOLS/nfsload' -v 4 -n 2 -s 4096 -b 1024 127.0.0.1 /export /v4 && sync"
"$IOTAPE" analyze "$HERE/run" | head -n 30
