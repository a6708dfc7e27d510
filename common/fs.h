/* SPDX-License-Identifier: MIT */
/* Small file-system helpers every room that writes a run directory needs. */
#ifndef IOTAPE_COMMON_FS_H
#define IOTAPE_COMMON_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/err.h"

/* Write all len bytes of buf to fd (again after a short write or EINTR). 0, or -errno
 * (-EIO when write() wrote nothing); *done (if not NULL) says how many were written. */
int iot_write_all(int fd, const void *buf, size_t len, size_t *done);

/* mkdir -p: dir and every missing parent, mode 0755. 0 when dir exists as a directory (made
 * now or before), else -errno naming the component that failed in e. */
int iot_mkdir_p(const char *dir, struct iot_err *e);

/*
 * An output written beside its place and renamed into it, so that a failure, a signal or a
 * full disk never leaves half a file, and a file already there (the previous report, or an
 * input someone hard-linked) is replaced, never written into:
 *   "-"                       standard output, written as it is
 *   a regular file, or none   a new file DIR/.NAME.PID-N.tmp (mode 0666 less the umask) that
 *                             iot_outfile_commit() renames over PATH (over the file a symbolic
 *                             link at PATH names, so the link stays)
 *   anything else             (/dev/null, a FIFO, a terminal) opened and written directly
 * The caller writes to fd, or to the stdio stream iot_outfile_stream() makes of it.
 */
struct iot_outfile {
	int fd;
	FILE *f;    /* made by iot_outfile_stream(), closed by commit or abort */
	char *path; /* where it goes: PATH, its links followed */
	char *tmp;  /* the file written until commit, or NULL when written directly */
	bool sync;  /* commit fsyncs the file and then the directory */
};

enum { IOT_OUT_SYNC = 1 }; /* flags: fsync before and after the rename (state files) */

int iot_outfile_open(struct iot_outfile *o, const char *path, unsigned flags, struct iot_err *e);
/* fd as a stdio stream (fdopen once; NULL with errno set when out of memory). */
FILE *iot_outfile_stream(struct iot_outfile *o);
/* Flush, close and rename into place; on any failure the temporary is removed and the old
 * file stays. Releases o either way. */
int iot_outfile_commit(struct iot_outfile *o, struct iot_err *e);
/* Give up: close, remove the temporary (the old file stays). Releases o; safe twice. */
void iot_outfile_abort(struct iot_outfile *o);
/* Close the descriptor (stream flushed) and keep the output unfinished, its temporary neither
 * renamed nor removed: a writer of many outputs holds a few open at a time. Nothing for "-".
 * 0 or -errno (e naming PATH); o is still to be committed or aborted either way. */
int iot_outfile_suspend(struct iot_outfile *o, struct iot_err *e);
/* Open it again after iot_outfile_suspend(), appending. 0 or -errno (e naming PATH). */
int iot_outfile_resume(struct iot_outfile *o, struct iot_err *e);

/* Replace PATH with len bytes of data through an iot_outfile (flags: IOT_OUT_SYNC or 0), so
 * that a failure or a signal never leaves half of it. 0 or -errno, e naming PATH. */
int iot_write_file(const char *path, const void *data, size_t len, unsigned flags,
                   struct iot_err *e);
/* Replace DIR/NAME with len bytes of data so that a crash or SIGKILL at any moment leaves
 * either the old file or the new one, whole (iot_write_file with IOT_OUT_SYNC: the new file is
 * fsynced before the rename, and DIR after it, so that the rename itself is on disk). */
int iot_write_atomic(const char *dir, const char *name, const void *data, size_t len,
                     struct iot_err *e);

#endif
