/* SPDX-License-Identifier: MIT */
/* Warnings a library hands back to its command: strings appended to a JSON array. */
#ifndef IOTAPE_COMMON_WARNINGS_H
#define IOTAPE_COMMON_WARNINGS_H

#include <jansson.h>

/*
 * One warning, formatted as printf() does (at most 1023 bytes, cut beyond), appended to
 * warnings for the caller to print or keep in its document: a library never prints. 0,
 * -EINVAL when warnings is no array, or -ENOMEM.
 */
__attribute__((format(printf, 2, 3))) int iot_warn_json(json_t *warnings, const char *fmt, ...);

#endif
