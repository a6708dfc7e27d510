/* SPDX-License-Identifier: MIT */
/* Helpers for the export tests: per-CPU files written by hand, outputs read back. */
#ifndef IOTAPE_TEST_EXPORT_H
#define IOTAPE_TEST_EXPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/blktrace.h"
#include "../tmpdir.h"

#define DEV_8_16 ((8u << 20) | 16u)

/* The events of one per-CPU file, written as they come (records of another CPU included). */
struct file {
	struct bt_writer *w;
	uint32_t seq;
	uint32_t dev; /* of the events put: 8,16 unless changed */
};

static inline void file_open(struct file *f, const char *name, unsigned cpu)
{
	char path[256];
	struct iot_err e;

	snprintf(path, sizeof(path), "%s/%s.blktrace.%u", tmpdir, name, cpu);
	f->seq = 0;
	f->dev = DEV_8_16;
	assert_int_equal(bt_writer_open(&f->w, path, &e), 0);
}

static inline void file_close(struct file *f)
{
	struct iot_err e;

	assert_int_equal(bt_writer_close(f->w, &e), 0);
}

/* An event of the file's device; notifies get sequence 0, others the file's next. */
static inline void put(struct file *f, uint64_t t, unsigned act, uint32_t flags, uint64_t sector,
                       uint32_t bytes, uint32_t pid, uint32_t cpu, const void *pdu,
                       uint16_t pdu_len)
{
	struct blk_event ev;
	struct iot_err e;

	memset(&ev, 0, sizeof(ev));
	ev.time = t;
	ev.action = (uint16_t)act;
	ev.flags = flags;
	ev.sector = sector;
	ev.bytes = bytes;
	ev.pid = pid;
	ev.cpu = cpu;
	ev.dev = f->dev;
	ev.seq = flags & BLK_F_NOTIFY ? 0 : ++f->seq;
	ev.pdu = pdu;
	ev.pdu_len = pdu_len;
	assert_int_equal(bt_writer_write(f->w, &ev, &e), 0);
}

/* A PROCESS note: pid is comm from here on. */
static inline void name(struct file *f, uint64_t t, uint32_t pid, uint32_t cpu, const char *comm)
{
	put(f, t, BLK_N_PROCESS, BLK_F_NOTIFY, 0, 0, pid, cpu, comm, (uint16_t)(strlen(comm) + 1));
}

/* A whole file as a string (malloc'ed). */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	long len;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = malloc((size_t)len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	text[len] = 0;
	fclose(f);
	return text;
}

/* Line n (from 0) of text, without its newline, in a static buffer. */
static inline const char *line(const char *text, unsigned n)
{
	static char buf[512];
	const char *p = text, *end;

	while (n-- && (p = strchr(p, '\n')))
		p++;
	assert_non_null(p);
	end = strchr(p, '\n');
	assert_non_null(end);
	assert_true((size_t)(end - p) < sizeof(buf));
	memcpy(buf, p, (size_t)(end - p));
	buf[end - p] = 0;
	return buf;
}

/* How many times what occurs in text. */
static inline unsigned count(const char *text, const char *what)
{
	unsigned n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

#endif
