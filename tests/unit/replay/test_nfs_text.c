/* SPDX-License-Identifier: MIT */
/* Unit tests: the NFS replay's text and --verify's (replay/nfs_text.c), and the document with
 * --verify's object (nfs_json.c), from stats filled by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/nfs_replay.h"

#include "../memtext.h"

enum { NFS3ERR_NOENT = 2, NFS3ERR_ACCES = 13 };

static char *render(const struct nfs_replay_opts *o, const struct nfs_replay_stats *st,
                    const struct nfs_verify_result *v)
{
	struct memtext m;
	FILE *f = memtext_start(&m);

	nfs_replay_text(f, o, st);
	if (v)
		nfs_verify_text(f, "/ref", v);
	return memtext_end(&m);
}

/* Two procedures, 10 calls over 2 s replayed in 1 s onto a directory. */
static void fill(struct nfs_replay_stats *st, struct nr_proc procs[2])
{
	memset(st, 0, sizeof(*st));
	memset(procs, 0, 2 * sizeof(*procs));
	procs[0] = (struct nr_proc){.vers = 3, .name = "READ", .captured = 6, .replayed = 6};
	procs[1] = (struct nr_proc){
	    .vers = 3, .name = "LOOKUP", .captured = 4, .replayed = 4, .diverged = 1};
	for (int i = 0; i < 2; i++) {
		hist_init(&procs[i].lat);
		hist_init(&procs[i].srt);
	}
	hist_add(&procs[0].lat, 2500);
	hist_add(&procs[0].srt, 1500000);
	st->target_kind = "directory";
	st->calls = st->replayed = 10;
	st->same = 9;
	st->diverged = 1;
	st->capture_span_ns = 2000000000;
	st->replay_span_ns = 1000000000;
	st->cap_bytes_read = st->bytes_read = 3u << 20;
	st->streams = 1;
	st->max_inflight = 2;
	st->dep_waits = 5;
	st->file_waits = 6;
	st->depth_waits = 7;
	hist_init(&st->lag);
	st->procs = procs;
	st->nprocs = 2;
}

static void test_text(void **state)
{
	struct nfs_replay_opts o = {.target_dir = "/mnt/t"};
	struct nr_proc procs[2];
	struct nfs_replay_stats st;
	char *s;

	(void)state;
	fill(&st, procs);
	s = render(&o, &st, NULL);
	assert_string_equal(
	    s, "replayed 10 of 10 NFS calls onto directory '/mnt/t'\n"
	       "  capture:  2.000 s, 3.0 MiB read, 0.0 MiB written\n"
	       "  replay:   1.000 s (10 calls/s), 3.0 MiB read, 0.0 MiB written, 1 stream, up to 2 "
	       "in flight\n"
	       "  outcomes: 9 as in the capture, 1 diverged, 0 not answered in the capture\n"
	       "\n"
	       "  procedure             captured  replayed  skipped  refused  diverged    lat p50 "
	       "   lat p99 capture p50\n"
	       "  v3 READ                      6         6        0        0         0     2.5 us "
	       "    2.5 us    1.50 ms\n"
	       "  v3 LOOKUP                    4         4        0        0         1          - "
	       "         -          -\n"
	       "  waits:    5 for the dependency rule, 6 for the same file, 7 for the depth cap\n"
	       "  errors:   0 calls failed in the replay\n");
	free(s);
}

