/* SPDX-License-Identifier: MIT */
/* Unit tests: frames piped to ffmpeg into MP4 and WebM, read back with ffprobe; its failures. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "movie/movie_int.h"

/* Skip (77, as ctest expects) without ffmpeg and ffprobe, unless IOTAPE_NO_SKIP says fail. */
static void need_ffmpeg(void)
{
	if (!system("command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null"))
		return;
	if (getenv("IOTAPE_NO_SKIP")) {
		fprintf(stderr, "FAIL: no ffmpeg or ffprobe, and IOTAPE_NO_SKIP is set\n");
		exit(1);
	}
	fprintf(stderr, "SKIP: needs ffmpeg and ffprobe\n");
	exit(77);
}

/* ffprobe's KEY=VALUE lines for the first video stream and the container, in out. */
static void probe(const char *path, char *out, size_t len)
{
	char cmd[512];
	size_t n;
	FILE *f;

	snprintf(
	    cmd, sizeof(cmd),
	    "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
	    "stream=codec_name,width,height,pix_fmt,color_space,nb_read_frames:format=duration "
	    "-of default=nw=1 '%s'",
	    path);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, len - 1, f);
	out[n] = 0;
	assert_int_equal(pclose(f), 0);
}

/* The value of KEY in ffprobe's lines. */
static const char *field(const char *lines, const char *key, char *buf, size_t len)
{
	char want[64];
	const char *p;
	size_t n;

	snprintf(want, sizeof(want), "%s=", key);
	p = strstr(lines, want);
	assert_non_null(p);
	p += strlen(want);
	n = strcspn(p, "\n");
	assert_true(n < len);
	memcpy(buf, p, n);
	buf[n] = 0;
	return buf;
}

static void make_temp(char *path)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
}

/* n frames of w x h, each a flat colour, into a file; then what ffprobe finds. */
static void roundtrip(enum movie_format f, const char *codec, unsigned w, unsigned h, unsigned fps,
                      unsigned n)
{
	char path[64] = "/tmp/iotape-ut-movie-XXXXXX", lines[1024], v[64];
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)h);
	cairo_t *cr = cairo_create(s);
	struct movie_enc *enc;
	struct iot_err e;

	make_temp(path);
	assert_int_equal(movie_enc_check(f, &e), 0);
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

	probe(path, lines, sizeof(lines));
	assert_string_equal(field(lines, "codec_name", v, sizeof(v)), codec);
	assert_int_equal(atoi(field(lines, "width", v, sizeof(v))), w);
	assert_int_equal(atoi(field(lines, "height", v, sizeof(v))), h);
	assert_string_equal(field(lines, "pix_fmt", v, sizeof(v)), "yuv420p");
	assert_string_equal(field(lines, "color_space", v, sizeof(v)), "bt709");
	assert_int_equal(atoi(field(lines, "nb_read_frames", v, sizeof(v))), n);
	/* n frames at fps a second */
	assert_true(fabs(atof(field(lines, "duration", v, sizeof(v))) - (double)n / fps) <=
	            1.0 / fps);
	unlink(path);
}

static void test_mp4(void **s)
{
	(void)s;
	roundtrip(MOVIE_MP4, "h264", 320, 180, 10, 25);
}

static void test_webm(void **s)
{
	(void)s;
	roundtrip(MOVIE_WEBM, "vp9", 480, 270, 25, 30);
}

