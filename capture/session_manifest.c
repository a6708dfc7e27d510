/* SPDX-License-Identifier: MIT */
/* A capture's manifest: its header before tracing starts, its first save, its end. */
#include "capture/session_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/jsonint.h"
#include "formats/manifest.h"
#include "formats/rundir.h"

static json_t *argv_json(char *const *argv, int argc)
{
	json_t *a = json_array();

	for (int i = 0; argv && (argc < 0 || i < argc) && argv[i]; i++)
		json_array_append_new(a, json_string(argv[i]));
	return a;
}

void session_build_header(struct run *r)
{
	const struct cap_opts *o = r->o;
	FILE *mi = fopen("/proc/self/mountinfo", "re");

	r->root = manifest_header(NULL, (const char *const *)o->argv, o->argc);
	json_object_set_new(r->root, "state", json_string("running"));
	if (o->act_mask) {
		char m[200];

		json_object_set_new(r->root, "act_mask",
		                    json_string(cap_mask_str(o->act_mask, m, sizeof(m))));
	}
	if (o->nlabels) {
		json_t *labels = json_object();

		for (unsigned i = 0; i < o->nlabels; i++) {
			const char *eq = strchr(o->labels[i], '=');
			char key[256];

			/* the CLI checks them; a library caller's bad one is left out */
			if (!eq || eq == o->labels[i] || (size_t)(eq - o->labels[i]) >= sizeof(key))
				continue;
			snprintf(key, sizeof(key), "%.*s", (int)(eq - o->labels[i]), o->labels[i]);
			json_object_set_new(labels, key, json_string(eq + 1));
		}
		json_object_set_new(r->root, "labels", labels);
	}
	r->jdevs = json_array();
	for (unsigned i = 0; i < o->ndevs; i++) {
		json_t *d = cap_dev_json(&r->devs[i]), *mounts = json_array();
		char files[128];

		if (mi) {
			rewind(mi);
			cap_mounts_json(mi, &r->devs[i], mounts);
		}
		json_object_set_new(d, "mounts", mounts);
		snprintf(files, sizeof(files), "%s.blktrace", r->devs[i].name);
		json_object_set_new(d, "files", json_string(files));
		json_array_append_new(r->jdevs, d);
	}
	{
		/* what each device is part of, discovered before tracing starts (its reads are
		 * not in the trace) */
		struct cap_stack_env env;

		cap_stack_env_real(&env, mi);
		cap_devstack(&env, r->devs, o->ndevs, o->devs, o->names, r->jdevs);
	}
	if (mi)
		fclose(mi);
	json_object_set_new(r->root, "devices", json_incref(r->jdevs));
	r->backend = json_object();
	json_object_set_new(r->root, "backend", json_incref(r->backend));
	if (o->iface) {
		r->network = json_pack("{s:s, s:s, s:i, s:s, s:s}", "interface", o->iface, "filter",
		                       o->filter ? o->filter : CAP_DEFAULT_FILTER, "snaplen",
		                       o->snaplen ? o->snaplen : CAP_DEFAULT_SNAPLEN, "file",
		                       RUNDIR_PCAP, "format", "pcap-ns");
		json_object_set_new(r->network, "addresses", cap_iface_addresses_json(o->iface));
		/* what the capture kept of which packets, for analyze to say */
		json_object_set_new(
		    r->network, "kept",
		    o->filter ? json_pack("[{s:s, s:i}]", "filter", o->filter, "snaplen",
		                          o->snaplen ? o->snaplen : CAP_DEFAULT_SNAPLEN)
		              : json_pack("[{s:s, s:i}, {s:s, s:i}]", "filter", CAP_DEFAULT_FILTER,
		                          "snaplen", o->snaplen ? o->snaplen : CAP_DEFAULT_SNAPLEN,
		                          "filter", "other " CAP_HEADERS_FILTER, "snaplen",
		                          CAP_HEADERS_SNAPLEN));
		json_object_set_new(r->root, "network", json_incref(r->network));
	}
	if (o->cmd)
		json_object_set_new(r->root, "command",
		                    json_pack("{s:o}", "argv", argv_json(o->cmd, -1)));
}

/* An early manifest: proves the directory is writable and describes the run even if iotape is
 * killed with SIGKILL; and the room for the last one set aside. */
int session_first_manifest(struct run *r, struct iot_err *e)
{
	char *text;
	int ret;

	if ((ret = manifest_save(r->o->rundir, r->root, e)))
		return ret;
	text = json_dumps(r->root, JSON_INDENT(2));
	ret = text ? session_reserve_room(r, strlen(text), e)
	           : iot_err_set(e, -ENOMEM, "out of memory");
	free(text);
	return ret;
}

/*
 * What a level of detail records, and which of analyze's figures it therefore cannot give
 * (docs/capture.md "Levels of detail"): readers show "not_given" beside their figures.
 */
