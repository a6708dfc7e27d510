/* SPDX-License-Identifier: MIT */
/* The NFS replay's text summary and --verify's, from the structs its JSON view (nfs_json.c) is
 * written of. */
#include <stdio.h>

#include "common/textesc.h"
#include "common/units.h"
#include "replay/nfs_replay.h"

static const char *proc_label(const struct nr_proc *p, char *buf, size_t len)
{
	snprintf(buf, len, "v%u %s", p->vers, p->name);
	return buf;
}

/* A quantile of h as a duration, or "-" when h is empty. */
static const char *quantile(const struct hist *h, double q, char *buf, size_t len)
{
	return h->count ? iot_fmt_dur((double)hist_quantile(h, q), buf, len) : "-";
}

/* The header: the capture, the replay, what --prepare made, the outcomes. */
static void text_head(FILE *f, const struct nfs_replay_opts *o, const struct nfs_replay_stats *st)
{
	fprintf(f, "replayed %llu of %llu NFS calls onto %s '%s'%s\n",
	        (unsigned long long)st->replayed, (unsigned long long)st->calls, st->target_kind,
	        o->nfs_url ? o->nfs_url : o->target_dir, st->stopped ? " (interrupted)" : "");
	fprintf(f, "  capture:  %.3f s, %.1f MiB read, %.1f MiB written\n",
	        st->capture_span_ns / 1e9, st->cap_bytes_read / IOT_MIB,
	        st->cap_bytes_written / IOT_MIB);
	fprintf(f,
	        "  replay:   %.3f s (%.0f calls/s), %.1f MiB read, %.1f MiB written, %u stream%s, "
	        "up to %u in flight\n",
	        st->replay_span_ns / 1e9,
	        st->replay_span_ns ? st->replayed * 1e9 / (double)st->replay_span_ns : 0.0,
	        st->bytes_read / IOT_MIB, st->bytes_written / IOT_MIB,
	        st->streams ? st->streams : 1, st->streams > 1 ? "s" : "", st->max_inflight);
	if (o->prepare)
		fprintf(f,
		        "  prepared: %llu directories, %llu files (%.1f MiB, holes), %llu "
		        "symlinks%s\n",
		        (unsigned long long)st->prep_dirs, (unsigned long long)st->prep_files,
		        st->prep_bytes / IOT_MIB, (unsigned long long)st->prep_links,
		        st->prep_failed ? " (some failed)" : "");
	if (st->payload_cut)
		fprintf(f,
		        "  written:  %llu WRITEs the capture does not hold whole (the snaplen): "
		        "%.1f MiB of a generated pattern in their place\n",
		        (unsigned long long)st->payload_cut, st->payload_cut_bytes / IOT_MIB);
	fprintf(f,
	        "  outcomes: %llu as in the capture, %llu diverged, %llu not answered in the "
	        "capture\n",
	        (unsigned long long)st->same, (unsigned long long)st->diverged,
	        (unsigned long long)st->unanswered);
	/* where the user will compare: the recording does not hold v4 calls as v4 */
	for (unsigned i = 0; o->record_dir && i < st->nprocs; i++) {
		if (st->procs[i].vers != 4 || !st->procs[i].replayed)
			continue;
		fprintf(f,
		        "  recorded: '%s' holds every call as NFSv3, v4 ones as the v3 procedure "
		        "of their action (a v4 LOOKUP as a v3 GETATTR, OPEN as ACCESS or CREATE, "
		        "ALLOCATE as SETATTR): compare its nfs3.* figures with other recordings, "
		        "not with the capture's v4 ones\n",
		        o->record_dir);
		break;
	}
}

