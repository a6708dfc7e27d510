/* SPDX-License-Identifier: MIT */
/* Runs a fuzz target's entry point once over every file named on the command line or found in
 * the directories named, so that crash inputs kept under tests/regress/ stay fixed in every
 * build (normal and ASan), not only in the libFuzzer build. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return perror(path), 1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fclose(f);
		free(buf);
		return fprintf(stderr, "%s: read failed\n", path), 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	printf("ok %s\n", path);
	return 0;
}

int main(int argc, char **argv)
{
	int fails = 0, count = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;

		if (stat(argv[i], &st))
			continue; /* a target with no regression inputs yet */
		if (!S_ISDIR(st.st_mode)) {
			fails += run_file(argv[i]);
			count++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (de = readdir(d))) {
			char path[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			fails += run_file(path);
			count++;
		}
		if (d)
			closedir(d);
	}
	printf("%d passed, %d failed\n", count - fails, fails);
	return fails ? 1 : 0;
}
