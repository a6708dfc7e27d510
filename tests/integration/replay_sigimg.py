#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Write images that carry an LVM2 PV label, an MD RAID v1.2 superblock or a LUKS1 header (no
# volume behind them), for replay_safety.sh: the tools that make real ones (pvcreate, mdadm,
# cryptsetup) need udev or device-mapper, more than a test should install. The test checks
# each image with blkid -p, so the layouts below are what util-linux recognises.
# Usage: replay_sigimg.py lvm|md|luks FILE
import struct
import sys
import zlib

SIZE = 8 << 20


def lvm(img):
    # struct label_header in sector 1 (lib/label/label.h), then struct pv_header
    lab = bytearray(512)
    lab[0:8] = b"LABELONE"
    struct.pack_into("<Q", lab, 8, 1)  # sector_xl
    struct.pack_into("<I", lab, 20, 32)  # offset_xl
    lab[24:32] = b"LVM2 001"
    lab[32:64] = b"iotapeiotapeiotapeiotapeiotape12"  # pv uuid
    struct.pack_into("<Q", lab, 64, SIZE)
    # calc_crc(): CRC-32 without the final inversion, from 0xf597a6cf, over offset_xl..end
    crc = zlib.crc32(bytes(lab[20:]), 0xf597a6cf ^ 0xffffffff) ^ 0xffffffff
    struct.pack_into("<I", lab, 16, crc)
    img[512:1024] = lab


def md(img):
    # struct mdp_superblock_1 (include/uapi/linux/raid/md_p.h) at 4 KiB: version 1.2
    sb = bytearray(256 + 2 * 2)
    struct.pack_into("<II", sb, 0, 0xA92B4EFC, 1)  # magic, major_version
    sb[16:32] = b"0123456789abcdef"  # set_uuid
    sb[32:64] = b"iotape:0".ljust(32, b"\0")  # set_name
    struct.pack_into("<i", sb, 72, 1)  # level
    struct.pack_into("<Q", sb, 80, 8192)  # size
    struct.pack_into("<I", sb, 92, 2)  # raid_disks
    struct.pack_into("<Q", sb, 128, 2048)  # data_offset
    struct.pack_into("<Q", sb, 136, 8192)  # data_size
    struct.pack_into("<Q", sb, 144, 8)  # super_offset, in sectors
    sb[168:184] = b"fedcba9876543210"  # device_uuid
    struct.pack_into("<I", sb, 220, 2)  # max_dev
    struct.pack_into("<HH", sb, 256, 0, 1)  # dev_roles
    # calc_sb_1_csum(): le32 words summed (the trailing half word too), folded to 32 bits
    s = sum(struct.unpack_from("<I", sb, i)[0] for i in range(0, 256 + 4, 4))
    struct.pack_into("<I", sb, 216, ((s & 0xFFFFFFFF) + (s >> 32)) & 0xFFFFFFFF)
    img[4096 : 4096 + len(sb)] = sb


def luks(img):
    # struct luks_phdr (cryptsetup lib/luks1/luks.h): magic, version 1, cipher, hash, uuid
    h = bytearray(592)
    h[0:6] = b"LUKS\xba\xbe"
    struct.pack_into(">H", h, 6, 1)
    h[8:40] = b"aes".ljust(32, b"\0")
    h[40:72] = b"xts-plain64".ljust(32, b"\0")
    h[72:104] = b"sha256".ljust(32, b"\0")
    struct.pack_into(">II", h, 104, 4096, 64)  # payload offset, key bytes
    h[168:208] = b"12345678-1234-1234-1234-123456789abc".ljust(40, b"\0")
    img[0 : len(h)] = h


img = bytearray(SIZE)
{"lvm": lvm, "md": md, "luks": luks}[sys.argv[1]](img)
with open(sys.argv[2], "wb") as f:
    f.write(img)
