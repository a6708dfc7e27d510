/* SPDX-License-Identifier: MIT */
/* Opening a command's INPUT once: block trace, packet capture, manifest or saved JSON. */
#include "cli/inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/run_load.h"
#include "cli/cli.h"
#include "formats/run_open.h"
#include "formats/rundir.h"
#include "sweep/sweep.h"

void print_msgs(const json_t *msgs)
{
	const json_t *m;
	size_t i;

	json_array_foreach(msgs, i, m)
	{
		if (json_is_string(m))
			warning("%s", json_string_value(m));
		else
			error("%s", json_string_value(json_object_get(m, "error")));
	}
}

/* A library's messages (analyze/run_load.h) printed, each warning appended to list (the JSON
 * document's warnings) unless it is NULL; msgs freed. */
static void say(json_t *msgs, json_t *list)
{
	json_t *m;
	size_t i;

	if (!msgs) {
		error("out of memory");
		return;
	}
	print_msgs(msgs);
	json_array_foreach(msgs, i, m)
	{
		if (list && json_is_string(m))
			json_array_append(list, m);
	}
	json_decref(msgs);
}

void warn_block_input(const struct bt_reader *rd, json_t *list)
{
	json_t *msgs = json_array();

	if (msgs && run_block_warnings(rd, msgs))
		error("out of memory");
	say(msgs, list);
}

void warn_dropped_devices(const char *path, uint64_t events, json_t *list)
{
	json_t *msgs = json_array();

	if (msgs && run_dropped_warning(path, events, msgs))
		error("out of memory");
	say(msgs, list);
}

void warn_summary_dropped(const char *path, const json_t *summary)
{
	json_t *msgs = json_array();

	if (msgs && run_summary_dropped_warning(path, summary, msgs))
		error("out of memory");
	say(msgs, NULL);
}

void partial_results(const char *what, const struct iot_err *e, struct iot_err *stop, json_t *list)
{
	json_t *msgs = json_array();

	if (msgs && run_msgs_partial(msgs, what, e, stop))
		error("out of memory");
	say(msgs, list);
}

int input_error(const struct iot_err *e, int ret)
{
	error("%s", e->msg);
	return exit_code_for(ret);
}

static int open_stream(struct cli_input *ci, struct in_stream *in, unsigned flags)
{
	enum in_format f = in_stream_sniff(in)->format;
	struct iot_err e;
	int ret;

	switch (f) {
	case IN_FMT_PCAP:
	case IN_FMT_PCAPNG:
		ci->capture = in;
		return EXIT_OK;
	case IN_FMT_JSON:
		if (flags & CLI_INPUT_JSON) {
			ci->json = in;
			return EXIT_OK;
		}
		error("'%s': a JSON document; %s reads run directories, blktrace traces and packet "
		      "captures%s",
		      in_stream_name(in), cli_cmd ? cli_cmd->name : "this command",
		      cli_cmd && !strcmp(cli_cmd->name, "report")
		          ? " (saved 'analyze --json' summaries go to 'iotape compare')"
		          : "");
		in_stream_close(in);
		return EXIT_USAGE;
	default:
		/* a trace, a fio iolog (read as issue events), or bytes the trace reader names
		 * (bad magic at offset 0, empty) */
		ret = bt_reader_open_stream(&ci->block, in, &e);
		return ret ? input_error(&e, ret) : EXIT_OK;
	}
}

static int open_dir(struct cli_input *ci, struct rundir *rd)
{
	struct iot_err e;
	json_t *msgs;
	int ret;

	if (!rd->ntraces && !rd->ncaptures && sweep_is_dir(ci->arg)) {
		error("'%s' is a sweep: 'iotape compare' and 'iotape report' read it whole; other "
		      "commands take one of its runs (NAME=VALUE/.../rep-K)",
		      ci->arg);
		return EXIT_USAGE;
	}
	if (!rd->ntraces && !rd->ncaptures && rd->summary) {
		/* a summary run: its figures without records (analyze reads it) */
		ci->summary = rd->summary;
		rd->summary = NULL;
		ci->manifest = rd->manifest;
		rd->manifest = NULL;
		return EXIT_OK;
	}
	msgs = json_array();
	if (!msgs)
		return error("out of memory"), EXIT_SYSTEM;
	ret = run_open_dir(rd, ci->arg, &ci->block, &ci->capture, msgs, &e);
	print_msgs(msgs);
	json_decref(msgs);
	if (ret == -ENODATA)
		return error("%s", e.msg), EXIT_USAGE;
	if (ret)
		return input_error(&e, ret);
	ci->manifest = rd->manifest;
	rd->manifest = NULL;
	return EXIT_OK;
}

int cli_input_open(struct cli_input *ci, const char *arg, unsigned flags)
{
	struct run_input ri;
	struct iot_err e;
	int ret;

	memset(ci, 0, sizeof(*ci));
	ci->arg = arg;
	if ((ret = run_input_open(&ri, arg, &e)))
		return input_error(&e, ret);
	switch (ri.kind) {
	case RUN_INPUT_STREAM:
		ret = open_stream(ci, ri.in, flags);
		ri.in = NULL;
		break;
	case RUN_INPUT_DIR:
		ret = open_dir(ci, &ri.rd);
		break;
	case RUN_INPUT_SET:
		ret = bt_reader_open_files(&ci->block, ri.set, ri.nset, &e);
		ret = ret ? input_error(&e, ret) : EXIT_OK;
		break;
	}
	run_input_release(&ri);
	if (ret)
		cli_input_release(ci);
	return ret;
}

void cli_input_release(struct cli_input *ci)
{
	bt_reader_free(ci->block);
	in_stream_close(ci->capture);
	in_stream_close(ci->json);
	free(ci->manifest);
	free(ci->summary);
	memset(ci, 0, sizeof(*ci));
}
