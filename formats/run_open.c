/* SPDX-License-Identifier: MIT */
/* A run directory's readable parts opened: its block trace set and its packet capture. */
#include "formats/run_open.h"

#include <errno.h>
#include <stddef.h>

#include "common/warnings.h"
#include "formats/blktrace.h"
#include "formats/instream.h"

int run_open_dir(const struct rundir *rd, const char *path, struct bt_reader **block,
                 struct in_stream **capture, json_t *warnings, struct iot_err *e)
{
	int ret;

	*block = NULL;
	*capture = NULL;
	if (!rd->ntraces && !rd->ncaptures)
		return iot_err_set(e, -ENODATA,
		                   "'%s': no block trace (NAME.blktrace.N) or packet capture "
		                   "(net.pcap) in the directory",
		                   path);
	if (rd->ncaptures > 1 && iot_warn_json(warnings, "'%s': %u packet captures; reading '%s'",
	                                       path, rd->ncaptures, rd->captures[0]))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (rd->ncaptures && (ret = in_stream_open(capture, rd->captures[0], e)))
		return ret;
	if (rd->ntraces && (ret = bt_reader_open_files(block, rd->traces, rd->ntraces, e))) {
		in_stream_close(*capture);
		*capture = NULL;
		return ret;
	}
	return 0;
}
