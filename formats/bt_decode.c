/* SPDX-License-Identifier: MIT */
/* Decode one blktrace record (v7 or v8, either byte order) into a host-order block event. */
#include "formats/blktrace.h"

#include <byteswap.h>
#include <string.h>

#include "common/cursor.h"
#include "formats/bt_decode.h"

long bt_decode(const uint8_t *buf, size_t len, struct blk_event *ev, struct iot_err *e)
{
	return bt_decode_inline(buf, len, ev, e);
}

uint32_t bt_action7(uint32_t flags, uint16_t action, uint16_t pdu_len)
{
	uint64_t a = (uint64_t)(flags & ~(uint32_t)BLK_F_CGROUP) << BT_TC_SHIFT | action;

	/* v7 has 16 category bits: zone and write-zeroes categories do not fit and are dropped,
	 * as the kernel does when it writes version 7 */
	a &= 0xffffffffull;
	/* iotape's form where blkparse would reject the kernel's (bt_decode.h) */
	if ((flags & BLK_F_CGROUP) && (pdu_len || !bt_pdu_is_cgroup(a, 8)))
		a |= BT_TA_CGROUP;
	return (uint32_t)a;
}

size_t bt_encode7(const struct blk_event *ev, uint8_t *buf, size_t cap)
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
