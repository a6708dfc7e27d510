/* SPDX-License-Identifier: MIT */
/* Unit tests: the movie's layout (panels in a grid, devices stacked, boxes inside, too small). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "movie/movie_int.h"

static void inside(const struct movie_box *in, const struct movie_box *out)
{
	assert_true(in->w > 0 && in->h > 0);
	assert_true(in->x >= out->x && in->y >= out->y);
	assert_true(in->x + in->w <= out->x + out->w);
	assert_true(in->y + in->h <= out->y + out->h);
}

static int overlap(const struct movie_box *a, const struct movie_box *b)
{
	return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

static void check(unsigned w, unsigned h, unsigned n, unsigned ndev, unsigned cols)
{
	unsigned nd[MOVIE_MAX_RUNS];
	struct movie_box frame = {0, 0, (int)w, (int)h};
	struct movie_layout l;
	struct iot_err e;

	for (unsigned i = 0; i < n; i++)
		nd[i] = ndev;
	assert_int_equal(movie_layout_make(&l, w, h, n, nd, &e), 0);
	assert_int_equal(l.npanels, n);
	inside(&l.header, &frame);
	for (unsigned i = 0; i < n; i++) {
		const struct movie_panel_box *p = &l.panel[i];

		inside(&p->box, &frame);
		assert_false(overlap(&p->box, &l.header));
		/* panels fill rows of cols, left to right */
		if (i % cols)
			assert_int_equal(p->box.y, l.panel[i - 1].box.y);
		for (unsigned j = 0; j < i; j++)
			assert_false(overlap(&p->box, &l.panel[j].box));
		assert_int_equal(p->ndev, ndev < MOVIE_MAX_DEVS ? ndev : MOVIE_MAX_DEVS);
		for (unsigned d = 0; d < p->ndev; d++) {
			const struct movie_dev_box *db = &p->dev[d];

			inside(&db->plot, &p->box);
			assert_true(db->plot.w >= 48 && db->plot.h >= 24);
			assert_false(overlap(&db->plot, &p->title));
			for (int g = 0; g < MOVIE_NGRAPHS; g++) {
				inside(&db->graph[g], &p->box);
				assert_true(db->graph[g].h >= 8);
				/* below the plot, apart from each other and inside its width */
				assert_true(db->graph[g].y >= db->plot.y + db->plot.h);
				assert_true(db->graph[g].x >= db->plot.x);
				assert_true(db->graph[g].x + db->graph[g].w <=
				            db->plot.x + db->plot.w);
				for (int h = 0; h < g; h++)
					assert_false(overlap(&db->graph[g], &db->graph[h]));
			}
			if (d)
				assert_true(db->name.y >=
				            p->dev[d - 1].graph[MOVIE_NGRAPHS - 1].y +
				                p->dev[d - 1].graph[MOVIE_NGRAPHS - 1].h);
		}
	}
}

static void test_shapes(void **s)
{
	(void)s;
	check(1280, 720, 1, 1, 1);
	check(1280, 720, 1, 3, 1);
	check(1280, 720, 3, 1, 3);
	check(1280, 720, 4, 2, 4);
	check(1280, 720, 6, 1, 3); /* 3 x 2, the Ceph user's 3 filesystems x 2 distros */
	check(1920, 1080, 16, 1, 4);
	check(640, 360, 2, 1, 2);
	check(1280, 720, 1, 20, 1); /* devices past MOVIE_MAX_DEVS are left out */
}

static void test_too_small(void **s)
{
	unsigned nd[MOVIE_MAX_RUNS + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	struct movie_layout l;
	struct iot_err e;

	(void)s;
	assert_int_equal(movie_layout_make(&l, 320, 180, 16, nd, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "too small"));
	assert_int_equal(movie_layout_make(&l, 1280, 720, 17, nd, &e), -EINVAL);
	assert_int_equal(movie_layout_make(&l, 1280, 720, 0, nd, &e), -EINVAL);
	assert_int_equal(movie_layout_make(&l, 320, 180, 1, nd, &e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shapes),
	    cmocka_unit_test(test_too_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