static json_t *detail_json(enum cap_detail d, const struct cap_opts *o)
{
	switch (d) {
	case CAP_DETAIL_IO:
		return json_pack(
		    "{s:s, s:s, s:[sssssssss], s:[sssss], s:s}", "level", "io", "records",
		    "Q D C per IO, written at its completion (bio-based devices: Q C)",
		    "actions_absent", "G", "I", "M", "F", "P", "U", "R", "X", "A", "not_given",
		    "q2g", "g2i", "q2m", "i2d", "m2d", "note",
		    "on request-based devices Q is the request's allocation (the kernel keeps no "
		    "queue time): q2d and q2c start there, and merges are counted "
		    "(backend.merges), not recorded");
	case CAP_DETAIL_SUMMARY:
		/* the bins and threshold it keeps (summary.json says them too) */
		return json_pack(
		    "{s:s, s:s, s:[sssssssss], s:o, s:o}", "level", "summary", "records",
		    "none: summary.json holds the figures", "not_given", "events", "q2d",
		    "q2c (request-based devices)", "q2g", "g2i", "q2m", "depth",
		    "timeline depth and idle time", "per-IO records", "interval_ns",
		    json_u64(o->sum_interval_ns ? o->sum_interval_ns : BLK_SUMMARY_INTERVAL_NS),
		    "idle_threshold_ns",
		    json_u64(o->sum_idle_ns ? o->sum_idle_ns : BLK_SUMMARY_IDLE_NS));
	default:
		return json_pack("{s:s, s:s}", "level", "events", "records",
		                 "every blktrace action");
	}
}

void session_finish_manifest(struct run *r, const char *state)
{
	struct cap_result *res = r->res;
	json_t *clock;

	json_object_set_new(r->root, "state", json_string(state));
	clock =
	    json_pack("{s:s, s:s, s:o, s:o}", "trace_clock", "mono", "method",
	              "CLOCK_REALTIME read on both sides of CLOCK_MONOTONIC, tightest of 8",
	              "start", cap_clock_pair_json(&r->start), "end", cap_clock_pair_json(&r->end));
	json_object_set_new(r->root, "clock", clock);
	json_object_set_new(r->root, "duration_ns", json_u64((r->end.mono_ns - r->start.mono_ns)));
	json_object_set_new(r->backend, "name",
	                    json_string(r->o->ndevs ? cap_backend_name(res->backend) : "none"));
	json_object_set_new(r->backend, "trace_clock",
	                    json_string(res->backend == CAP_BACKEND_RELAY ? "ktime_get" : "mono"));
	if (r->o->ndevs)
		json_object_set_new(r->root, "detail", detail_json(r->detail, r->o));
	if (r->sink) {
		unsigned ncg;
		const uint64_t *ids = cap_sink_cgroups(r->sink, &ncg);

		if (ncg) {
			struct cap_cgroups *now = NULL;

			cap_cgroups_scan(&now);
			json_object_set_new(r->root, "cgroups",
			                    cap_cgroups_json(r->cg, now, ids, ncg));
			cap_cgroups_free(now);
		}
	}
	for (unsigned i = 0; i < r->o->ndevs && r->sink; i++) {
		json_t *jd = json_array_get(r->jdevs, i);
		struct blk_span sp = cap_sink_dev_span(r->sink, i);
		const struct blk_extent *x = &sp.issued;

		json_object_set_new(jd, "events", json_u64(cap_sink_dev_events(r->sink, i)));
		/* the trace's own span, which a movie needs before it reads the trace */
		json_object_set_new(jd, "first_event_ns",
		                    sp.any ? json_u64(sp.first) : json_null());
		json_object_set_new(jd, "last_event_ns", sp.any ? json_u64(sp.last) : json_null());
		json_object_set_new(
		    jd, "issued",
		    !sp.any   ? json_null()
		    : !x->ios ? json_pack("{s:i}", "ios", 0)
		              : json_pack("{s:o, s:o, s:o}", "ios", json_u64(x->ios), "lo_sector",
		                          json_u64(x->lo), "end_sector", json_u64(x->hi)));
	}
	if (r->sink)
		json_object_set_new(r->root, "threads", cap_sink_threads_json(r->sink));
	if (r->o->cmd) {
		json_t *c = json_object_get(r->root, "command");

		json_object_set_new(c, "ran", json_boolean(res->cmd_ran));
		if (res->cmd_ran)
			json_object_set_new(c, "wall_ns", json_u64(res->cmd_wall_ns));
		json_object_set_new(c, "exit_status",
		                    res->cmd_ran || res->cmd_error[0]
		                        ? json_integer(res->cmd_status)
		                        : json_null());
		if (res->cmd_error[0])
			json_object_set_new(c, "error", json_string(res->cmd_error));
	}
	json_object_set_new(
	    r->root, "counts",
	    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "events",
	              (json_int_t)res->totals.events, "trace_bytes", (json_int_t)res->totals.bytes,
	              "lost", (json_int_t)res->lost, "overrun", (json_int_t)res->overrun, "dropped",
	              (json_int_t)res->dropped, "reader_lost", (json_int_t)res->reader_lost,
	              "relay_dropped", (json_int_t)res->relay_dropped, "foreign_events",
	              (json_int_t)(r->sink ? cap_sink_foreign(r->sink) : 0), "packets",
	              (json_int_t)res->totals.packets, "packet_drops",
	              (json_int_t)res->totals.pkt_drops));
	{
		/* what capturing cost: all of iotape's threads, not the command */
		struct rusage ru;

		if (!getrusage(RUSAGE_SELF, &ru))
			json_object_set_new(
			    r->root, "iotape_cpu",
			    json_pack("{s:f, s:f, s:I}", "user_s",
			              ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, "sys_s",
			              ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, "max_rss_kb",
			              (json_int_t)ru.ru_maxrss));
	}
	if (res->stop_signal)
		json_object_set_new(r->root, "stopped_by_signal", json_integer(res->stop_signal));
	if (res->late_err)
		json_object_set_new(r->root, "error", json_string(res->late_msg));
}
