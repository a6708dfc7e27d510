#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install every Debian package iotape needs to build, test, fuzz and benchmark. Idempotent.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
PKGS=(
	build-essential cmake pkg-config git
	clang libclang-rt-14-dev llvm clang-format
	libcmocka-dev zlib1g-dev libisal-dev libzstd-dev libjansson-dev libpcap-dev liburing-dev
	libnfs-dev libnfs-utils libtracefs-dev libtraceevent-dev libblkid-dev libpcre2-dev
	libbpf-dev bpftool
	blktrace fio tshark tcpdump
	nfs-ganesha nfs-ganesha-vfs rpcbind
	ceph-mon ceph-mgr ceph-osd ceph-common
	xfsprogs btrfs-progs e2fsprogs util-linux kmod iproute2
	dosfstools ntfs-3g fdisk
	libxml2-utils chromium
	libcairo2-dev libfontconfig-dev fonts-dejavu-core
	ffmpeg
	librsvg2-bin
	man-db groff-base bash-completion
	python3 time locales zstd binutils
	openssh-server openssh-client
)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}" >&2
	# on a freshly booted machine apt-daily may hold the dpkg lock for a while: wait for it
	lock=(-o DPkg::Lock::Timeout=600)
	$SUDO apt-get "${lock[@]}" update -q
	echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
	$SUDO apt-get "${lock[@]}" install -y -q --no-install-recommends "${missing[@]}"
fi
