/* SPDX-License-Identifier: MIT */
/* Tests for common/xml.c and report_svg.c: escaping, PNG output, chart output. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <cmocka.h>

#include "report/report_svg.h"
#include "common/xml.h"

#include "../memtext.h"

static char *esc(const char *s, size_t len)
{
	struct memtext m;

	xml_putn(memtext_start(&m), s, len);
	return memtext_end(&m);
}

static void test_escape(void **state)
{
	char *s;

	(void)state;
	s = esc("a<b>&\"c\"'d'", 11);
	assert_string_equal(s, "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
	free(s);
	/* control characters XML 1.0 forbids, a NUL inside, tab and newline kept */
	s = esc("x\x01y\0z\t\n", 7);
	assert_string_equal(s, "x\xef\xbf\xbdy\xef\xbf\xbdz\t\n");
	free(s);
	/* valid UTF-8 passes, malformed and overlong and surrogates are replaced */
	s = esc("\xc3\xa9", 2);
	assert_string_equal(s, "\xc3\xa9");
	free(s);
	s = esc("\xc3(", 2);
	assert_string_equal(s, "\xef\xbf\xbd(");
	free(s);
	s = esc("\xc0\xaf", 2);
	assert_string_equal(s, "\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	s = esc("\xed\xa0\x80", 3);
	assert_string_equal(s, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	s = esc("\xf0\x9f\x98\x80", 4);
	assert_string_equal(s, "\xf0\x9f\x98\x80");
	free(s);
	s = esc("\xe2\x82", 2); /* truncated at the end */
	assert_string_equal(s, "\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
}

static int b64val(char c)
{
	const char *t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = strchr(t, c);

	return p && c ? (int)(p - t) : -1;
}

static size_t unbase64(const char *s, uint8_t *out)
{
	size_t n = 0;
	uint32_t acc = 0;
	int bits = 0;

	for (; *s && *s != '='; s++) {
		int v = b64val(*s);

		assert_true(v >= 0);
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	return n;
}

struct png_read {
	const uint8_t *p;
	size_t n, pos;
};

static cairo_status_t png_read(void *closure, unsigned char *data, unsigned int len)
{
	struct png_read *r = closure;

	if (len > r->n - r->pos)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->p + r->pos, len);
	r->pos += len;
	return CAIRO_STATUS_SUCCESS;
}

/* The PNG decodes (with cairo's reader) to the pixels given: exactly where opaque, within the
 * rounding of premultiplied alpha elsewhere. */
static void test_png(void **state)
{
	uint8_t rgba[3 * 2 * 4], png[4096];
	struct png_read rd = {png, 0, 0};
	cairo_surface_t *s;
	char *b64;
	int stride;

	(void)state;
	for (size_t i = 0; i < sizeof(rgba); i++)
		rgba[i] = (uint8_t)(i * 7 + 3);
	rgba[3] = 255;                            /* pixel 0 opaque */
	rgba[7] = 0;                              /* pixel 1 transparent */
	memcpy(rgba + 20, "\xd6\x27\x28\xff", 4); /* pixel 5: the report's write colour */
	b64 = svg_png_base64(rgba, 3, 2);
	assert_non_null(b64);
	rd.n = unbase64(b64, png);
	free(b64);
	assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
	s = cairo_image_surface_create_from_png_stream(png_read, &rd);
	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(s), 3);
	assert_int_equal(cairo_image_surface_get_height(s), 2);
	stride = cairo_image_surface_get_stride(s);
	for (unsigned y = 0; y < 2; y++) {
		for (unsigned x = 0; x < 3; x++) {
			const uint8_t *want = rgba + (y * 3 + x) * 4;
			uint32_t got = ((const uint32_t *)(cairo_image_surface_get_data(s) +
			                                   (size_t)y * (size_t)stride))[x];
			unsigned a = got >> 24;

			assert_int_equal(a, want[3]);
			for (unsigned c = 0; c < 3 && a; c++) {
				unsigned v = (got >> (16 - 8 * c) & 255) * 255 / a;
				int tol = a == 255 ? 0 : (int)(255 / a) + 1;

				assert_in_range(v, want[c] > tol ? want[c] - tol : 0,
				                want[c] + tol);
			}
		}
	}
	cairo_surface_destroy(s);
	assert_null(svg_png_base64(rgba, 0, 2));
}

static void test_nice_step(void **state)
{
	(void)state;
	assert_true(fabs(svg_nice_step(100, 4) - 25) < 1e-9);
	assert_true(fabs(svg_nice_step(7.85, 10) - 1) < 1e-9);
	assert_true(fabs(svg_nice_step(0.003, 3) - 0.001) < 1e-12);
	assert_true(fabs(svg_nice_step(0, 4) - 1) < 1e-9);
}

static void test_chart(void **state)
{
	const double x[] = {0.5, 1.5, 2.5, 3.5}, y[] = {1, NAN, 3, 4}, lo[] = {0, 0, 2, 3},
	             hi[] = {2, 1, 4, 5};
	struct svg_series s = {"a<b", "#123456", 4, x, y, lo, hi, true};
	struct svg_band band = {1, 1.0001, 0.3, "#888", 1.5, "class=\"idle\"", 0};
	struct svg_chart c = {.id = "t\"1",
	                      .title = "T & co",
	                      .ylabel = "MB/s",
	                      .xmax = 4,
	                      .series = &s,
	                      .nseries = 1,
	                      .bands = &band,
	                      .nbands = 1};
	struct memtext m;
	char *buf;

	(void)state;
	assert_int_equal(svg_chart_write(memtext_start(&m), &c, true), 0);
	buf = memtext_end(&m);
	assert_true(!strncmp(buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=", 50));
	assert_non_null(strstr(buf, "id=\"t&quot;1\""));
	assert_non_null(strstr(buf, "<title>T &amp; co</title>"));
	assert_non_null(strstr(buf, ">a&lt;b</text>"));
	/* the NaN splits the line: a lone point, then a two-point polyline */
	assert_non_null(strstr(buf, "<circle"));
	assert_non_null(strstr(buf, "<polyline"));
	assert_non_null(strstr(buf, "stroke-dasharray"));
	/* a 0.1 ms gap on a 4 s axis is still drawn 1.5 px wide */
	assert_non_null(strstr(buf, "width=\"1.5\""));
	assert_null(strstr(buf, "nan"));
	assert_non_null(strstr(buf, "</svg>\n"));
	free(buf);
}

/* The head every chart starts with (the report's and the sweep report's), left open. */
static void test_open(void **state)
{
	struct memtext m;
	FILE *f = memtext_start(&m);
	char *buf;

	(void)state;
	svg_open(f, 640, 200, false);
	fputs("|", f);
	svg_open(f, 1, 2, true);
	buf = memtext_end(&m);
	assert_string_equal(buf,
	                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" "
	                    "height=\"200\" viewBox=\"0 0 640 200\" font-family=\"sans-serif\" "
	                    "font-size=\"11\"|<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1\" height=\"2\" "
	                    "viewBox=\"0 0 1 2\" font-family=\"sans-serif\" font-size=\"11\"");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escape),    cmocka_unit_test(test_png),
	    cmocka_unit_test(test_nice_step), cmocka_unit_test(test_chart),
	    cmocka_unit_test(test_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
