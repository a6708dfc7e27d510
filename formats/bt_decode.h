/* SPDX-License-Identifier: MIT */
/* Record decoding, inline: the reader's per-event hot path; bt_decode() is its out-of-line form. */
#ifndef IOTAPE_FORMATS_BT_DECODE_H
#define IOTAPE_FORMATS_BT_DECODE_H

#include <byteswap.h>
#include <string.h>

#include "common/cursor.h"
#include "formats/blktrace.h"

/*
 * Records by their fields (formats/blktrace.h: BT7_*, BT8_*). The action's low 16 bits are the
 * code (bit 8: a cgroup id, 8 bytes, starts the PDU); the categories (enum blktrace_cat) sit
 * from bit 16 (BLK_TC_SHIFT). The remap PDU, struct blk_io_trace_remap, is big-endian
 * whatever the record's byte order.
 */
#define BT_TA_CGROUP 0x100u
#define BT_TC_SHIFT 16

/*
 * iotape's form of a cgroup id: blkparse 1.3 (Debian 12) takes the kernel's cgroup bit for an
 * unknown action ("Bad fs action") and drops the record, and btt with it. So writers that
 * record cgroups (the bpf capture backend) put the id, 8 bytes in the record's order, as the
 * whole PDU of an action the kernel gives no PDU of its own (Q M F G S R D C I), without the
 * bit: blkparse, btt and iowatcher skip such a PDU. A passthrough (PC) record's PDU is its
 * command, and U, X, A and the notifies have PDUs of their own: never a cgroup there.
 */
#define BT_CGPDU_ACTIONS                                                                           \
	(1u << BLK_A_QUEUE | 1u << BLK_A_BACKMERGE | 1u << BLK_A_FRONTMERGE | 1u << BLK_A_GETRQ |  \
	 1u << BLK_A_SLEEPRQ | 1u << BLK_A_REQUEUE | 1u << BLK_A_ISSUE | 1u << BLK_A_COMPLETE |    \
	 1u << BLK_A_INSERT)

static inline int bt_pdu_is_cgroup(uint64_t action, unsigned pdu_len)
{
	return pdu_len == 8 && !(action & BT_TA_CGROUP) &&
	       !((action >> BT_TC_SHIFT) & (BLK_F_PC | BLK_F_NOTIFY)) &&
	       ((BT_CGPDU_ACTIONS >> (action & 0x1f)) & 1) && (action & 0xe0) == 0;
}

static inline uint16_t rd16(const uint8_t *p, int sw)
{
	uint16_t v = load_u16(p);

	return sw ? bswap_16(v) : v;
}

static inline uint32_t rd32(const uint8_t *p, int sw)
{
	uint32_t v = load_u32(p);

	return sw ? bswap_32(v) : v;
}

static inline uint64_t rd64(const uint8_t *p, int sw)
{
	uint64_t v = load_u64(p);

	return sw ? bswap_64(v) : v;
}

static inline long bt_decode_inline(const uint8_t *buf, size_t len, struct blk_event *ev,
                                    struct iot_err *e)
{
	uint32_t magic;
	uint64_t action;
	unsigned version, hdr, pdu_len, total_pdu;
	int sw = 0;
	const uint8_t *pdu;

	if (len < 4)
		return 0;
	magic = load_u32(buf);
	if ((magic & 0xffffff00u) != BT_MAGIC) {
		magic = bswap_32(magic);
		if ((magic & 0xffffff00u) != BT_MAGIC)
			return iot_err_set(e, -EINVAL, "bad magic 0x%08x", load_u32(buf));
		sw = 1;
	}
	version = magic & 0xff;
	if (version == BT_VERSION7)
		hdr = BT_REC7_SIZE;
	else if (version == BT_VERSION8)
		hdr = BT_REC8_SIZE;
	else
		return iot_err_set(e, -EPROTO, "unsupported blktrace version %u", version);
	if (len < hdr)
		return 0;