/* A frame whose rows are further apart than its width: each row is sent alone. */
static void test_stride(void **s)
{
	char path[64] = "/tmp/iotape-ut-movie-XXXXXX", lines[1024], v[64];
	unsigned w = 320, h = 180, stride = w * 4 + 64;
	uint8_t *px = calloc((size_t)stride * h, 1);
	struct movie_enc *enc;
	struct iot_err e;

	(void)s;
	assert_non_null(px);
	make_temp(path);
	assert_int_equal(movie_enc_open(&enc, path, MOVIE_MP4, w, h, 5, &e), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(movie_enc_frame(enc, px, (int)stride, &e), 0);
	assert_int_equal(movie_enc_close(enc, &e), 0);
	probe(path, lines, sizeof(lines));
	assert_int_equal(atoi(field(lines, "nb_read_frames", v, sizeof(v))), 3);
	unlink(path);
	free(px);
}

/* The error comes back (with ffmpeg's words naming the file), the caller is not killed. */
static void test_unwritable(void **s)
{
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 320, 180);
	struct movie_enc *enc;
	struct iot_err e;
	int ret = 0;

	(void)s;
	assert_int_equal(
	    movie_enc_open(&enc, "/nonexistent/dir/x.mp4", MOVIE_MP4, 320, 180, 30, &e), 0);
	for (int i = 0; i < 200 && !ret; i++)
		ret = movie_enc_frame(enc, cairo_image_surface_get_data(sf),
		                      cairo_image_surface_get_stride(sf), &e);
	if (!ret)
		ret = movie_enc_close(enc, &e);
	else
		movie_enc_abort(enc);
	assert_int_equal(ret, -EIO);
	assert_non_null(strstr(e.msg, "ffmpeg failed (exit"));
	assert_non_null(strstr(e.msg, "/nonexistent/dir/x.mp4"));
	cairo_surface_destroy(sf);
}

/* A directory of its own as PATH, holding a script called ffmpeg when script is not NULL. */
static void fake_path(char *dir, const char *script)
{
	char file[128];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	if (script) {
		snprintf(file, sizeof(file), "%s/ffmpeg", dir);
		f = fopen(file, "w");
		assert_non_null(f);
		fprintf(f, "#!/bin/sh\n%s\n", script);
		fclose(f);
		assert_int_equal(chmod(file, 0755), 0);
	}
	assert_int_equal(setenv("PATH", dir, 1), 0);
}

static void real_path(char *dir, const char *path)
{
	char file[128];

	snprintf(file, sizeof(file), "%s/ffmpeg", dir);
	unlink(file);
	rmdir(dir);
	assert_int_equal(setenv("PATH", path, 1), 0);
}

static void test_no_ffmpeg(void **s)
{
	char dir[] = "/tmp/iotape-ut-path-XXXXXX", *path = strdup(getenv("PATH"));
	struct movie_enc *enc;
	struct iot_err e;

	(void)s;
	fake_path(dir, NULL);
	assert_int_equal(movie_enc_check(MOVIE_MP4, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "apt install ffmpeg"));
	assert_int_equal(movie_enc_open(&enc, "/tmp/x.mp4", MOVIE_MP4, 320, 180, 30, &e), -ENOENT);
	assert_null(enc);
	real_path(dir, path);
	free(path);
}

/* An ffmpeg without the encoder, and one that dies at once: said, with its words. */
static void test_bad_ffmpeg(void **s)
{
	char dir[] = "/tmp/iotape-ut-path-XXXXXX", dir2[] = "/tmp/iotape-ut-path-XXXXXX";
	char *path = strdup(getenv("PATH"));
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 320, 180);
	struct movie_enc *enc;
	struct iot_err e;
	int ret = 0;

	(void)s;
	fake_path(dir, "echo ' V....D libvpx-vp9           libvpx VP9 (codec vp9)'");
	assert_int_equal(movie_enc_check(MOVIE_WEBM, &e), 0);
	assert_int_equal(movie_enc_check(MOVIE_MP4, &e), -ENOSYS);
	assert_non_null(strstr(e.msg, "no libx264 encoder"));
	real_path(dir, path);

	fake_path(dir2, "echo 'Unknown encoder' >&2; echo 'nothing done' >&2; exit 3");
	assert_int_equal(movie_enc_open(&enc, "/tmp/x.mp4", MOVIE_MP4, 320, 180, 30, &e), 0);
	for (int i = 0; i < 200 && !ret; i++)
		ret = movie_enc_frame(enc, cairo_image_surface_get_data(sf),
		                      cairo_image_surface_get_stride(sf), &e);
	assert_int_equal(ret, -EIO);
	assert_string_equal(e.msg, "ffmpeg failed (exit 3): Unknown encoder nothing done");
	movie_enc_abort(enc);
	real_path(dir2, path);
	cairo_surface_destroy(sf);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mp4),       cmocka_unit_test(test_webm),
	    cmocka_unit_test(test_stride),    cmocka_unit_test(test_unwritable),
	    cmocka_unit_test(test_no_ffmpeg), cmocka_unit_test(test_bad_ffmpeg),
	};

	need_ffmpeg();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
