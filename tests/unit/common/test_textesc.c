/* SPDX-License-Identifier: MIT */
/* Unit tests: escaping for terminals, Markdown and CSV. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/textesc.h"

#include "../memtext.h"

/* What fn writes for s. */
static char *render(void (*fn)(FILE *, const char *), const char *s)
{
	struct memtext m;

	fn(memtext_start(&m), s);
	return memtext_end(&m);
}

static void expect(void (*fn)(FILE *, const char *), const char *s, const char *want)
{
	char *got = render(fn, s);

	assert_string_equal(got, want);
	free(got);
}

static void test_text(void **state)
{
	char buf[16];
	char *d;

	(void)state;
	expect(txt_puts, "fio", "fio");
	expect(txt_puts, "kworker/1:2", "kworker/1:2");
	/* a title-setting and a recolouring sequence, a newline, a tab, DEL */
	expect(txt_puts, "\x1b]0;pwned\x07x", "\\x1b]0;pwned\\x07x");
	expect(txt_puts, "\x1b[31mred", "\\x1b[31mred");
	expect(txt_puts, "a\nb\tc\rd\x7f", "a\\nb\\tc\\rd\\x7f");
	/* UTF-8 passes; C1 controls, bidi overrides and malformed bytes do not */
	expect(txt_puts, "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac");
	expect(txt_puts,
	       "\xc2\x9b"
	       "31m",
	       "\\u009b31m");
	expect(txt_puts, "abc\xe2\x80\xaegnp.exe", "abc\\u202egnp.exe");
	expect(txt_puts, "\x9b\xff\xc3(\xed\xa0\x80\xc0\xaf",
	       "\\x9b\\xff\\xc3(\\xed\\xa0\\x80\\xc0\\xaf");
	expect(txt_puts, "\xe2\x82", "\\xe2\\x82"); /* cut short by the end */
	/* into a buffer: cut at a whole escape */
	assert_string_equal(txt_escape("ab\x1b", buf, 4), "ab");
	assert_string_equal(txt_escape("ab\x1b", buf, sizeof(buf)), "ab\\x1b");
	d = txt_strdup("\x01\x02");
	assert_string_equal(d, "\\x01\\x02");
	free(d);
}

static void test_markdown(void **state)
{
	(void)state;
	expect(txt_md_puts, "a|b", "a\\|b");
	expect(txt_md_puts, "x_y*z`w\\", "x\\_y\\*z\\`w\\\\");
	expect(txt_md_puts, "two\nlines\x1b", "two\\nlines\\x1b");
}

static void test_csv(void **state)
{
	(void)state;
	expect(txt_csv_puts, "ext4", "ext4");
	expect(txt_csv_puts, "a,b", "\"a,b\"");
	expect(txt_csv_puts, "say \"hi\"", "\"say \"\"hi\"\"\"");
	/* OWASP CSV injection: formulas become text */
	expect(txt_csv_puts, "=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"");
	expect(txt_csv_puts, "+1", "'+1");
	expect(txt_csv_puts, "-2+3", "'-2+3");
	expect(txt_csv_puts, "@SUM(A1)", "'@SUM(A1)");
	expect(txt_csv_puts, "\tx", "\\tx"); /* the tab is escaped: the cell starts with '\' */
	expect(txt_csv_puts, "line\nbreak", "line\\nbreak");
	expect(txt_csv_puts, " padded ", "\" padded \"");
	expect(txt_csv_puts, "", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_markdown),
	    cmocka_unit_test(test_csv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
