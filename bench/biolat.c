/* SPDX-License-Identifier: MIT */
/* biolat DEV -- COMMAND: run COMMAND under biolatency-style tracing of DEV (the bench's floor). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "biolat.skel.h"

/* Prints the IOs counted and the log2 histogram of their D2C in microseconds; exits with
 * COMMAND's status. Not a test and not installed: bench/capture-overhead.sh runs it. */
int main(int argc, char **argv)
{
	struct iotape_biolat *skel;
	struct stat st;
	int status = 0, ncpu = libbpf_num_possible_cpus();
	pid_t pid;
	uint64_t total = 0;

	if (argc < 4 || strcmp(argv[2], "--"))
		return fprintf(stderr, "usage: biolat DEV -- COMMAND [ARGS...]\n"), 2;
	if (stat(argv[1], &st) || !S_ISBLK(st.st_mode))
		return fprintf(stderr, "biolat: '%s' is not a block device\n", argv[1]), 2;
	skel = iotape_biolat__open();
	if (!skel)
		return perror("biolat: open"), 1;
	/* a whole disk (a loop or zram device): its own major:minor is the queue's */
	skel->rodata->dev_key = (major(st.st_rdev) << 20) | minor(st.st_rdev);
	{
		/* blk-mq disks have an mq/ directory; bio-based ones (zram) do not */
		char p[128];

		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/mq", major(st.st_rdev),
		         minor(st.st_rdev));
		skel->rodata->bio_based = access(p, F_OK) != 0;
		if (skel->rodata->bio_based) {
			bpf_program__set_autoload(skel->progs.issue, false);
			bpf_program__set_autoload(skel->progs.complete, false);
		} else {
			bpf_program__set_autoload(skel->progs.bio_queue, false);
			bpf_program__set_autoload(skel->progs.bio_complete, false);
		}
	}
	if (iotape_biolat__load(skel) || iotape_biolat__attach(skel))
		return perror("biolat: load"), iotape_biolat__destroy(skel), 1;
	pid = fork();
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		perror("biolat: exec");
		_exit(127);
	}
	waitpid(pid, &status, 0);
	iotape_biolat__detach(skel);
	for (uint32_t slot = 0; slot < 64; slot++) {
		uint64_t v[ncpu > 0 ? ncpu : 1], n = 0;

		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.hist), &slot, v))
			continue;
		for (int c = 0; c < ncpu; c++)
			n += v[c];
		if (n)
			fprintf(stderr, "biolat: %5llu us and more: %llu\n", 1ull << slot,
			        (unsigned long long)n);
		total += n;
	}
	fprintf(stderr, "biolat: %llu IOs\n", (unsigned long long)total);
	iotape_biolat__destroy(skel);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