	ev->seq = rd32(buf + BT7_SEQUENCE, sw);
	ev->time = rd64(buf + BT7_TIME, sw);
	ev->sector = rd64(buf + BT7_SECTOR, sw);
	ev->bytes = rd32(buf + BT7_BYTES, sw);
	if (version == BT_VERSION7) {
		action = rd32(buf + BT7_ACTION, sw);
		ev->pid = rd32(buf + BT7_PID, sw);
		ev->dev = rd32(buf + BT7_DEVICE, sw);
		ev->cpu = rd32(buf + BT7_CPU, sw);
		ev->error = rd16(buf + BT7_ERROR, sw);
		pdu_len = rd16(buf + BT7_PDU_LEN, sw);
	} else {
		ev->pid = rd32(buf + BT8_PID, sw);
		action = rd64(buf + BT8_ACTION, sw);
		ev->dev = rd32(buf + BT8_DEVICE, sw);
		ev->cpu = rd32(buf + BT8_CPU, sw);
		ev->error = rd16(buf + BT8_ERROR, sw);
		pdu_len = rd16(buf + BT8_PDU_LEN, sw);
	}
	if (pdu_len > BT_PDU_MAX)
		return iot_err_set(e, -EINVAL, "impossible pdu_len %u (at most %u)", pdu_len,
		                   BT_PDU_MAX);
	if (len - hdr < pdu_len)
		return 0;
	total_pdu = pdu_len;

	/* the categories in use end at bit 22: the others, and bit 31 (ours), are dropped */
	ev->flags = (uint32_t)(action >> BT_TC_SHIFT) & ~(uint32_t)BLK_F_CGROUP;
	ev->action = (uint16_t)(action & 0xff);
	ev->cgroup = 0;
	pdu = buf + hdr;
	if (((action & BT_TA_CGROUP) && pdu_len >= 8) || bt_pdu_is_cgroup(action, pdu_len)) {
		ev->cgroup = rd64(pdu, sw);
		ev->flags |= BLK_F_CGROUP;
		pdu += 8;
		pdu_len -= 8;
	}
	ev->pdu = pdu_len ? pdu : NULL;
	ev->pdu_len = (uint16_t)pdu_len;
	return (long)(hdr + total_pdu);
}

/* The v7 action word bt_encode7() writes for an event of these flags (BLK_F_*, BLK_F_CGROUP
 * among them when it has a cgroup id) and action with pdu_len bytes of PDU (its own, the
 * cgroup id not counted). */
static inline uint32_t bt_action7(uint32_t flags, uint16_t action, uint16_t pdu_len)
{
	uint64_t a = (uint64_t)(flags & ~(uint32_t)BLK_F_CGROUP) << BT_TC_SHIFT | action;

	/* v7 has 16 category bits: zone and write-zeroes categories do not fit and are dropped,
	 * as the kernel does when it writes version 7 */
	a &= 0xffffffffull;
	/* iotape's form where blkparse would reject the kernel's (above) */
	if ((flags & BLK_F_CGROUP) && (pdu_len || !bt_pdu_is_cgroup(a, 8)))
		a |= BT_TA_CGROUP;
	return (uint32_t)a;
}

/* bt_encode7() inline: the bpf capture's per-IO path (capture/blk_sink.c) */
static inline size_t bt_encode7_inline(const struct blk_event *ev, uint8_t *buf, size_t cap)
{
	uint32_t magic = BT_MAGIC | BT_VERSION7, u32;
	uint16_t pdu_len, u16;
	size_t cg = (ev->flags & BLK_F_CGROUP) ? 8 : 0;
	size_t total = BT_REC7_SIZE + cg + ev->pdu_len;

	if (total > cap || cg + ev->pdu_len > 0xffff)
		return 0;
	pdu_len = (uint16_t)(cg + ev->pdu_len);
	memcpy(buf + BT7_MAGIC, &magic, 4);
	memcpy(buf + BT7_SEQUENCE, &ev->seq, 4);
	memcpy(buf + BT7_TIME, &ev->time, 8);
	memcpy(buf + BT7_SECTOR, &ev->sector, 8);
	memcpy(buf + BT7_BYTES, &ev->bytes, 4);
	u32 = bt_action7(ev->flags, ev->action, ev->pdu_len);
	memcpy(buf + BT7_ACTION, &u32, 4);
	memcpy(buf + BT7_PID, &ev->pid, 4);
	memcpy(buf + BT7_DEVICE, &ev->dev, 4);
	memcpy(buf + BT7_CPU, &ev->cpu, 4);
	u16 = ev->error;
	memcpy(buf + BT7_ERROR, &u16, 2);
	memcpy(buf + BT7_PDU_LEN, &pdu_len, 2);
	if (cg)
		memcpy(buf + BT_REC7_SIZE, &ev->cgroup, 8);
	if (ev->pdu_len)
		memcpy(buf + BT_REC7_SIZE + cg, ev->pdu, ev->pdu_len);
	return total;
}

#endif
