/* SPDX-License-Identifier: MIT */
/* analyze's text summary of packet captures, from the NFS statistics (as the "nfs" JSON). */
#ifndef IOTAPE_ANALYZE_NFS_TEXT_H
#define IOTAPE_ANALYZE_NFS_TEXT_H

#include <stdio.h>

#include "analyze/nfs_stats.h"
#include "formats/nfs_pipe.h"

/*
 * The text summary of the captures files[0..n-1] read through p into s: procedures with their
 * response times, clients, files, the slowest calls, errors, a short timeline, the stream's
 * counters. stop: the error that ended the reading (the figures are partial), or NULL.
 */
void nfs_text_render(FILE *f, const struct nfs_pipe_file *files, unsigned n,
                     const struct nfs_stats *s, const struct nfs_pipe *p, const char *stop);

#endif
