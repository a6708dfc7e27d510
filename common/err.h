/* SPDX-License-Identifier: MIT */
/* Error reporting for library code: return -errno, describe the failure in a caller's buffer. */
#ifndef IOTAPE_COMMON_ERR_H
#define IOTAPE_COMMON_ERR_H

#include <errno.h>
#include <stddef.h>

/*
 * Library functions never print and never exit (see DESIGN.md). They return 0 or a negative
 * errno and, when the caller passed a struct iot_err, describe what went wrong with context:
 * file, byte offset, field. The CLI prefixes "iotape: CMD: " and prints it.
 */
struct iot_err {
	char msg[512];
};

/* Format into e (if non-NULL) and return code, so that `return iot_err_set(e, -EINVAL, ...)`
 * reads well. code should be a negative errno. */
int iot_err_set(struct iot_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepend "prefix: " to an existing message (adds context as the error travels up). */
void iot_err_prefix(struct iot_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checked size arithmetic: 0 on success, -EOVERFLOW when the result does not fit. */
static inline int size_mul(size_t a, size_t b, size_t *out)
{
	return __builtin_mul_overflow(a, b, out) ? -EOVERFLOW : 0;
}

static inline int size_add(size_t a, size_t b, size_t *out)
{
	return __builtin_add_overflow(a, b, out) ? -EOVERFLOW : 0;
}

#endif
