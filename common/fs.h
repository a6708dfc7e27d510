/* SPDX-License-Identifier: MIT */
/* Small file-system helpers every room that writes a run directory needs. */
#ifndef IOTAPE_COMMON_FS_H
#define IOTAPE_COMMON_FS_H

#include <stddef.h>

#include "common/err.h"

/* Write all len bytes of buf to fd (again after a short write or EINTR). 0, or -errno
 * (-EIO when write() wrote nothing); *done (if not NULL) says how many were written. */
int iot_write_all(int fd, const void *buf, size_t len, size_t *done);

/* mkdir -p: dir and every missing parent, mode 0755. 0 when dir exists as a directory (made
 * now or before), else -errno naming the component that failed in e. */
int iot_mkdir_p(const char *dir, struct iot_err *e);

/* Replace DIR/NAME with len bytes of data so that a crash or SIGKILL at any moment leaves
 * either the old file or the new one, whole: a temporary DIR/.NAME.tmp is written, fsynced
 * and renamed over NAME, and DIR is fsynced so that the rename itself is on disk. */
int iot_write_atomic(const char *dir, const char *name, const void *data, size_t len,
                     struct iot_err *e);

#endif
