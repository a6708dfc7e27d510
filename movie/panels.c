/* SPDX-License-Identifier: MIT */
/* What a panel shows besides the events: its devices' names, a run set's host's lag. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/idle_explain.h"
#include "formats/manifest.h"
#include "movie/movie.h"

void movie_dev_names_free(char **names, unsigned n)
{
	for (unsigned i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

int movie_dev_names(const struct movie_probe *p, const struct manifest *mf, char ***out)
{
	char **names = calloc(p->ndev ? p->ndev : 1, sizeof(*names));

	*out = NULL;
	if (!names)
		return -ENOMEM;
	for (unsigned i = 0; i < p->ndev; i++) {
		uint32_t dev = p->dev[i].dev;
		const struct manifest_dev *md =
		    mf ? manifest_dev_find(mf, dev >> 20, dev & 0xfffff) : NULL;
		int n;

		if (md && md->name)
			n = asprintf(&names[i], "%s%s%s%s%s%s", md->name, md->role ? " " : "",
			             md->role ? md->role : "", md->fstype ? " (" : "",
			             md->fstype ? md->fstype : "", md->fstype ? ")" : "");
		else
			n = asprintf(&names[i], "%u,%u", dev >> 20, dev & 0xfffff);
		if (n < 0) {
			names[i] = NULL; /* asprintf leaves it undefined */
			movie_dev_names_free(names, p->ndev);
			return -ENOMEM;
		}
	}
	*out = names;
	return 0;
}

void movie_set_lags(const struct manifest *const *mf, const uint64_t *first,
                    const int64_t *offset_ns, size_t n, struct movie_run_info *info, bool *placed)
{
	int64_t real[MOVIE_MAX_RUNS], earliest = INT64_MAX;

	for (size_t i = 0; i < n && i < MOVIE_MAX_RUNS; i++) {
		struct ie_clock clk = {.m = mf[i] && mf[i]->have_clock ? mf[i] : NULL,
		                       .real_off_ns = offset_ns[i]};

		placed[i] = clk.m && ie_clock_to_real(&clk, first[i], &real[i]);
		if (placed[i] && real[i] < earliest)
			earliest = real[i];
	}
	for (size_t i = 0; i < n; i++)
		info[i].lag_ns =
		    i < MOVIE_MAX_RUNS && placed[i] ? (uint64_t)(real[i] - earliest) : 0;
}
