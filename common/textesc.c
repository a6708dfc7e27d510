/* SPDX-License-Identifier: MIT */
/* Escaping text for terminals, text files, Markdown and CSV: control bytes made visible. */
#include "common/textesc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The code point of the UTF-8 sequence at s (*n bytes), or -1 for a malformed one (*n = 1). */
static int32_t utf8_next(const unsigned char *s, size_t *n)
{
	uint32_t c = s[0], min;
	size_t len;

	if (c < 0x80) {
		*n = 1;
		return (int32_t)c;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, c &= 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, c &= 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, c &= 0x07, min = 0x10000;
	} else {
		*n = 1;
		return -1;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) { /* also the terminating NUL */
			*n = 1;
			return -1;
		}
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
		*n = 1;
		return -1;
	}
	*n = len;
	return (int32_t)c;
}

static bool hidden_unicode(int32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x200e || c == 0x200f ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/*
 * The next character of *s as it is written: into out (at most 8 bytes plus NUL), the length
 * returned; *s moves past it.
 */
static size_t esc_next(const char **s, char out[12])
{
	const unsigned char *p = (const unsigned char *)*s;
	size_t n;
	int32_t c = utf8_next(p, &n);

	*s += n;
	if (c < 0)
		return (size_t)snprintf(out, 12, "\\x%02x", p[0]);
	if (c == '\n' || c == '\t' || c == '\r')
		return (size_t)snprintf(out, 12, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
	if (c < 0x20 || c == 0x7f)
		return (size_t)snprintf(out, 12, "\\x%02x", (unsigned)c);
	if (hidden_unicode(c))
		return (size_t)snprintf(out, 12, "\\u%04x", (unsigned)c);
	memcpy(out, p, n);
	out[n] = '\0';
	return n;
}

void txt_puts(FILE *f, const char *s)
{
	char out[12];

	while (*s) {
		size_t n = esc_next(&s, out);

		fwrite(out, 1, n, f);
	}
}

char *txt_escape(const char *s, char *buf, size_t cap)
{
	size_t len = 0;
	char out[12];

	if (!cap)
		return buf;
	while (*s) {
		size_t n = esc_next(&s, out);

		if (len + n >= cap)
			break;
		memcpy(buf + len, out, n);
		len += n;
	}
	buf[len] = '\0';
	return buf;
}

char *txt_strdup(const char *s)
{
	size_t cap = strlen(s) * 6 + 1; /* an escape is at most 6 bytes per input byte */
	char *buf = malloc(cap);

	return buf ? txt_escape(s, buf, cap) : NULL;
}

void txt_md_puts(FILE *f, const char *s)
{
	char out[12];

	while (*s) {
		size_t n = esc_next(&s, out);

		if (n == 1 && strchr("|\\*_`", out[0]))
			fputc('\\', f);
		fwrite(out, 1, n, f);
	}
}

char *txt_csv_put(char *p, const char *s)
{
	size_t n = strlen(s), cap = 4 * n + 1, len;
	char small[1024], *e = cap <= sizeof(small) ? small : malloc(cap);
	bool lead, quote;

	if (!e) {
		*p++ = '"'; /* out of memory: an empty field rather than raw bytes */
		*p++ = '"';
		return p;
	}
	txt_escape(s, e, cap);
	len = strlen(e);
	lead = e[0] && strchr("=+-@", e[0]);
	quote = strpbrk(e, ",\"") || (len && (e[0] == ' ' || e[len - 1] == ' '));
	if (quote)
		*p++ = '"';
	if (lead)
		*p++ = '\'';
	for (const char *c = e; *c; c++) {
		if (*c == '"')
			*p++ = '"';
		*p++ = *c;
	}
	if (quote)
		*p++ = '"';
	if (e != small)
		free(e);
	return p;
}

void txt_csv_puts(FILE *f, const char *s)
{
	size_t cap = TXT_CSV_MAX(strlen(s));
	char small[1024], *buf = cap <= sizeof(small) ? small : malloc(cap);

	if (!buf) {
		fputs("\"\"", f);
		return;
	}
	fwrite(buf, 1, (size_t)(txt_csv_put(buf, s) - buf), f);
	if (buf != small)
		free(buf);
}
