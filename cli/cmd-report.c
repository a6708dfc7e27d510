/* SPDX-License-Identifier: MIT */
/* iotape report: one self-contained HTML file with graphs and tables of one or more runs. */
#include "cli/cli.h"

const char usage_report[] = "usage: iotape report RUN... -o REPORT.html [--svg DIR]\n";

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("not yet"), EXIT_USAGE;
}
