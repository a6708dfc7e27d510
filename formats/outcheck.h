/* SPDX-License-Identifier: MIT */
/* No output is ever an input: a command's outputs resolved against its inputs and targets. */
#ifndef IOTAPE_FORMATS_OUTCHECK_H
#define IOTAPE_FORMATS_OUTCHECK_H

#include <stddef.h>

#include "common/err.h"

enum out_kind {
	/* a stream (-o FILE): written beside and renamed into place (common/fs.h
	 * iot_outfile_open()); "-" is standard output, checked when it is a regular file */
	OUT_FILE,
	/* a directory the command creates or fills (capture -o, replay --record, export's
	 * fio-iologs, sweep -o): it and every entry it already holds are checked */
	OUT_DIR,
};

struct out_spec {
	const char *path;
	enum out_kind kind;
	const char *what; /* the option that names it, for the message ("-o", "--record") */
};

/*
 * Refuse, before anything is opened for writing, an output that is, holds or lies inside any
 * input or target: compared by device and inode after symbolic links (a hard link, a bind
 * mount or a link to an input is that input), through every directory above each of them.
 *   inputs    INPUT arguments as the commands take them: files, run directories, '-'
 *             (standard input, when it is a regular file), or a per-CPU set NAME (its
 *             NAME.blktrace.N files); a directory's entries count too (links into it)
 *   targets   what a replay writes (devices, files, directories); the same rules
 * An output that does not exist yet is placed by the directory that will hold it (dangling
 * symbolic links followed), so `-o RUN/new.html` lies inside the input RUN. Two outputs may
 * not be the same file, nor one directory output inside another. Paths that cannot be
 * resolved (missing parents, permissions) are left to the open that follows, which fails.
 * 0, or -EINVAL with e naming both sides.
 */
int out_check(const char *const *inputs, size_t ninputs, const char *const *targets,
              size_t ntargets, const struct out_spec *outs, size_t nouts, struct iot_err *e);

#endif