/* The optional lines: each when its count is not 0, hostile paths escaped. */
static void test_optional(void **state)
{
	struct nfs_replay_opts o = {.nfs_url = "nfs://h/e", .prepare = true, .record_dir = "rec"};
	struct nr_proc procs[2];
	struct nr_div div = {.proc = 1, .cap_status = 0, .rep_status = NFS3ERR_NOENT, .n = 1};
	struct nfs_replay_stats st;
	char *s;

	(void)state;
	fill(&st, procs);
	st.target_kind = "nfs";
	st.stopped = true;
	st.streams = 3;
	st.prep_dirs = 2;
	st.prep_files = 1;
	st.prep_failed = 1;
	st.divs = &div;
	st.ndivs = 1;
	st.divs_other = 4;
	st.shown[0] = (struct nr_div_shown){.seq = 17, .proc = 1, .rep_status = NFS3ERR_ACCES};
	strcpy(st.shown[0].path, "a\nb");
	st.nshown = 1;
	hist_add(&st.lag, 900);
	st.placeholders = 3;
	st.special = 1;
	st.late = 2;
	st.errors = 8;
	s = render(&o, &st, NULL);
	assert_non_null(strstr(s, "onto nfs 'nfs://h/e' (interrupted)\n"));
	assert_non_null(strstr(s, ", 3 streams, up to 2 in flight\n"));
	assert_non_null(strstr(s, "  prepared: 2 directories, 1 files (0.0 MiB, holes), 0 symlinks "
	                          "(some failed)\n"));
	assert_null(strstr(s, "recorded:")); /* no v4 call */
	assert_non_null(strstr(s,
	                       "\n  diverged:\n    v3 LOOKUP            capture NFS_OK           "
	                       "replay NOENT                    1\n"));
	assert_non_null(strstr(s, "    (4 more, of other procedures and statuses)\n"));
	assert_non_null(strstr(s, "\n  divergences (first 1):\n    call 17 v3 LOOKUP 'a\\nb': "
	                          "capture NFS_OK, replay ACCES\n"));
	assert_non_null(strstr(s, "  issue lag: p50 "));
	assert_non_null(strstr(s, "  3 calls on handles the capture never named (under "
	                          ".iotape-unnamed/)\n"));
	assert_non_null(strstr(s, "  refused:  1 calls moving data to or from a FIFO"));
	assert_null(strstr(s, "hostile names"));
	assert_non_null(strstr(s, "  2 calls came out of call order"));
	assert_null(strstr(s, "MOUNT, portmap"));
	assert_null(strstr(s, "owners or groups"));
	assert_null(strstr(s, "  written:  "));
	assert_non_null(strstr(s, "  errors:   8 calls failed in the replay\n"));
	free(s);

	/* a v4 call replayed into --record: the recording's v3 names are said */
	procs[0].vers = 4;
	s = render(&o, &st, NULL);
	assert_non_null(strstr(s, "  recorded: 'rec' holds every call as NFSv3"));
	free(s);
}

static void test_verify(void **state)
{
	struct nfs_replay_opts o = {.target_dir = "/mnt/t"};
	struct nr_proc procs[2];
	struct nfs_replay_stats st;
	struct nfs_verify_result v = {.entries = 12, .differences = 3, .bytes = 1u << 20};
	json_t *root, *vo;
	char *s;

	(void)state;
	fill(&st, procs);
	strcpy(v.shown[0].path, "d/f");
	strcpy(v.shown[0].what, "size 4 against 5");
	v.nshown = 1;
	s = render(&o, &st, &v);
	assert_non_null(strstr(s, "  errors:   0 calls failed in the replay\n"
	                          "  verify:   12 names beside '/ref', 1.0 MiB read: 3 differ (the "
	                          "first 1 listed)\n"
	                          "    d/f: size 4 against 5\n"));
	free(s);

	s = nfs_replay_json_verified(&o, &st, "/ref", &v);
	assert_non_null(s);
	root = json_loads(s, 0, NULL);
	free(s);
	assert_non_null(root);
	vo = json_object_get(root, "verify");
	assert_string_equal(json_string_value(json_object_get(vo, "reference")), "/ref");
	assert_int_equal(json_integer_value(json_object_get(vo, "entries")), 12);
	assert_int_equal(json_integer_value(json_object_get(vo, "differences")), 3);
	assert_int_equal(json_integer_value(json_object_get(vo, "bytes")), 1 << 20);
	assert_string_equal(json_string_value(json_object_get(
	                        json_array_get(json_object_get(vo, "first"), 0), "what")),
	                    "size 4 against 5");
	assert_non_null(json_object_get(root, "procedures"));
	json_decref(root);

	/* without a result, the document of a replay not verified */
	s = nfs_replay_json_verified(&o, &st, NULL, NULL);
	assert_null(strstr(s, "\"verify\""));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_optional),
	    cmocka_unit_test(test_verify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
