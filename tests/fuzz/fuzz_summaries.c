/* SPDX-License-Identifier: MIT */
/* libFuzzer target: what compare and report read from saved summaries and run manifests. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare/compare.h"
#include "report/report_html.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input is up to five parts split at NUL bytes: run A's summary (a saved `iotape analyze
 * --json` document) and manifest, run B's, and --fail-if rules one a line. Both runs go
 * through compare (every format) and the HTML report, as `iotape report A B` and `iotape
 * compare A B` take them; what the renderers write must hold no raw control bytes.
 */
#define NPARTS 5

static json_t *doc(const uint8_t *p, size_t n)
{
	return n ? json_loadb((const char *)p, n, JSON_DECODE_ANY, NULL) : NULL;
}

/* Text, Markdown and CSV: no terminal controls (tabs and line ends are the renderers' own). */
static void check_text(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f)
			abort();
	}
}

static void render(const struct compare *c, enum cmp_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	(void)compare_render(c, fmt, f);
	fclose(f);
	if (fmt == CMP_FMT_TEXT || fmt == CMP_FMT_MARKDOWN || fmt == CMP_FMT_CSV)
		check_text(buf, len);
	free(buf);
}

static void report(const struct report_input *in, size_t n, const struct compare *c)
{
	struct report_opts o = {.title = "fuzz", .version = "0", .cmp = c};
	struct iot_err e;
	FILE *f = fopen("/dev/null", "w");

	if (!f)
		return;
	(void)report_write_html(f, in, n, &o, &e);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[NPARTS] = {0};
	size_t len[NPARTS] = {0}, np = 0, from = 0;
	struct report_input in[2];
	json_t *sum[2] = {0}, *man[2] = {0};
	struct compare c;
	struct iot_err e;
	size_t nin = 0;

	for (size_t i = 0; i <= size && np < NPARTS; i++)
		if (i == size || !data[i]) {
			part[np] = data + from;
			len[np++] = i - from;
			from = i + 1;
		}
	for (unsigned r = 0; r < 2; r++) {
		sum[r] = doc(part[2 * r], len[2 * r]);
		man[r] = doc(part[2 * r + 1], len[2 * r + 1]);
	}
	if (compare_init(&c))
		goto out;
	for (unsigned r = 0; r < 2; r++) {
		if (!sum[r])
			continue;
		if (compare_add(&c, r ? "b" : "a", sum[r], man[r], NULL, &e))
			continue;
		in[nin++] = (struct report_input){
		    .path = r ? "b" : "a", .manifest = man[r], .summary = sum[r]};
	}
	if (len[4]) {
		char *rules = strndup((const char *)part[4], len[4]);

		for (char *s = rules, *t; s && (t = strsep(&s, "\n"));)
			(void)compare_add_rule(&c, t, &e);
		free(rules);
	}
	if (nin && !compare_finish(&c, &(struct compare_opts){0}, &e)) {
		for (enum cmp_format f = CMP_FMT_TEXT; f <= CMP_FMT_HTML; f++)
			render(&c, f);
		json_decref(compare_to_json(&c));
		report(in, nin, nin > 1 ? &c : NULL);
	} else if (nin) {
		report(in, nin, NULL);
	}
	compare_release(&c);
out:
	for (unsigned r = 0; r < 2; r++) {
		json_decref(sum[r]);
		json_decref(man[r]);
	}
	return 0;
}
