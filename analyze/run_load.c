/* SPDX-License-Identifier: MIT */
/* One run's block trace and packets through a caller's feed, for report, compare and sweeps. */
#include "analyze/run_load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "formats/instream.h"
#include "formats/manifest.h"
#include "formats/pcap_src.h"

int run_load(struct run_src *s, const struct run_feed *f, struct run_load_notes *n,
             struct iot_err *e)
{
	struct manifest m;
	bool have_m;
	int ret = 0;

	memset(n, 0, sizeof(*n));
	if (s->summary && !s->block && !s->capture) {
		if (!f->summary)
			return iot_err_set(e, -EOPNOTSUPP, "'%s': a summary run (no records)",
			                   s->summary);
		ret = f->summary(f->ctx, s->summary, e);
		n->summary_read = !ret;
		return ret;
	}
	/* the run's manifest says what its devices are before the pass explains their gaps; the
	 * same manifest is the packets' clock */
	have_m = s->block && s->manifest && !manifest_load(s->manifest, &m, NULL);
	if (s->block) {
		ret = f->block(f->ctx, s->block, have_m ? &m : NULL, e);
		if (ret < 0)
			goto out;
		n->block_read = true;
		if (ret > 0) {
			n->block_partial = 1;
			n->block_e = *e;
		}
		ret = 0;
	}
	if (s->capture) {
		struct pcap_src *src;

		snprintf(n->capture_name, sizeof(n->capture_name), "%s",
		         in_stream_name(s->capture));
		ret = pcap_src_open_stream(&src, s->capture, e);
		s->capture = NULL; /* taken by the source, even on failure */
		if (ret)
			goto out;
		/* block and packets of one capture: one time axis via the clock pairs */
		ret = f->packets(f->ctx, src, have_m ? &m : NULL, e);
		n->capture_truncated = pcap_src_truncated(src);
		pcap_src_free(src);
		if (ret)
			iot_err_prefix(e, "'%s'", n->capture_name);
		if (ret > 0) {
			n->capture_partial = 1;
			n->capture_e = *e;
			ret = 0;
		}
	}
out:
	if (have_m)
		manifest_release(&m);
	return ret;
}

int run_summary_doc_check(const char *path, const json_t *doc, struct iot_err *e)
{
	const char *format = json_string_value(json_object_get(doc, "format"));

	if (format && !strcmp(format, MANIFEST_FORMAT))
		return iot_err_set(e, -EINVAL,
		                   "'%s': a run's manifest.json, not an 'iotape analyze --json' "
		                   "summary: give its run directory",
		                   path);
	if (!json_is_object(doc) ||
	    (!json_object_get(doc, "devices") && !json_object_get(doc, "nfs")))
		return iot_err_set(
		    e, -EINVAL, "'%s': not an 'iotape analyze --json' summary (no devices, no nfs)",
		    path);
	return 0;
}

bool run_summary_doc_partial(const json_t *doc)
{
	const json_t *nfs = json_object_get(doc, "nfs");

	return json_is_true(json_object_get(json_object_get(doc, "input"), "partial")) ||
	       json_is_true(json_object_get(json_object_get(nfs, "input"), "partial"));
}
