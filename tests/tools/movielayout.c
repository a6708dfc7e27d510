/* SPDX-License-Identifier: MIT */
/* movielayout: where iotape movie draws what, as JSON, for the pixel checks of its tests. */
/*
 * movielayout WIDTH HEIGHT NDEV...   one NDEV per run: the frame's panels and, per device,
 * the offset plot and the three graphs as [x, y, w, h] in pixels, from the layout code the
 * movie itself uses.
 */
#include <stdio.h>
#include <stdlib.h>

#include "movie/movie_int.h"

static void box(const char *name, const struct movie_box *b, const char *sep)
{
	printf("\"%s\": [%d, %d, %d, %d]%s", name, b->x, b->y, b->w, b->h, sep);
}

int main(int argc, char **argv)
{
	unsigned ndev[MOVIE_MAX_RUNS], n = (unsigned)argc - 3;
	struct movie_layout l;
	struct iot_err e;

	if (argc < 4 || n > MOVIE_MAX_RUNS) {
		fprintf(stderr, "usage: movielayout WIDTH HEIGHT NDEV...\n");
		return 2;
	}
	for (unsigned i = 0; i < n; i++)
		ndev[i] = (unsigned)atoi(argv[3 + i]);
	if (movie_layout_make(&l, (unsigned)atoi(argv[1]), (unsigned)atoi(argv[2]), n, ndev, &e)) {
		fprintf(stderr, "movielayout: %s\n", e.msg);
		return 1;
	}
	printf("{\"panels\": [\n");
	for (unsigned i = 0; i < n; i++) {
		const struct movie_panel_box *p = &l.panel[i];

		printf("  {");
		box("box", &p->box, ", ");
		box("title", &p->title, ", ");
		printf("\"devices\": [");
		for (unsigned d = 0; d < p->ndev; d++) {
			printf("{");
			box("plot", &p->dev[d].plot, ", ");
			box("mbps", &p->dev[d].graph[MOVIE_G_MBPS], ", ");
			box("iops", &p->dev[d].graph[MOVIE_G_IOPS], ", ");
			box("seeks", &p->dev[d].graph[MOVIE_G_SEEKS], "");
			printf("}%s", d + 1 < p->ndev ? ", " : "");
		}
		printf("]}%s\n", i + 1 < n ? "," : "");
	}
	printf("]}\n");
	return 0;
}
