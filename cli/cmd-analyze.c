/* SPDX-License-Identifier: MIT */
/* iotape analyze: one streaming pass over a trace (placeholder until the sinks land). */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "cli/analyze.h"

#include "formats/blktrace.h"

const char usage_analyze[] = "usage: iotape analyze [--json] RUN|TRACE|PCAP\n";

int cmd_analyze(int argc, char **argv)
{
	struct bt_reader *r;
	struct blk_event ev;
	struct iot_err e;
	unsigned long long n = 0;
	int ret;

	/* packet captures (analyze-nfs.c); a stopgap until the option parsing here lands */
	if (argc >= 2 && analyze_is_capture(argv[argc - 1])) {
		struct analyze_opts o = {.json = argc == 3 && !strcmp(argv[1], "--json")};
		json_t *root = json_object();

		ret = analyze_capture(argv[argc - 1], &o, o.json ? root : NULL, o.json ? NULL : stdout);
		if (o.json && ret == EXIT_OK) {
			json_dumpf(root, stdout, JSON_INDENT(2));
			putchar('\n');
		}
		json_decref(root);
		return ret;
	}
	if (argc != 2)
		return usage_error("expected one input");
	ret = bt_reader_open(&r, argv[1], &e);
	if (ret)
		return error("%s", e.msg), exit_code_for(ret);
	while ((ret = bt_reader_next(r, &ev, &e)) > 0)
		n++;
	if (ret < 0) {
		bt_reader_free(r);
		return error("%s", e.msg), exit_code_for(ret);
	}
	printf("%llu events\n", n);
	bt_reader_free(r);
	return EXIT_OK;
}
