/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a summary run's summary.json as analyze and compare lay it out. */
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "analyze/blk_summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whatever the document, blk_summary_json() lays it out or refuses it with a message; what
 * it lays out is a JSON document jansson writes back. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *sum = json_loadb((const char *)data, size, 0, NULL), *root;
	struct iot_err e = {""};
	char *text;
	int ret;

	if (!sum)
		return 0;
	root = json_object();
	ret = blk_summary_json(sum, 10, 0, 0, root, &e);
	if (ret && (ret != -EINVAL || !e.msg[0]))
		abort();
	text = json_dumps(root, 0);
	if (!text)
		abort();
	free(text);
	json_decref(root);
	json_decref(sum);
	return 0;
}
