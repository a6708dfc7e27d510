/* SPDX-License-Identifier: MIT */
/* The bpf backend's ring buffer records as blktrace events: an IO's Q, D and C from one record. */
#include "capture/bpf_int.h"

#ifdef IOTAPE_HAVE_BPF

#include <errno.h>
#include <string.h>

/* ---- records from the ring buffer ---------------------------------------------------- */

static void ev_from(struct blk_event *ev, const struct iot_bpf_ev *r)
{
	memset(ev, 0, sizeof(*ev));
	ev->time = r->time;
	ev->sector = r->sector;
	ev->bytes = r->bytes;
	ev->flags = r->action >> 16;
	ev->action = (uint16_t)(r->action & 0xff);
	ev->pid = r->pid;
	ev->dev = r->dev;
	ev->cpu = r->cpu;
	ev->error = r->error;
	if (r->cgroup) {
		ev->cgroup = r->cgroup;
		ev->flags |= BLK_F_CGROUP;
	}
	if (r->pdu_len && r->pdu_len <= IOT_BPF_PDU_MAX) {
		ev->pdu = r->pdu;
		ev->pdu_len = r->pdu_len;
	}
}

/* the io record's head is an event record's (bpf_records.c reads both alike up to kind) */
#define SAME_AT(f) (offsetof(struct iot_bpf_io, f) == offsetof(struct iot_bpf_ev, f))
_Static_assert(SAME_AT(time) && SAME_AT(sector) && SAME_AT(cgroup) && SAME_AT(bytes) &&
                   SAME_AT(action) && SAME_AT(pid) && SAME_AT(dev) && SAME_AT(cpu) &&
                   SAME_AT(error) && SAME_AT(kind),
               "an io record's completion is laid out as an event record");
_Static_assert(sizeof(struct iot_bpf_io) == 72, "the io record is 72 bytes");

/*
 * One IO as the records the blk tracer would have written for it: Q at its queue time (the
 * bio's, on bio-based devices; the request's allocation, on request-based ones, where the
 * kernel keeps no queue time), D at its issue, C at its completion. Q and D carry the issuing
 * task and CPU, C the completing one (bpf_order.c makes Q and D when they go out).
 */
static int io_records(struct cap_backend_state *s, const struct iot_bpf_io *r)
{
	struct iot_bpf_ev head; /* the completion, as an event record: its head, no PDU */
	struct blk_event ev;
	uint64_t t_queue = 0;

	memcpy(&head, r, offsetof(struct iot_bpf_ev, kind) + sizeof(head.kind));
	head.pdu_len = 0; /* all ev_from() reads past the head */
	ev_from(&ev, &head);
	if (r->t_queue && r->t_queue <= (r->t_issue ? r->t_issue : r->time)) {
		t_queue = r->t_queue;
		if (r->time - r->t_queue > s->hold / 2 && s->hold < HOLD_IO_MAX_NS)
			s->hold = 2 * (r->time - r->t_queue) < HOLD_IO_MAX_NS
			              ? 2 * (r->time - r->t_queue)
			              : HOLD_IO_MAX_NS;
	}
	return capbpf_push_io(s, &ev, t_queue, r->t_issue, r->issue_pid, r->issue_cpu);
}

static int set_name(struct cap_backend_state *s, uint32_t pid, const char *comm)
{
	const char *had = bt_comm_table_get(s->names, pid);
	size_t len = strnlen(comm, IOT_BPF_COMM);

	if (had && !strncmp(had, comm, len) && !had[len])
		return 0;
	if (bt_comm_table_set(s->names, pid, comm, len))
		return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
	return 0;
}

int capbpf_on_record(void *ctx, void *data, size_t size)
{
	struct cap_backend_state *s = ctx;
	const struct iot_bpf_ev *r = data;
	struct blk_event ev;

	if (size >= sizeof(struct iot_bpf_gap) &&
	    ((const struct iot_bpf_gap *)data)->kind == IOT_REC_GAP)
		return s->err = capbpf_sum_add_gap(s, data);
	if (size >= sizeof(struct iot_bpf_name) &&
	    ((const struct iot_bpf_name *)data)->kind == IOT_REC_NAME) {
		const struct iot_bpf_name *n = data;

		return s->err = set_name(s, n->pid, n->comm);
	}
	if (size >= sizeof(struct iot_bpf_io) &&
	    ((const struct iot_bpf_io *)data)->kind == IOT_REC_IO) {
		s->records++;
		return s->err = io_records(s, data);
	}
	if (size < sizeof(*r) || r->kind != IOT_REC_EVENT)
		return 0;
	s->records++;
	/* a record of a task whose name the reader may not have carries it */
	if (r->comm[0] && (s->err = set_name(s, r->pid, r->comm)))
		return s->err;
	ev_from(&ev, r);
	s->err = capbpf_push(s, &ev);
	return s->err; /* an error stops ring_buffer__consume() */
}

#else

typedef int capbpf_not_built; /* not an empty translation unit */

#endif
