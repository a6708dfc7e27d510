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

size_t bt_encode7(const struct blk_event *ev, uint8_t *buf, size_t cap)
{
	return bt_encode7_inline(ev, buf, cap);
}
