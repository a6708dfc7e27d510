/* SPDX-License-Identifier: MIT */
/* Shared between compare.c and compare_input.c (not a public interface). */
#ifndef IOTAPE_COMPARE_COMPARE_INT_H
#define IOTAPE_COMPARE_COMPARE_INT_H

#include <jansson.h>

/* The block metrics every sample has, in table order; NFS metrics are appended as found. */
enum {
	M_MBPS,
	M_IOPS,
	M_P50,
	M_P99,
	M_IDLE,
	M_GAP,
	M_SEEKS,
	M_SEQ,
	M_NBLOCK,
};

/* A scalar or a descriptive object as text (new string), or NULL. */
char *compare_jtext(const json_t *v);

#endif
