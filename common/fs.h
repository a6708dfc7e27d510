/* SPDX-License-Identifier: MIT */
/* Small file-system helpers every room that writes a run directory needs. */
#ifndef IOTAPE_COMMON_FS_H
#define IOTAPE_COMMON_FS_H

#include "common/err.h"

/* mkdir -p: dir and every missing parent, mode 0755. 0 when dir exists as a directory (made
 * now or before), else -errno naming the component that failed in e. */
int iot_mkdir_p(const char *dir, struct iot_err *e);

#endif
