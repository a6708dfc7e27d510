/* SPDX-License-Identifier: MIT */
/* A capture's block backend started: the one asked for, or with auto the first that runs. */
#include "capture/session_int.h"

#include <stdio.h>

/* Start one backend; on failure everything it did is undone. */
static int try_backend(struct run *r, const struct cap_blk_ops *ops, struct iot_err *e)
{
	int ret = cap_reader_new(&r->rd, r->sink, e);

	r->detail = ops == &cap_bpf_ops ? r->o->detail : CAP_DETAIL_EVENTS;
	if (ret)
		return ret;
	cap_sink_keep_sequences(r->sink, ops == &cap_relay_ops);
	ret = ops->start(&r->bs, r->devs, r->o->ndevs, r->o, r->rd, e);
	if (ret) {
		/* close the per-CPU files before undoing the kernel settings (they pin them) */
		cap_reader_free(r->rd);
		r->rd = NULL;
		ops->teardown(r->bs, NULL, NULL, NULL);
		r->bs = NULL;
		return ret;
	}
	r->ops = ops;
	return 0;
}

/*
 * auto: bpf, else relay, else tracefs. Why each one before the one used could not run is said
 * once, in one line (and kept in the manifest); a busy device stops the capture instead.
 * Without bpf a --detail below events records every event: more than asked, nothing less.
 */
static int start_auto(struct run *r, struct iot_err *e)
{
	const struct cap_opts *o = r->o;
	struct iot_err bpf_e, relay_e;
	char why[1200];
	int ret;

	bpf_e.msg[0] = relay_e.msg[0] = '\0';
	ret = try_backend(r, &cap_bpf_ops, &bpf_e);
	r->res->backend = CAP_BACKEND_BPF;
	if (!ret || ret == -EBUSY) {
		if (ret)
			*e = bpf_e;
		return ret;
	}
	ret = try_backend(r, &cap_relay_ops, &relay_e);
	r->res->backend = CAP_BACKEND_RELAY;
	if (!ret || ret == -EBUSY) {
		if (ret)
			*e = relay_e;
		else
			snprintf(why, sizeof(why), "bpf backend unavailable (%s); using relay",
			         bpf_e.msg);
		if (!ret)
			json_object_set_new(r->backend, "fallback_reason", json_string(bpf_e.msg));
		if (!ret)
			cap_say(o->notice, o->arg, "%s", why);
		return ret;
	}
	snprintf(
	    why, sizeof(why),
	    "bpf backend unavailable (%s); relay backend unavailable (%s); using tracefs%s%s%s",
	    bpf_e.msg, relay_e.msg,
	    o->detail != CAP_DETAIL_EVENTS ? " (every event: --detail " : "",
	    o->detail != CAP_DETAIL_EVENTS ? cap_detail_name(o->detail) : "",
	    o->detail != CAP_DETAIL_EVENTS ? " needs bpf)" : "");
	cap_say(o->notice, o->arg, "%s", why);
	json_object_set_new(r->backend, "fallback_reason",
	                    json_pack("{s:s, s:s}", "bpf", bpf_e.msg, "relay", relay_e.msg));
	r->res->backend = CAP_BACKEND_TRACEFS;
	return try_backend(r, &cap_tracefs_ops, e);
}

int session_start_block(struct run *r, struct iot_err *e)
{
	const struct cap_opts *o = r->o;
	char why[160];
	int ret;

	if (o->detail != CAP_DETAIL_EVENTS &&
	    (o->backend == CAP_BACKEND_RELAY || o->backend == CAP_BACKEND_TRACEFS))
		return iot_err_set(e, -EINVAL,
		                   "--detail %s needs the bpf backend (--backend bpf or auto)",
		                   cap_detail_name(o->detail));
	if (cap_tracefs_recover(why, sizeof(why))) {
		cap_say(o->notice, o->arg, "%s", why);
		json_object_set_new(r->backend, "recovered", json_string(why));
	}
	switch (o->backend) {
	case CAP_BACKEND_RELAY:
		ret = try_backend(r, &cap_relay_ops, e);
		r->res->backend = CAP_BACKEND_RELAY;
		return ret;
	case CAP_BACKEND_TRACEFS:
		r->res->backend = CAP_BACKEND_TRACEFS;
		return try_backend(r, &cap_tracefs_ops, e);
	case CAP_BACKEND_BPF:
		r->res->backend = CAP_BACKEND_BPF;
		return try_backend(r, &cap_bpf_ops, e);
	default:
		return start_auto(r, e);
	}
}
