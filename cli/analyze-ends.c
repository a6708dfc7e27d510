/* SPDX-License-Identifier: MIT */
/* iotape analyze SET: the NFS calls its hosts' captures saw from both ends (analyze/nfs_ends.h). */
#include "cli/analyze.h"

#include <errno.h>
#include <stdlib.h>

#include "analyze/nfs_ends.h"
#include "formats/runset.h"
#include "cli/cli.h"
#include "formats/pcap_src.h"
#include "formats/rundir.h"

int analyze_runset_ends(const struct runset_host *rs, unsigned n, struct nfs_ends **out)
{
	struct nfs_ends *x = NULL;
	unsigned ncap = 0;
	int ret = 0;

	*out = NULL;
	for (unsigned i = 0; i < n && !ret; i++) {
		struct rundir rd;
		struct pcap_src *src = NULL;
		struct iot_err e;
		int h, partial = 0;

		if (rundir_scan(&rd, rs[i].run, &e))
			continue; /* the block pass says what is wrong with it */
		if (!rd.ncaptures) {
			rundir_release(&rd);
			continue;
		}
		if (!x && (ret = nfs_ends_new(&x)))
			goto nomem;
		if ((h = nfs_ends_add_host(x, rs[i].name, rs[i].offset_ns, rs[i].error_ns)) < 0) {
			rundir_release(&rd);
			ret = h;
			break;
		}
		/* a capture that cannot be read: its host's own analysis says why */
		if ((ret = pcap_src_open(&src, rd.captures[0], &e)) ||
		    (ret = nfs_ends_read(x, (unsigned)h, src, &partial, &e)))
			warning(
			    "'%s': %s (the calls seen from both ends go without the rest of it)",
			    rd.captures[0], e.msg);
		else if (partial)
			warning("'%s': %s: its calls before are matched", rd.captures[0], e.msg);
		if (ret != -ENOMEM)
			ret = 0;
		if (src)
			pcap_src_free(src);
		rundir_release(&rd);
		ncap++;
	}
	if (!ret && ncap > 1 && (ret = nfs_ends_match(x)) == 0) {
		*out = x;
		return EXIT_OK;
	}
	nfs_ends_free(x);
	if (ret == -E2BIG)
		return error("at most %u hosts with packet captures", NFS_ENDS_MAX_HOSTS),
		       EXIT_USAGE;
	if (ret == -ENOMEM)
		goto nomem;
	return ret ? exit_code_for(ret) : EXIT_OK;
nomem:
	return error("out of memory"), EXIT_SYSTEM;
}
