/* SPDX-License-Identifier: MIT */
/* Escaping text for XML, SVG and HTML output. */
#include "common/xml.h"

#include <stdint.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 when it is malformed, overlong,
 * a surrogate or above U+10FFFF (RFC 3629 section 4). */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	unsigned c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

void xml_putn(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		unsigned c = p[i];
		size_t n;

		switch (c) {
		case '&':
			fputs("&amp;", f);
			i++;
			continue;
		case '<':
			fputs("&lt;", f);
			i++;
			continue;
		case '>':
			fputs("&gt;", f);
			i++;
			continue;
		case '"':
			fputs("&quot;", f);
			i++;
			continue;
		case '\'':
			fputs("&#39;", f);
			i++;
			continue;
		}
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
			fputs("\xef\xbf\xbd", f);
			i++;
			continue;
		}
		n = utf8_len(p + i, len - i);
		if (!n) {
			fputs("\xef\xbf\xbd", f);
			i++;
			continue;
		}
		fwrite(p + i, 1, n, f);
		i += n;
	}
}

void xml_puts(FILE *f, const char *s)
{
	if (s)
		xml_putn(f, s, strlen(s));
}
