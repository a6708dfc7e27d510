/* SPDX-License-Identifier: MIT */
/* A blk tracer entry from a raw ring-buffer page, finished into a v7 record. */
#include "capture/cap_int.h"

#include <string.h>

#include "formats/blktrace.h"

/*
 * __blk_add_trace() (kernel/trace/blktrace.c) reserves sizeof(struct blk_io_trace) + PDU in
 * the ring buffer and fills it from `sector` on, plus cpu and pid; the first 8 bytes (magic
 * and sequence) hold the generic struct trace_entry (type, flags, preempt count, pid) and
 * `time` is left as whatever the page held. blk_trace_synthesize_old_trace() finishes the
 * record for the bin output with magic|version and time = the ring-buffer timestamp, and
 * sequence 0; we do the same (the sink then numbers sequences).
 */
size_t cap_raw_to_record(const uint8_t *data, size_t size, uint64_t ts, uint8_t *out, size_t cap,
                         uint16_t *blk_type)
{
	uint32_t magic = BT_MAGIC | BT_VERSION7, seq = 0, action;
	uint16_t pdu_len, type;
	unsigned code;
	size_t total;

	if (size < BT_REC7_SIZE)
		return 0;
	memcpy(&type, data, 2);
	memcpy(&action, data + BT7_ACTION, 4);
	memcpy(&pdu_len, data + BT7_PDU_LEN, 2);
	total = (size_t)BT_REC7_SIZE + pdu_len;
	/*
	 * Other writers share the top-level buffer (trace_marker text, events enabled there):
	 * their entries are told apart by the entry type, learnt from the first entry that is
	 * a well-formed blk record: its size is the record's, padded to at most 8 bytes, and its
	 * action a known code (bit 8 only for a cgroup id).
	 */
	code = action & 0xff;
	if (total > size || size - total >= 8 || (action & 0xfe00) ||
	    ((action >> 16) & BLK_F_NOTIFY ? code > BLK_N_MESSAGE : !code || code >= BLK_A_MAX))
		return 0;
	if (*blk_type && type != *blk_type)
		return 0;
	if (total > cap)
		return 0;
	*blk_type = type;
	memcpy(out, data, total);
	memcpy(out, &magic, 4);
	memcpy(out + 4, &seq, 4);
	memcpy(out + 8, &ts, 8);
	return total;
}
