/* SPDX-License-Identifier: MIT */
/* The blkparse export's parts: the pass (blkparse.c), the lines (bp_lines.c), the summaries. */
#ifndef IOTAPE_EXPORT_BP_INT_H
#define IOTAPE_EXPORT_BP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "export/export.h"
#include "formats/blkevent.h"

#define BP_NAME_NULL "(null)"

/* A command name as blkparse keeps it: set once per pid, never changed or moved. */
struct bp_name {
	uint32_t pid;
	uint8_t len;
	char comm[16];
};

/* The action letters blkparse prints, as codes (bp_act_str). */
enum bp_act {
	BP_Q,
	BP_G,
	BP_S,
	BP_R,
	BP_D,
	BP_C,
	BP_I,
	BP_M,
	BP_F,
	BP_P,
	BP_U,
	BP_UT,
	BP_X,
	BP_B,
	BP_A,
	BP_MSG, /* a message note: "m" */
	BP_ACT_N,
};
extern const char *const bp_act_str[BP_ACT_N];

/*
 * One line to print, with everything the pass decided for it: the event (its PDU copied into
 * the chunk), its time since the first record, its file's CPU, the name of its pid at that
 * moment (NULL: none yet) and whether it is a passthrough request.
 */
struct bp_job {
	struct blk_event ev;
	uint64_t t;
	const struct bp_name *name;
	uint32_t cpu;
	uint8_t act; /* enum bp_act */
	bool pc;
};

#define BP_CHUNK 4096

struct bp_chunk {
	struct bp_job job[BP_CHUNK];
	unsigned n;
	uint8_t *arena; /* the jobs' PDUs */
	size_t used, cap;
};

/* ---- output: a buffer in front of a file descriptor -------------------------------- */

#define BP_OUT_BUF (1u << 20)

struct bp_out {
	int fd;
	int err; /* the first write error, -errno */
	size_t len;
	uint64_t bytes, lines;
	/* called before each write: a printer waits there for its chunk's turn (NULL: none) */
	void (*turn)(void *ctx);
	void *ctx;
	char buf[BP_OUT_BUF];
};

void bp_out_flush(struct bp_out *o);
/* Room for need (<= BP_OUT_BUF / 2) more bytes; returns where to write. */
static inline char *bp_out_room(struct bp_out *o, size_t need)
{
	if (o->len + need > BP_OUT_BUF)
		bp_out_flush(o);
	return o->buf + o->len;
}
void bp_out_str(struct bp_out *o, const char *s);

/* ---- lines (bp_lines.c) -------------------------------------------------------------- */

struct bp_lines;

struct bp_lines *bp_lines_new(struct bp_out *out);
void bp_lines_free(struct bp_lines *l);
/* Print the chunk's lines into out. */
void bp_lines_print(struct bp_lines *l, const struct bp_chunk *c);

/* ---- summaries (bp_stats.c) ---------------------------------------------------------- */

/* blkparse's struct io_stats, by direction: [0] reads, [1] writes. */
struct bp_ios {
	uint64_t q[2], q_kb[2], q_b[2];
	uint64_t i[2], i_kb[2], i_b[2];
	uint64_t c[2], c_kb[2], c_b[2];
	uint64_t m[2], m_kb[2], m_b[2];
	uint64_t rq[2];
	uint64_t pc_q[2], pc_q_kb[2], pc_q_b[2];
	uint64_t pc_i[2], pc_i_kb[2], pc_i_b[2];
	uint64_t pc_rq[2], pc_c[2];
	uint64_t io_unplugs, timer_unplugs;
};

struct bp_cpu {
	uint64_t nelems; /* records handled */
	struct bp_ios ios;
};

struct bp_dev {
	char *name; /* as the summaries print it */
	uint64_t events, first_time, last_time;
	unsigned depth[2], max_depth[2];
	struct bp_cpu *cpus;
	unsigned ncpus;
};

/* The per-device summaries in blkparse's locale; 0 or -ENOMEM. */
int bp_stats_print(struct bp_out *o, const struct bp_dev *devs, unsigned ndevs);

#endif
