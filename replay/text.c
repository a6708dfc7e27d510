/* SPDX-License-Identifier: MIT */
/* The block replay's text summary, from the struct its JSON view (replay/json.c) is written of. */
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "replay/replay.h"

static double rate(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

static void text_fidelity(FILE *f, const struct rp_fid_result *r)
{
	fprintf(f,
	        "  fidelity: %llu IOs onto block devices against the kernel's %llu requests "
	        "(--capture)%s\n",
	        (unsigned long long)r->expected, (unsigned long long)r->observed,
	        r->truncated ? ", the first ones" : "");
	fprintf(f,
	        "            %llu as issued, %llu split (into %llu requests), %llu merged, %llu "
	        "missing; %llu reordered; %llu requests not from the replay\n",
	        (unsigned long long)r->equal, (unsigned long long)r->split,
	        (unsigned long long)r->split_requests, (unsigned long long)r->merged,
	        (unsigned long long)r->missing, (unsigned long long)r->reordered,
	        (unsigned long long)r->extra);
	fprintf(f, "            sequence %s\n", r->sequence_equal ? "equal" : "not equal");
}

/* The header, the trace's and the replay's rates, and a line per operation there was. */
static void text_rates(FILE *f, const struct replay_stats *st)
{
	static const char *const names[RP_OP_N] = {"reads", "writes", "flushes", "discards",
	                                           "write-zeroes"};
	char a[32], b[32], t1[40], t2[40];

	fprintf(f, "replayed %llu of %llu IOs on %s%s\n", (unsigned long long)st->ios,
	        (unsigned long long)st->trace_ios, st->engine, st->stopped ? " (interrupted)" : "");
	/* data only: a discard's or write-zeroes' range is no transfer (fstrim's 592 MiB in
	 * milliseconds would read as 10 GiB/s) */
	fprintf(f,
	        "  trace:    %10.0f IOPS %9.2f MiB/s of reads and writes over %s s, depth up "
	        "to %u\n",
	        rate(st->trace_ios, st->trace_span_ns),
	        rate(st->trace_bytes, st->trace_span_ns) / IOT_MIB,
	        iot_fmt_secs(st->trace_span_ns, 3, t1, sizeof(t1)), st->trace_max_depth);
	fprintf(f,
	        "  replay:   %10.0f IOPS %9.2f MiB/s of reads and writes over %s s (%.2f%% of "
	        "the trace's time), in flight up to %u\n",
	        rate(st->ios, st->replay_span_ns), rate(st->bytes, st->replay_span_ns) / IOT_MIB,
	        iot_fmt_secs(st->replay_span_ns, 3, t2, sizeof(t2)),
	        st->trace_span_ns ? 100.0 * st->replay_span_ns / st->trace_span_ns : 0.0,
	        st->max_inflight);
	for (int i = 0; i < RP_OP_N; i++) {
		char label[16];

		if (!st->trace_ops[i] && !st->ops[i])
			continue;
		snprintf(label, sizeof(label), "%s:", names[i]);
		fprintf(f, "  %-13s %9llu in the trace, %9llu replayed", label,
		        (unsigned long long)st->trace_ops[i], (unsigned long long)st->ops[i]);
		if (i == RP_OP_READ || i == RP_OP_WRITE)
			fprintf(f, ", %s of %s", iot_fmt_bytes(st->op_bytes[i], a, sizeof(a)),
			        iot_fmt_bytes(st->trace_op_bytes[i], b, sizeof(b)));
		else if (i != RP_OP_FLUSH)
			fprintf(f, ", covering %s of %s (not data: not in MiB/s)",
			        iot_fmt_bytes(st->op_bytes[i], a, sizeof(a)),
			        iot_fmt_bytes(st->trace_op_bytes[i], b, sizeof(b)));
		fprintf(f, "\n");
	}
}

/* Splits, issue lag and latency: each line only when there is something to say. */
static void text_timing(FILE *f, const struct replay_stats *st)
{
	char d[4][24];

	if (st->split_ios_max && !st->split_estimate)
		fprintf(f,
		        "  split:    %llu IOs longer than the target takes in one request went to "
		        "it as %llu requests\n",
		        (unsigned long long)st->split_ios, (unsigned long long)st->split_requests);
	else if (st->split_ios_max)
		fprintf(f,
		        "  split:    %llu to %llu IOs longer than the target takes in one request "
		        "went to it as %llu to %llu requests (an estimate: where the replay's "
		        "buffers lie in memory decides)\n",
		        (unsigned long long)st->split_ios, (unsigned long long)st->split_ios_max,
		        (unsigned long long)st->split_requests,
		        (unsigned long long)st->split_requests_max);
	if (st->lag.count)
		fprintf(f, "  issue lag: p50 %s  p99 %s  max %s\n",
		        iot_fmt_dur((double)hist_quantile(&st->lag, 0.5), d[0], sizeof(d[0])),
		        iot_fmt_dur((double)hist_quantile(&st->lag, 0.99), d[1], sizeof(d[1])),
		        iot_fmt_dur((double)st->lag.max, d[2], sizeof(d[2])));
	if (st->lat.count)
		fprintf(f, "  latency:  p50 %s  p90 %s  p99 %s  max %s\n",
		        iot_fmt_dur((double)hist_quantile(&st->lat, 0.5), d[0], sizeof(d[0])),
		        iot_fmt_dur((double)hist_quantile(&st->lat, 0.9), d[1], sizeof(d[1])),
		        iot_fmt_dur((double)hist_quantile(&st->lat, 0.99), d[2], sizeof(d[2])),
		        iot_fmt_dur((double)st->lat.max, d[3], sizeof(d[3])));
}

/* What was not replayed as the trace has it: a line per count that is not 0. */
static void text_skipped(FILE *f, const struct replay_stats *st)
{
	if (st->skipped_writes)
		fprintf(f, "  skipped:  %llu writes (no --allow-writes)\n",
		        (unsigned long long)st->skipped_writes);
	if (st->writes_as_reads)
		fprintf(f, "  %llu writes replayed as reads\n",
		        (unsigned long long)st->writes_as_reads);
	if (st->skipped_discard || st->skipped_wzero)
		fprintf(f,
		        "  skipped:  %llu discards, %llu write-zeroes (target cannot, or "
		        "--skip-*)\n",
		        (unsigned long long)st->skipped_discard,
		        (unsigned long long)st->skipped_wzero);
	if (st->skipped_unmapped)
		fprintf(f, "  skipped:  %llu IOs of devices with no target\n",
		        (unsigned long long)st->skipped_unmapped);
	if (st->skipped_range)
		fprintf(f,
		        "  skipped:  %llu IOs past the end of the target (see --wrap, --offset)\n",
		        (unsigned long long)st->skipped_range);
	if (st->skipped_other)
		fprintf(f, "  skipped:  %llu passthrough or empty requests\n",
		        (unsigned long long)st->skipped_other);
	if (st->wrapped)
		fprintf(f, "  wrapped:  %llu IOs\n", (unsigned long long)st->wrapped);
	if (st->unaligned_buffered)
		fprintf(f, "  %llu IOs not aligned for O_DIRECT went through the page cache\n",
		        (unsigned long long)st->unaligned_buffered);
	if (st->pend_evicted)
		fprintf(f, "  %llu trace IOs had no completion event\n",
		        (unsigned long long)st->pend_evicted);
}

void replay_stats_text(FILE *f, const struct replay_stats *st)
{
	text_rates(f, st);
	text_timing(f, st);
	if (st->fidelity)
		text_fidelity(f, st->fidelity);
	fprintf(f, "  waits:    %llu for the dependency rule, %llu for the depth cap\n",
	        (unsigned long long)st->dep_waits, (unsigned long long)st->depth_waits);
	text_skipped(f, st);
	fprintf(f, "  errors:   %llu", (unsigned long long)st->errors);
	if (st->errors)
		fprintf(f, " (first: %s, IO #%llu)", strerror(-st->first_error),
		        (unsigned long long)st->first_error_seq);
	fprintf(f, "\n");
}
