/* SPDX-License-Identifier: MIT */
/* The capture's option words: backend and reader names, blktrace's category mask names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"

static const char *const backend_names[] = {"auto", "relay", "tracefs", "bpf"};
static const char *const reader_names[] = {"raw", "pipe"};
static const char *const detail_names[] = {"events", "io", "summary"};

int cap_backend_parse(const char *s, enum cap_backend *out)
{
	for (unsigned i = 0; i < 4; i++)
		if (!strcmp(s, backend_names[i]))
			return *out = (enum cap_backend)i, 0;
	return -EINVAL;
}

int cap_detail_parse(const char *s, enum cap_detail *out)
{
	for (unsigned i = 0; i < 3; i++)
		if (!strcmp(s, detail_names[i]))
			return *out = (enum cap_detail)i, 0;
	return -EINVAL;
}

const char *cap_detail_name(int d)
{
	return d >= 0 && d < 3 ? detail_names[d] : "?";
}

int cap_reader_parse(const char *s, enum cap_read_mode *out)
{
	for (unsigned i = 0; i < 2; i++)
		if (!strcmp(s, reader_names[i]))
			return *out = (enum cap_read_mode)i, 0;
	return -EINVAL;
}

/* enum blktrace_cat (include/uapi/linux/blktrace_api.h), the names blk_trace_str2mask takes */
static const char *const mask_names[16] = {
    "read", "write", "flush",  "sync",  "queue", "requeue", "issue",    "complete",
    "fs",   "pc",    "notify", "ahead", "meta",  "discard", "drv_data", "fua",
};

int cap_mask_parse(const char *s, uint16_t *mask, struct iot_err *e)
{
	char word[32];
	const char *p = s;
	unsigned long v;
	char *end;

	*mask = 0;
	errno = 0;
	v = strtoul(s, &end, 16);
	if (!errno && end != s && !*end && (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))) {
		if (!v || v > 0xffff)
			return iot_err_set(e, -EINVAL, "mask '%s' out of range", s);
		*mask = (uint16_t)v;
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		unsigned i;

		if (n == 0 || n >= sizeof(word))
			return iot_err_set(e, -EINVAL, "mask '%s': empty or overlong name", s);
		memcpy(word, p, n);
		word[n] = '\0';
		if (!strcmp(word, "barrier"))
			strcpy(word, "flush"); /* blktrace's older name */
		for (i = 0; i < 16 && strcmp(word, mask_names[i]); i++)
			;
		if (i == 16)
			return iot_err_set(e, -EINVAL, "mask: unknown category '%s'", word);
		*mask |= (uint16_t)(1u << i);
		p += n;
		if (*p == ',')
			p++;
	}
	if (!*mask)
		return iot_err_set(e, -EINVAL, "mask: no category");
	return 0;
}

const char *cap_mask_str(uint16_t mask, char *buf, size_t cap)
{
	size_t len = 0;

	if (cap)
		buf[0] = '\0';
	for (unsigned i = 0; i < 16; i++) {
		if (!(mask & (1u << i)))
			continue;
		len += (size_t)snprintf(buf + (len < cap ? len : cap), len < cap ? cap - len : 0,
		                        "%s%s", len ? "," : "", mask_names[i]);
	}
	return buf;
}

const char *cap_backend_name(int b)
{
	return b >= 0 && b < 4 ? backend_names[b] : "?";
}

const char *cap_reader_name(int r)
{
	return r >= 0 && r < 2 ? reader_names[r] : "?";
}
