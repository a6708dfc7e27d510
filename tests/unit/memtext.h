/* SPDX-License-Identifier: MIT */
/* What a unit test renders into memory: a FILE to write to, then the text written (cmocka). */
#ifndef IOTAPE_TESTS_UNIT_MEMTEXT_H
#define IOTAPE_TESTS_UNIT_MEMTEXT_H

#include <stdio.h>
#include <stdlib.h>

/* one capture: f from memtext_start() to memtext_end(); then text (the caller's to free) and
 * its length */
struct memtext {
	FILE *f;
	char *text;
	size_t len;
};

/* m->f, a FILE that writes into memory (the test fails if it cannot be opened) */
static inline FILE *memtext_start(struct memtext *m)
{
	m->text = NULL;
	m->len = 0;
	m->f = open_memstream(&m->text, &m->len);
	assert_non_null(m->f);
	return m->f;
}

/* m->f closed; what was written to it, NUL-terminated, m->len bytes before the NUL (the test
 * fails if the close does: then not all of it is there) */
static inline char *memtext_end(struct memtext *m)
{
	assert_int_equal(fclose(m->f), 0);
	m->f = NULL;
	assert_non_null(m->text);
	return m->text;
}

#endif