/* A line per procedure, then the divergences by status and the first ones by name. */
static void text_procs(FILE *f, const struct nfs_replay_stats *st)
{
	char b[3][24], l[48], cs[48], rs[48], pb[640];

	fprintf(f, "\n  %-20s %9s %9s %8s %8s %9s %10s %10s %10s\n", "procedure", "captured",
	        "replayed", "skipped", "refused", "diverged", "lat p50", "lat p99", "capture p50");
	for (unsigned i = 0; i < st->nprocs; i++) {
		const struct nr_proc *p = &st->procs[i];

		fprintf(f, "  %-20s %9llu %9llu %8llu %8llu %9llu %10s %10s %10s\n",
		        proc_label(p, l, sizeof(l)), (unsigned long long)p->captured,
		        (unsigned long long)p->replayed, (unsigned long long)p->skipped,
		        (unsigned long long)p->refused, (unsigned long long)p->diverged,
		        quantile(&p->lat, .5, b[0], 24), quantile(&p->lat, .99, b[1], 24),
		        quantile(&p->srt, .5, b[2], 24));
	}
	if (st->ndivs || st->divs_other) {
		fprintf(f, "\n  diverged:\n");
		for (unsigned i = 0; i < st->ndivs; i++) {
			const struct nr_div *d = &st->divs[i];
			const struct nr_proc *p = &st->procs[d->proc];

			nr_status_str(d->cap_status, p->vers, cs, sizeof(cs));
			nr_status_str(d->rep_status, p->vers, rs, sizeof(rs));
			fprintf(f, "    %-20s capture %-16s replay %-16s %9llu\n",
			        proc_label(p, l, sizeof(l)), cs, rs, (unsigned long long)d->n);
		}
		if (st->divs_other)
			fprintf(f, "    (%llu more, of other procedures and statuses)\n",
			        (unsigned long long)st->divs_other);
	}
	if (st->nshown) {
		fprintf(f, "\n  divergences (first %u):\n", st->nshown);
		for (unsigned i = 0; i < st->nshown; i++) {
			const struct nr_div_shown *d = &st->shown[i];
			const struct nr_proc *p = &st->procs[d->proc];

			nr_status_str(d->cap_status, p->vers, cs, sizeof(cs));
			nr_status_str(d->rep_status, p->vers, rs, sizeof(rs));
			fprintf(f, "    call %llu %s '%s': capture %s, replay %s\n",
			        (unsigned long long)d->seq, proc_label(p, l, sizeof(l)),
			        txt_escape(d->path, pb, sizeof(pb)), cs, rs);
		}
	}
}

/* Lag, waits, and a line per kind of call not replayed as captured (only when there were). */
static void text_tail(FILE *f, const struct nfs_replay_stats *st)
{
	char d[3][24];

	if (st->lag.count)
		fprintf(f, "  issue lag: p50 %s  p99 %s  max %s\n",
		        iot_fmt_dur((double)hist_quantile(&st->lag, 0.5), d[0], sizeof(d[0])),
		        iot_fmt_dur((double)hist_quantile(&st->lag, 0.99), d[1], sizeof(d[1])),
		        iot_fmt_dur((double)st->lag.max, d[2], sizeof(d[2])));
	fprintf(f,
	        "  waits:    %llu for the dependency rule, %llu for the same file, %llu for the "
	        "depth cap\n",
	        (unsigned long long)st->dep_waits, (unsigned long long)st->file_waits,
	        (unsigned long long)st->depth_waits);
	if (st->attrs_skipped)
		fprintf(f, "  %llu calls' owners or groups not set (not root, or v4 owner names)\n",
		        (unsigned long long)st->attrs_skipped);
	if (st->placeholders)
		fprintf(f, "  %llu calls on handles the capture never named (under %s/)\n",
		        (unsigned long long)st->placeholders, NR_UNNAMED_DIR);
	if (st->hostile || st->escapes || st->outside_root)
		fprintf(f,
		        "  refused:  %llu calls with hostile names, %llu paths leaving the target, "
		        "%llu outside --root-path\n",
		        (unsigned long long)st->hostile, (unsigned long long)st->escapes,
		        (unsigned long long)st->outside_root);
	if (st->special || st->linked)
		fprintf(f,
		        "  refused:  %llu calls moving data to or from a FIFO, socket or device, "
		        "%llu changing a file also linked from elsewhere\n",
		        (unsigned long long)st->special, (unsigned long long)st->linked);
	if (st->late)
		fprintf(f, "  %llu calls came out of call order (answered more than %.0f s late)\n",
		        (unsigned long long)st->late, NR_HORIZON_NS / 1e9);
	if (st->other_rpc)
		fprintf(f, "  %llu MOUNT, portmap or callback calls not replayed\n",
		        (unsigned long long)st->other_rpc);
	fprintf(f, "  errors:   %llu calls failed in the replay\n", (unsigned long long)st->errors);
}

void nfs_replay_text(FILE *f, const struct nfs_replay_opts *o, const struct nfs_replay_stats *st)
{
	text_head(f, o, st);
	text_procs(f, st);
	text_tail(f, st);
}

void nfs_verify_text(FILE *f, const char *ref, const struct nfs_verify_result *v)
{
	char pb[640], rb[640], wb[640];

	fprintf(f, "  verify:   %llu names beside '%s', %.1f MiB read: %llu differ",
	        (unsigned long long)v->entries, txt_escape(ref, rb, sizeof(rb)), v->bytes / IOT_MIB,
	        (unsigned long long)v->differences);
	if (v->differences > v->nshown)
		fprintf(f, " (the first %u listed)", v->nshown);
	fprintf(f, "\n");
	for (unsigned i = 0; i < v->nshown; i++)
		fprintf(f, "    %s: %s\n", txt_escape(v->shown[i].path, pb, sizeof(pb)),
		        txt_escape(v->shown[i].what, wb, sizeof(wb)));
}
