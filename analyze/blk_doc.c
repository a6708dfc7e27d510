/* SPDX-License-Identifier: MIT */
/* analyze's JSON document, written with its devices' timelines streamed from their passes. */
#include "analyze/blk_doc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_analysis.h"

/* jansson writes every key and value; the layout is its JSON_INDENT(2), one bin a line. */

#define DUMP_FLAGS (JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY)

/* v with jansson, its continuation lines indented by ind more spaces. */
static void put_value(FILE *f, const json_t *v, int ind, size_t flags)
{
	char *s = json_dumps(v, flags);

	if (!s) {
		fputs("null", f); /* only without memory; the caller's ferror check sees the rest */
		return;
	}
	for (const char *p = s; *p; p++) {
		fputc(*p, f);
		if (*p == '\n')
			fprintf(f, "%*s", ind, "");
	}
	free(s);
}

static void put_key(FILE *f, const char *key, int ind, int first)
{
	json_t *k = json_string(key);

	fprintf(f, "%s\n%*s", first ? "" : ",", ind, "");
	put_value(f, k, 0, DUMP_FLAGS);
	fputs(": ", f);
	json_decref(k);
}

static void put_device(FILE *f, const json_t *dev, const struct blk_analysis *a, unsigned pos)
{
	const char *key;
	json_t *v;
	int first = 1;

	fputs("{", f);
	json_object_foreach((json_t *)dev, key, v)
	{
		put_key(f, key, 6, first);
		first = 0;
		if (strcmp(key, "timeline") || !json_is_null(v)) {
			put_value(f, v, 6, DUMP_FLAGS | JSON_INDENT(2));
			continue;
		}
		fputs("[", f);
		for (uint64_t k = 0, n = blk_analysis_timeline_bins(a); k < n; k++) {
			json_t *bin = blk_analysis_timeline_bin(a, pos, k);

			fprintf(f, "%s\n        ", k ? "," : "");
			put_value(f, bin, 0, DUMP_FLAGS | JSON_COMPACT);
			json_decref(bin);
		}
		fputs("\n      ]", f);
	}
	fputs("\n    }", f);
}

int blk_doc_write(FILE *f, const json_t *root, const struct devref *refs)
{
	const char *key;
	json_t *v;
	int first = 1;

	fputs("{", f);
	json_object_foreach((json_t *)root, key, v)
	{
		put_key(f, key, 2, first);
		first = 0;
		if (strcmp(key, "devices") || !json_is_array(v)) {
			put_value(f, v, 2, DUMP_FLAGS | JSON_INDENT(2));
			continue;
		}
		fputs("[", f);
		for (size_t i = 0; i < json_array_size(v); i++) {
			fprintf(f, "%s\n    ", i ? "," : "");
			put_device(f, json_array_get(v, i), refs[i].a, refs[i].pos);
		}
		fputs(json_array_size(v) ? "\n  ]" : "]", f);
	}
	fputs("\n}\n", f);
	return ferror(f) ? -EIO : 0;
}
