/* SPDX-License-Identifier: MIT */
/* Unit tests: encoding frames into MP4 and WebM, read back with libavformat; errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavformat/avformat.h>

#include "movie/movie_int.h"

/* n frames of w x h, each a flat colour, into path; then what a reader finds. */
static void roundtrip(enum movie_format f, enum AVCodecID want, unsigned w, unsigned h,
                      unsigned fps, unsigned n)
{
	char path[64] = "/tmp/iotape-ut-movie-XXXXXX";
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)h);
	cairo_t *cr = cairo_create(s);
	AVFormatContext *fc = NULL;
	AVPacket *pkt = av_packet_alloc();
	struct movie_enc *enc;
	struct iot_err e;
	unsigned packets = 0;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(movie_enc_open(&enc, path, f, w, h, fps, &e), 0);
	for (unsigned i = 0; i < n; i++) {
		cairo_set_source_rgb(cr, i % 2, 0.5, 1 - (double)i / n);
		cairo_paint(cr);
		cairo_surface_flush(s);
		assert_int_equal(movie_enc_frame(enc, cairo_image_surface_get_data(s),
		                                 cairo_image_surface_get_stride(s), &e),
		                 0);
	}
	assert_int_equal(movie_enc_close(enc, &e), 0);
	cairo_destroy(cr);
	cairo_surface_destroy(s);

	assert_int_equal(avformat_open_input(&fc, path, NULL, NULL), 0);
	assert_true(avformat_find_stream_info(fc, NULL) >= 0);
	assert_int_equal(fc->nb_streams, 1);
	assert_int_equal(fc->streams[0]->codecpar->codec_id, want);
	assert_int_equal(fc->streams[0]->codecpar->width, w);
	assert_int_equal(fc->streams[0]->codecpar->height, h);
	assert_int_equal(fc->streams[0]->codecpar->format, AV_PIX_FMT_YUV420P);
	while (av_read_frame(fc, pkt) >= 0) {
		packets++;
		av_packet_unref(pkt);
	}
	assert_int_equal(packets, n);
	/* n frames at fps a second */
	assert_true(llabs(fc->duration - (int64_t)n * AV_TIME_BASE / fps) <= AV_TIME_BASE / fps);
	av_packet_free(&pkt);
	avformat_close_input(&fc);
	unlink(path);
}

static void test_mp4(void **s)
{
	(void)s;
	roundtrip(MOVIE_MP4, AV_CODEC_ID_H264, 320, 180, 10, 25);
}

static void test_webm(void **s)
{
	(void)s;
	roundtrip(MOVIE_WEBM, AV_CODEC_ID_VP9, 480, 270, 25, 30);
}

static void test_unwritable(void **s)
{
	struct movie_enc *enc;
	struct iot_err e;

	(void)s;
	assert_true(movie_enc_open(&enc, "/nonexistent/dir/x.mp4", MOVIE_MP4, 320, 180, 30, &e) <
	            0);
	assert_null(enc);
	assert_non_null(strstr(e.msg, "/nonexistent/dir/x.mp4"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mp4),
	    cmocka_unit_test(test_webm),
	    cmocka_unit_test(test_unwritable),
	};

	av_log_set_level(AV_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
