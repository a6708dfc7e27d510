/* SPDX-License-Identifier: MIT */
/* The blkparse export's inputs: each -i argument's device and per-CPU files found and opened
 * as blkparse finds them; everything freed at the end. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export/bp_pass_int.h"
#include "formats/instream.h"
#include "formats/rundir.h"

/* blkparse's setup_file(): the path of CPU cpu's file for -i arg, and whether it exists and
 * holds anything (gzip: once decompressed). 1 yes, 0 empty (skipped), -1 missing. */
static int cpu_file(const char *dir, const char *name, unsigned cpu, char **path, char **shown)
{
	static const char *const suffix[] = {"", ".gz", ".zst"}; /* as formats/rundir.h names */
	struct stat st;

	*path = *shown = NULL;
	if (asprintf(shown, "%s%s%s" RUNDIR_SET_INFIX "%u", dir ? dir : "", dir ? "/" : "", name,
	             cpu) < 0) {
		*shown = NULL;
		return -ENOMEM;
	}
	for (unsigned i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		struct in_stream *in;
		struct iot_err e;
		bool empty;

		if (asprintf(path, "%s%s", *shown, suffix[i]) < 0) {
			free(*shown);
			*path = *shown = NULL;
			return -ENOMEM;
		}
		if (stat(*path, &st) == 0) {
			if (!i)
				return st.st_size ? 1 : 0;
			/* compressed: empty once inflated? (a bad file is the reader's to name) */
			if (in_stream_open(&in, *path, &e))
				return 1;
			empty = in_stream_sniff(in)->format == IN_FMT_EMPTY;
			in_stream_close(in);
			return empty ? 0 : 1;
		}
		free(*path);
		*path = NULL;
	}
	free(*shown);
	*shown = NULL;
	return -1;
}

static int add_input(struct bp *b, char *shown)
{
	char **in = realloc(b->inputs, (b->ninputs + 1) * sizeof(*in));

	if (!in)
		return -ENOMEM;
	b->inputs = in;
	b->inputs[b->ninputs++] = shown;
	return 0;
}

static int open_stream(struct bp *b, struct bp_dev *d, unsigned cpu, char *path, struct iot_err *e)
{
	struct bp_stream *s = calloc(1, sizeof(*s));
	struct bp_stream **ss;
	int ret;

	if (!s)
		return iot_err_set(e, -ENOMEM, "out of memory");
	s->dev = d;
	s->cpu = cpu;
	ss = realloc(b->streams, (b->nstreams + 1) * sizeof(*ss));
	if (!ss) {
		free(s);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	b->streams = ss;
	b->streams[b->nstreams++] = s;
	ret = bt_reader_open_files(&s->r, &path, 1, e);
	if (ret == -EINVAL && strstr(e->msg, "empty trace file")) {
		s->done = true; /* records of no kind: nothing to read */
		return 0;
	}
	return ret;
}

int setup_dev(struct bp *b, const char *arg, char **input_dir, struct iot_err *e)
{
	struct bp_dev *d;
	char *copy = strdup(arg), *copy2 = strdup(arg), *dir, *name;
	unsigned cpu;
	int ret = 0;

	if (!copy || !copy2) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	/* name_fixup(): NAME.blktrace.N means NAME */
	if ((name = strstr(copy, ".blktrace.")))
		*name = 0;
	if ((name = strstr(copy2, ".blktrace.")))
		*name = 0;
	d = &b->devs[b->ndevs];
	memset(d, 0, sizeof(*d));
	/* blkparse splits "DIR/NAME" once and keeps DIR for the devices after it */
	dir = dirname(copy);
	if (strcmp(dir, ".")) {
		free(*input_dir);
		*input_dir = strdup(dir);
		d->name = strdup(basename(copy2));
	} else {
		d->name = strdup(copy2);
	}
	if (!d->name || (strcmp(dir, ".") && !*input_dir)) {
		free(d->name);
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	b->ndevs++;
	for (cpu = 0;; cpu++) {
		char *path, *shown;
		int have = cpu_file(*input_dir, d->name, cpu, &path, &shown);
		struct bp_cpu *cpus;

		if (have == -ENOMEM) {
			ret = iot_err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
		if (have < 0)
			break;
		cpus = realloc(d->cpus, (cpu + 1) * sizeof(*cpus));
		if (cpus)
			d->cpus = cpus;
		if (!cpus || (have && add_input(b, shown))) {
			free(shown);
			free(path);
			ret = iot_err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
		memset(&d->cpus[cpu], 0, sizeof(d->cpus[cpu]));
		d->ncpus = cpu + 1;
		if (have)
			ret = open_stream(b, d, cpu, path, e);
		else
			free(shown);
		free(path);
		if (ret)
			goto out;
	}
	if (!cpu)
		ret = iot_err_set(e, -ENOENT, "'%s': no input files (%s.blktrace.0 ...)", arg, arg);
out:
	free(copy);
	free(copy2);
	return ret;
}

void bp_release(struct bp *b)
{
	printers_stop(b);
	for (unsigned i = 0; i < b->nstreams; i++) {
		bt_reader_free(b->streams[i]->r);
		free(b->streams[i]->arena);
		free(b->streams[i]);
	}
	free(b->streams);
	for (unsigned i = 0; i < b->ndevs; i++) {
		free(b->devs[i].name);
		free(b->devs[i].cpus);
	}
	free(b->devs);
	for (unsigned i = 0; i < b->ninputs; i++)
		free(b->inputs[i]);
	free(b->inputs);
	free(b->order);
	for (size_t i = 0; i < b->hcap; i++)
		free(b->hash[i]);
	free(b->hash);
	for (unsigned i = 0; i < NRING; i++) {
		if (b->ring[i])
			free(b->ring[i]->arena);
		free(b->ring[i]);
	}
	for (unsigned i = 0; i < b->nprinters; i++) {
		bp_lines_free(b->printer[i].lines);
		free(b->printer[i].out);
	}
	free(b->out);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
}
