/* SPDX-License-Identifier: MIT */
/* libFuzzer target: fio's client output (notes, then JSON) as --fio-client reads it, and
 * HOST[:PORT]=TARGET arguments. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fioclient/fioclient.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fc_parse_output(const char *path, struct fc_result *res, struct iot_err *e);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fc_dev devs[2];
	struct fc_result res;
	struct fc_slot s;
	struct iot_err e;
	char path[64], *arg;
	int fd = memfd_create("fio.json", 0);

	/* the bytes as one argument */
	arg = malloc(size + 1);
	if (arg) {
		memcpy(arg, data, size);
		arg[size] = 0;
		if (fc_slot_parse(&s, arg, &e) == 0) {
			if (!s.host[0] || !s.target[0] || !s.port || s.port > 65535)
				abort();
			fc_slot_release(&s);
		}
		free(arg);
	}
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		memset(&res, 0, sizeof(res));
		memset(devs, 0, sizeof(devs));
		strcpy(devs[0].x.name, "sdb");
		strcpy(devs[1].x.name, "sdc");
		res.devs = devs;
		res.ndevs = 2;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		(void)fc_parse_output(path, &res, &e);
	}
	close(fd);
	return 0;
}
