/* SPDX-License-Identifier: MIT */
/* A run set's manifest (SET/runset.json, written by capture --host) read back: its hosts. */
#ifndef IOTAPE_FORMATS_RUNSET_H
#define IOTAPE_FORMATS_RUNSET_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define RUNSET_FILE "runset.json"
/* the most hosts a run set's manifest may name (capture --host makes no more) */
#define RUNSET_MAX_HOSTS 256u

/* One host of a run set that brought a run back. */
struct runset_host {
	char *run;         /* SET/NAME, its run directory */
	char *name;        /* the host's name in the set */
	int64_t offset_ns; /* its CLOCK_REALTIME minus the capturing host's, measured */
	uint64_t error_ns; /* the offset is right within this */
	int ok;            /* its run is whole (else partial: kept, but said) */
};

/*
 * A run set's hosts (SET/runset.json) that brought a run back, into *hosts (malloc'd, *n of
 * them; runset_hosts_free). -ENOENT when dir has no runset.json (e untouched); -EINVAL when it
 * is not a run set's manifest.
 */
int runset_load(const char *dir, struct runset_host **hosts, unsigned *n, struct iot_err *e);
/* The same from runset.json's text (the fuzz target's way in). */
int runset_parse(const char *text, size_t len, const char *dir, struct runset_host **hosts,
                 unsigned *n, struct iot_err *e);
void runset_hosts_free(struct runset_host *hosts, unsigned n);

/* A host of a run set that failed (status not "ok"), with or without a run brought back. */
struct runset_fault {
	char name[256];
	char reason[320]; /* runset.json's reason, cut to fit */
	int have_run;     /* a partial run of it is in the set (among runset_load()'s) */
};
/*
 * The failed hosts of a run set, in its order, into *faults (malloc'd, *n of them; free()).
 * -ENOENT when dir has no runset.json; -EINVAL when it is not a run set's manifest (e).
 */
int runset_faults(const char *dir, struct runset_fault **faults, unsigned *n, struct iot_err *e);

/*
 * A run set as every reader takes it (analyze, report, compare, movie, a sweep's cells): its
 * hosts that brought a whole run back (h, n: a failed host's run is partial at best, left out)
 * and its failed hosts with their reasons (f, nf: for the caller to say). -ENOENT when dir is
 * no run set (e untouched); -ENODATA when no host brought a whole run back, -EINVAL (not a run
 * set's manifest) or -ENOMEM (e filled). rs is empty after an error but for -ENODATA's failed
 * hosts; runset_release() either way.
 */
struct runset {
	struct runset_host *h;
	unsigned n;
	struct runset_fault *f;
	unsigned nf;
};
int runset_open(const char *dir, struct runset *rs, struct iot_err *e);
void runset_release(struct runset *rs);

#endif
