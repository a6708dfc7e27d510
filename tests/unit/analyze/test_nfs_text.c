/* SPDX-License-Identifier: MIT */
/* Unit tests: analyze's NFS text shows the figures of the statistics the "nfs" object is from. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analyze/nfs_text.h"
#include "analyze/run_summary.h"
#include "formats/pcap_src.h"

#include "../memtext.h"

static void test_sample_capture(void **s)
{
	struct pcap_src *src;
	struct nfs_pipe_file file = {.name = "net.pcap"};
	struct iot_err e = {""};
	struct blk_opts o;
	struct run_nfs n;
	unsigned bad = 0;
	struct memtext m;
	char *text, line[160];
	json_t *j;

	(void)s;
	assert_int_equal(pcap_src_open(&src, IOTAPE_SRCDIR "/samples/nfs/run/net.pcap", &e), 0);
	blk_opts_init(&o);
	assert_int_equal(run_nfs_init(&n, &o, 0, NULL, 0), 0);
	assert_int_equal(run_nfs_read(&n, &src, &file, 1, &e, &bad), 0);
	j = run_nfs_finish(&n, NULL);
	assert_non_null(j);
	nfs_text_render(memtext_start(&m), &file, 1, &n.s, &n.p, NULL);
	text = memtext_end(&m);
	/* the head line's counts are the pipe's, the procedure rows the statistics' */
	snprintf(line, sizeof(line), "capture 'net.pcap': %llu frames over ",
	         (unsigned long long)n.p.n.frames);
	assert_non_null(strstr(text, line));
	assert_non_null(strstr(text, "201 RPC calls, 201 replies\n"));
	snprintf(line, sizeof(line), "%-8s %-7s %-20s %9llu", "NFS", n.s.procs[1].version,
	         n.s.procs[1].name, (unsigned long long)n.s.procs[1].calls);
	assert_non_null(strstr(text, line));
	assert_null(strstr(text, "partial results"));
	free(text);

	/* cut short: said first */
	nfs_text_render(memtext_start(&m), &file, 1, &n.s, &n.p, "bad bytes at 42");
	text = memtext_end(&m);
	assert_true(!strncmp(
	    text, "partial results: the capture stops at bad bytes (bad bytes at 42)", 65));
	free(text);
	json_decref(j);
	run_nfs_release(&n);
	pcap_src_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sample_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
