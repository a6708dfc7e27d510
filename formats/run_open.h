/* SPDX-License-Identifier: MIT */
/* A run directory's readable parts opened: its block trace set and its packet capture. */
#ifndef IOTAPE_FORMATS_RUN_OPEN_H
#define IOTAPE_FORMATS_RUN_OPEN_H

#include <jansson.h>

#include "common/err.h"
#include "formats/rundir.h"

struct bt_reader;
struct in_stream;

/*
 * The parts of run directory rd (rundir_scan() of path) that hold records, opened as every
 * command reads a run: its block trace sets merged into *block, its first packet capture into
 * *capture (each NULL when it has none); more than one capture is said in warnings (a json
 * array of strings, common/warnings.h). 0; -ENODATA when it holds neither (e says so in the
 * words every command uses: a caller that takes summary runs or names a sweep looks first);
 * else -errno (e filled, nothing left open).
 */
int run_open_dir(const struct rundir *rd, const char *path, struct bt_reader **block,
                 struct in_stream **capture, json_t *warnings, struct iot_err *e);

#endif
