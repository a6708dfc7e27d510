/* SPDX-License-Identifier: MIT */
/* Unit tests: a replay through fio as text (fioclient/text.c), from a result filled by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fioclient/fioclient.h"

#include "../memtext.h"

static char *render(const struct fc_opts *o, const struct fc_result *res)
{
	struct memtext m;

	fc_result_text(memtext_start(&m), o, res);
	return memtext_end(&m);
}

static struct fc_slot slots[2] = {{"h1", 8765, "/dev/sdb"}, {"::1", 8766, "/dev/sdc"}};

/* Two devices: sdb's 3 reads and a write, fio's report with percentiles; sdc's sync, no report. */
static void fill(struct fc_opts *o, struct fc_result *res, struct fc_dev devs[2])
{
	memset(o, 0, sizeof(*o));
	memset(res, 0, sizeof(*res));
	memset(devs, 0, 2 * sizeof(*devs));
	o->run = "run1";
	o->slots = slots;
	o->nslots = 2;
	strcpy(devs[0].x.name, "sdb");
	devs[0].x.ops[IOLOG_READ] = 3;
	devs[0].x.ops[IOLOG_WRITE] = 1;
	devs[0].x.bytes = 2u << 20;
	devs[0].x.last_ns = 1000 + 2500000000ull;
	devs[0].slot = 0;
	devs[0].fio.have = true;
	devs[0].fio.ios[FC_READ] = 3;
	devs[0].fio.ios[FC_WRITE] = 1;
	devs[0].fio.bytes[FC_READ] = 1u << 20;
	devs[0].fio.bytes[FC_WRITE] = 1u << 20;
	devs[0].fio.runtime_ns = 5000000000ull;
	devs[0].fio.lat[FC_READ] =
	    (struct fc_lat){.n = 3, .max = 9000, .mean = 5000, .p = {4000, 8000, 9000, 9000}};
	strcpy(devs[1].x.name, "sdc");
	devs[1].x.ops[IOLOG_DATASYNC] = 2;
	devs[1].x.last_ns = 1000 + 1000000000ull;
	devs[1].x.skipped_writes = 5;
	devs[1].slot = 1;
	res->devs = devs;
	res->ndevs = 2;
	res->t0 = 1000;
	res->fio_json = "d/fio.json";
	res->fio_log = "d/fio.log";
	fc_combine(res);
}

static void test_text(void **state)
{
	struct fc_opts o;
	struct fc_result res;
	struct fc_dev devs[2];
	char *s;

	(void)state;
	fill(&o, &res, devs);
	s = render(&o, &res);
	assert_string_equal(
	    s, "replay of run1 through fio on 2 host slot(s), started together (fio --client)\n"
	       "  h1:8765 sdb -> /dev/sdb\n"
	       "    trace: 3 reads, 1 writes, 2.0 MiB, until 2.500 s\n"
	       "    fio:   3 reads, 1 writes, 2.0 MiB in 5.000 s (ratio 2.00)\n"
	       "    read  latency p50 4.0 us  p90 8.0 us  p99 9.0 us  max 9.0 us\n"
	       "  [::1]:8766 sdc -> /dev/sdc: no report from fio\n"
	       "    trace: 2 syncs, 0.0 MiB, until 1.000 s\n"
	       "    skipped 5 writes and trims (no --allow-writes)\n"
	       "  all: trace 3 reads, 1 writes, 2 syncs until 2.500 s; fio 3 reads, 1 writes in "
	       "5.000 s\n"
	       "    read  latency p50 4.0 us  p90 8.0 us  p99 9.0 us  max 9.0 us\n"
	       "  (fio does an iolog's syncs without counting them)\n"
	       "  fio's output: d/fio.json, d/fio.log\n");
	free(s);
}

/* fio's error, latencies without percentiles, devices no --map sends anywhere, no IOs. */
static void test_optional(void **state)
{
	struct fc_opts o;
	struct fc_result res;
	struct fc_dev devs[2];
	char *s;

	(void)state;
	fill(&o, &res, devs);
	devs[0].fio.error = 5;
	devs[0].fio.lat[FC_WRITE] =
	    (struct fc_lat){.n = 1, .max = 1500, .mean = 1500, .p = {-1, -1, -1, -1}};
	devs[1].fio.have = true;
	devs[1].fio.runtime_ns = 0;
	devs[1].x.last_ns = res.t0; /* no span: a ratio of 0, not a division by 0 */
	res.unmapped = 7;
	fc_combine(&res);
	s = render(&o, &res);
	assert_non_null(strstr(s, " (ratio 2.00), error 5 (Input/output error)\n"));
	assert_non_null(strstr(s, "    write latency mean 1.5 us  max 1.5 us\n"));
	assert_non_null(strstr(s, "    fio:   no IOs, 0.0 MiB in 0.000 s (ratio 0.00)\n"));
	assert_null(strstr(s, "no report from fio"));
	assert_non_null(strstr(s, "  skipped 7 IOs of devices no --map sends anywhere\n"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_optional),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
