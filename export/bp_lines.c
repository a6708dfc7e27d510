/* SPDX-License-Identifier: MIT */
/* The blkparse export's lines: blkparse's per-event formats (process_default), fast. */
#include "export/bp_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/numfmt.h"

const char *const bp_act_str[BP_ACT_N] = {
    [BP_Q] = "Q", [BP_G] = "G", [BP_S] = "S", [BP_R] = "R",   [BP_D] = "D", [BP_C] = "C",
    [BP_I] = "I", [BP_M] = "M", [BP_F] = "F", [BP_P] = "P",   [BP_U] = "U", [BP_UT] = "UT",
    [BP_X] = "X", [BP_B] = "B", [BP_A] = "A", [BP_MSG] = "m",
};

void bp_out_flush(struct bp_out *o)
{
	size_t done = 0;

	if (o->turn)
		o->turn(o->ctx);
	if (!o->err)
		o->err = iot_write_all(o->fd, o->buf, o->len, &done);
	o->bytes += done;
	o->len = 0;
}

void bp_out_str(struct bp_out *o, const char *s)
{
	size_t n = strlen(s);

	while (n) {
		size_t k = n < BP_OUT_BUF / 2 ? n : BP_OUT_BUF / 2;

		memcpy(bp_out_room(o, k), s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

/* ---- the parts of a line header that repeat, kept formatted ---------------------------- */

/* "%2s %3s " of an action and the flags that make its RWBS. */
struct actrw {
	uint8_t n; /* 0: not formatted yet */
	char s[15];
};

/* Per CPU (slot cpu % NSLOT): "%3d,%-3d %2d " of the last device, "%5u " of the last pid. */
#define NSLOT 64
struct slot {
	uint32_t dev, cpu, pid;
	bool have_dev, have_pid, have_seq;
	uint8_t ndev, npid;
	char devs[24], pids[16];
	uint32_t seq; /* the last "%8d" of a sequence number printed, for the next one up */
	char seqs[16];
};

/* "%8d" of the sequence number after the one in s (a per-CPU file's records count up by
 * one): the decimal string incremented in place; false when it does not fit the width. */
static inline bool seq_next(struct slot *s)
{
	for (int i = 7; i >= 0; i--) {
		if (s->seqs[i] == ' ') {
			s->seqs[i] = '1';
			return true;
		}
		if (s->seqs[i] != '9') {
			s->seqs[i]++;
			return true;
		}
		s->seqs[i] = '0';
	}
	return false;
}

/* "[NAME]" of the last name printed. */
struct brname {
	const struct bp_name *name;
	bool have;
	uint8_t n;
	char s[24];
};

struct bp_lines {
	struct bp_out *out;
	uint8_t rwkey[1u << 15];
	struct actrw actrw[BP_ACT_N * 256];
	struct slot slot[NSLOT];
	struct brname br;
	uint64_t sec; /* "%5d." of the last second printed */
	bool have_sec;
	uint8_t nsec;
	char secs[16];
};

/* The bits blkparse's RWBS depends on, packed into 8: flush, discard, write, FUA, read-ahead,
 * sync, meta (all among bits 1-15 of the flags), and whether there are bytes. */
static unsigned rw_key_of(uint32_t f)
{
	return ((f >> 2) & 1) | ((f >> 12) & 2) | ((f << 1) & 4) | ((f >> 12) & 8) |
	       ((f >> 7) & 16) | ((f << 2) & 32) | ((f >> 6) & 64);
}

struct bp_lines *bp_lines_new(struct bp_out *out)
{
	struct bp_lines *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->out = out;
	for (uint32_t i = 0; i < (1u << 15); i++)
		l->rwkey[i] = (uint8_t)rw_key_of(i << 1);
	return l;
}

void bp_lines_free(struct bp_lines *l)
{
	free(l);
}

/* The same by a table of the flags' bits 1-15 (built once): a load instead of fourteen
 * operations per line. */
static inline unsigned rw_key(const struct bp_lines *l, const struct blk_event *ev)
{
	return l->rwkey[(ev->flags >> 1) & 0x7fff] | (ev->bytes ? 128 : 0);
}

/*
 * "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s ": device, CPU, sequence, seconds, nanoseconds,
 * pid, action, RWBS. A message prints sequence "0" and pid 0.
 */
static inline char *put_header(struct bp_lines *l, char *p, const struct bp_job *j, uint32_t dev)
{
	const struct blk_event *ev = &j->ev;
	uint64_t sec = j->t / 1000000000u;
	struct slot *s = &l->slot[j->cpu % NSLOT];
	bool msg = j->act == BP_MSG;
	uint32_t pid = msg ? 0 : ev->pid;
	struct actrw *ar = &l->actrw[j->act * 256 + (msg ? 0 : rw_key(l, ev))];

	if (!s->have_dev || s->dev != dev || s->cpu != j->cpu) {
		char *q = numfmt_i64w(s->devs, BLK_DEV_MAJOR(dev), 3, 0);

		*q++ = ',';
		q = numfmt_i64w(q, BLK_DEV_MINOR(dev), 3, 1);
		*q++ = ' ';
		q = numfmt_i64w(q, (int32_t)j->cpu, 2, 0);
		*q++ = ' ';
		s->ndev = (uint8_t)(q - s->devs);
		s->dev = dev;
		s->cpu = j->cpu;
		s->have_dev = true;
	}
	memcpy(p, s->devs, sizeof(s->devs));
	p += s->ndev;
	if (msg) {
		p = numfmt_strw(p, "0", 1, 8);
	} else if (s->have_seq && ev->seq == s->seq + 1 && ev->seq < 10000000 && seq_next(s)) {
		/* the usual case: the record after the last one printed of this file */
		memcpy(p, s->seqs, 8);
		p += 8;
		s->seq = ev->seq;
	} else if (ev->seq < 10000000) {
		numfmt_uw8(s->seqs, ev->seq, 8);
		memcpy(p, s->seqs, 8);
		p += 8;
		s->seq = ev->seq;
		s->have_seq = true;
	} else {
		p = numfmt_i64w(p, (int32_t)ev->seq, 8, 0);
		s->have_seq = false;
	}
	*p++ = ' ';
	if (!l->have_sec || l->sec != sec) {
		char *q = numfmt_i64w(l->secs, (int32_t)(uint32_t)sec, 5, 0);

		*q++ = '.';
		l->nsec = (uint8_t)(q - l->secs);
		l->sec = sec;
		l->have_sec = true;
	}
	memcpy(p, l->secs, sizeof(l->secs));
	p += l->nsec;
	p = numfmt_9(p, (uint32_t)(j->t - sec * 1000000000u));
	*p++ = ' ';
	if (!s->have_pid || s->pid != pid) {
		char *q = numfmt_i64w(s->pids, pid, 5, 0);

		*q++ = ' ';
		s->npid = (uint8_t)(q - s->pids);
		s->pid = pid;
		s->have_pid = true;
	}
	memcpy(p, s->pids, sizeof(s->pids));
	p += s->npid;
	if (!ar->n) {
		char rwbs[8], *q = ar->s;
		const char *act = bp_act_str[j->act];

		if (msg)
			strcpy(rwbs, "N");
		else
			blk_rwbs(ev->flags, ev->bytes, rwbs);
		q = numfmt_strw(q, act, strlen(act), 2);
		*q++ = ' ';
		q = numfmt_strw(q, rwbs, strlen(rwbs), 3);
		*q++ = ' ';
		ar->n = (uint8_t)(q - ar->s);
	}
	memcpy(p, ar->s, sizeof(ar->s));
	return p + ar->n;
}

/* "[NAME]", "(null)" for a pid not named yet (glibc's printf of a NULL string). */
static inline char *put_name(struct bp_lines *l, char *p, const struct bp_name *name)
{
	struct brname *b = &l->br;

	if (!b->have || b->name != name) {
		const char *s = name ? name->comm : BP_NAME_NULL;
		size_t n = name ? name->len : strlen(BP_NAME_NULL);

		b->s[0] = '[';
		memcpy(b->s + 1, s, n);
		b->s[n + 1] = ']';
		b->n = (uint8_t)(n + 2);
		b->name = name;
		b->have = true;
	}
	memcpy(p, b->s, sizeof(b->s));
	return p + b->n;
}

/* "%02x %02x ..." of the PDU, then " .." once the rest is zeros. */
static char *pdu_hex(char *p, const struct blk_event *ev)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *d = ev->pdu;
	unsigned len = ev->pdu_len, zeros_from = len;

	while (zeros_from && !d[zeros_from - 1])
		zeros_from--;
	for (unsigned i = 0; i < len; i++) {
		if (i)
			*p++ = ' ';
		*p++ = hex[d[i] >> 4];
		*p++ = hex[d[i] & 15];
		if (!d[i] && i >= zeros_from) {
			memcpy(p, " ..", 3);
			return p + 3;
		}
	}
	return p;
}

/* "(PDU) " when there is one */
static char *put_pdu(char *p, const struct blk_event *ev)
{
	if (!ev->pdu_len)
		return p;
	*p++ = '(';
	p = pdu_hex(p, ev);
	*p++ = ')';
	*p++ = ' ';
	return p;
}

static uint64_t pdu_be64(const struct blk_event *ev, unsigned off)
{
	uint64_t v = 0;

	/* blkparse reads past a short PDU; here the missing bytes are zeros */
	for (unsigned i = off; i < off + 8; i++)
		v = v << 8 | (i < ev->pdu_len ? ev->pdu[i] : 0);
	return v;
}

/* "SECTOR + SECTORS " */
static inline char *put_sector_len(char *p, const struct blk_event *ev)
{
	p = numfmt_u64(p, ev->sector);
	memcpy(p, " + ", 3);
	p = numfmt_u64(p + 3, ev->bytes >> 9);
	*p++ = ' ';
	return p;
}

/* One line, as blkparse's process_default() and, for messages, handle_notify() print it. */
static void print_job(struct bp_lines *l, const struct bp_job *j)
{
	const struct blk_event *ev = &j->ev;
	uint32_t dev = ev->dev;
	char *p, *start;

	if (j->act == BP_MSG) {
		size_t n = strnlen((const char *)ev->pdu, ev->pdu_len);

		p = start = bp_out_room(l->out, 128 + n);
		p = put_header(l, p, j, dev);
		memcpy(p, ev->pdu, n);
		p += n;
		*p++ = '\n';
		l->out->len += (size_t)(p - start);
		return;
	}
	if (j->act == BP_A && ev->pdu_len >= 8)
		dev = (uint32_t)pdu_be64(ev, 0); /* the remap's device_to */
	p = start = bp_out_room(l->out, 256 + 3u * ev->pdu_len);
	p = put_header(l, p, j, dev);
	switch (j->act) {
	case BP_R:
	case BP_C:
		if (j->pc) {
			p = put_pdu(p, ev);
		} else if (ev->bytes >> 9) {
			p = put_sector_len(p, ev);
		} else {
			p = numfmt_u64(p, ev->sector);
			*p++ = ' ';
		}
		*p++ = '[';
		p = numfmt_u64(p, ev->error);
		*p++ = ']';
		break;
	case BP_D:
	case BP_I:
	case BP_Q:
	case BP_B:
		if (j->pc) {
			p = numfmt_u64(p, ev->bytes);
			*p++ = ' ';
			p = put_pdu(p, ev);
		} else if (ev->bytes >> 9) {
			p = put_sector_len(p, ev);
		}
		p = put_name(l, p, j->name);
		break;
	case BP_M:
	case BP_F:
	case BP_G:
	case BP_S:
		if (ev->bytes >> 9)
			p = put_sector_len(p, ev);
		p = put_name(l, p, j->name);
		break;
	case BP_P:
		p = put_name(l, p, j->name);
		break;
	case BP_U:
	case BP_UT:
		p = put_name(l, p, j->name);
		*p++ = ' ';
		p = numfmt_u64(p, (uint32_t)pdu_be64(ev, 0));
		break;
	case BP_A: {
		uint32_t from = (uint32_t)(pdu_be64(ev, 0) >> 32);

		p = put_sector_len(p, ev);
		memcpy(p, "<- (", 4);
		p = numfmt_i64w(p + 4, BLK_DEV_MAJOR(from), 0, 0);
		*p++ = ',';
		p = numfmt_i64w(p, BLK_DEV_MINOR(from), 0, 0);
		*p++ = ')';
		*p++ = ' ';
		p = numfmt_u64(p, pdu_be64(ev, 8));
		break;
	}
	case BP_X:
		p = numfmt_u64(p, ev->sector);
		memcpy(p, " / ", 3);
		p = numfmt_u64(p + 3, (uint32_t)pdu_be64(ev, 0));
		*p++ = ' ';
		p = put_name(l, p, j->name);
		break;
	}
	*p++ = '\n';
	l->out->len += (size_t)(p - start);
}

void bp_lines_print(struct bp_lines *l, const struct bp_chunk *c)
{
	for (unsigned i = 0; i < c->n; i++)
		print_job(l, &c->job[i]);
	l->out->lines += c->n;
}
