/* SPDX-License-Identifier: MIT */
/* Encoding the frames: cairo's pixels piped raw to the ffmpeg program (x264 in MP4, VP9 in WebM).
 */
#include "movie/movie_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/spawn.h"

/*
 * The ffmpeg program rather than FFmpeg's libraries: linked into the one iotape binary, those
 * libraries (and the hundred codec, network and GPU libraries they name) were mapped by every
 * command at every start, 28 MiB of 30 before a byte was read, and glibc has no lazy loading;
 * dlopen would mean a hand-kept table of FFmpeg's functions per major version. A child
 * process costs one copy of each frame through a pipe (3.7 MB at 720p: about 1 ms of CPU,
 * both ends, against the encoder's 20) and gives the encoding a process and a CPU of its own
 * while the next frame is drawn. ffmpeg converts to 4:2:0 (BT.709, limited range, tagged
 * so) and encodes with the encoders players expect: H.264 in MP4 (the index first, so that a
 * browser starts playing at once), VP9 in WebM. Its own process group, so that a Ctrl-C
 * reaches iotape alone, which ends it; it dies with iotape (PR_SET_PDEATHSIG).
 */

#define FFMPEG "ffmpeg"
#define ERR_TAIL 400 /* bytes of ffmpeg's last words kept in an error */

struct movie_enc {
	struct iot_proc proc;
	int fd;     /* ffmpeg's standard input, -1 once closed */
	int err_fd; /* ffmpeg's standard output and error (a memfd), -1 before it is made */
	unsigned w, h;
};

/* The end of what ffmpeg wrote (its error, with -loglevel error), on one line, in buf. */
static void last_words(int fd, char *buf, size_t len)
{
	off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	off_t from = end > (off_t)len - 1 ? end - (off_t)len + 1 : 0;
	ssize_t n = end > 0 ? pread(fd, buf, len - 1, from) : 0;
	char *s;

	buf[n > 0 ? n : 0] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = 0;
	for (s = buf; *s; s++)
		if (*s == '\n' || *s == '\r' || (unsigned char)*s < 0x20)
			*s = ' ';
}

/* Wait for ffmpeg to end (a signal does not cut the wait short); its shell status. */
static int reap(struct movie_enc *enc)
{
	int status = 0;

	while (!iot_proc_wait(&enc->proc, -1, &status))
		;
	return status;
}

/* ffmpeg's verdict once it has ended: 0, or -EIO with its words (or its status) in e. */
static int verdict(struct movie_enc *enc, int status, struct iot_err *e)
{
	char words[ERR_TAIL];

	if (!status)
		return 0;
	last_words(enc->err_fd, words, sizeof(words));
	if (status > 128)
		return iot_err_set(e, -EIO, "ffmpeg was killed by signal %d%s%s", status - 128,
		                   *words ? ": " : "", words);
	return iot_err_set(e, -EIO, "ffmpeg failed (exit %d)%s%s", status, *words ? ": " : "",
	                   words);
}

static void enc_free(struct movie_enc *enc)
{
	if (enc->fd >= 0)
		close(enc->fd);
	if (enc->err_fd >= 0)
		close(enc->err_fd);
	free(enc);
}

/* A missing program, said the way a user can act on. */
static int exec_failed(int err, struct iot_err *e)
{
	if (err == ENOENT)
		return iot_err_set(e, -ENOENT,
		                   "no '" FFMPEG "' program on PATH: movies are encoded by it "
		                   "(Debian: apt install ffmpeg)");
	return iot_err_set(e, -err, "cannot run '" FFMPEG "': %s", strerror(err));
}

/* Start ffmpeg with argv; its output and error go to a memfd. */
static int start(struct movie_enc *enc, char *const *argv, int fd_in, struct iot_err *e)
{
	struct iot_spawn_opts o = {.argv = argv,
	                           .fd_in = fd_in,
	                           .fd_out = -1,
	                           .fd_err = -1,
	                           .pdeathsig = SIGKILL,
	                           .new_pgrp = 1};
	int ret;

	enc->err_fd = memfd_create("iotape-ffmpeg", MFD_CLOEXEC);
	if (enc->err_fd < 0)
		return iot_err_set(e, -errno, "memfd_create: %s", strerror(errno));
	o.fd_out = o.fd_err = enc->err_fd;
	if ((ret = iot_spawn(&o, &enc->proc, e)))
		return ret;
	if (enc->proc.exec_errno) {
		reap(enc);
		return exec_failed(enc->proc.exec_errno, e);
	}
	return 0;
}

static char *encoder_name(enum movie_format f)
{
	return f == MOVIE_MP4 ? "libx264" : "libvpx-vp9";
}

int movie_enc_check(enum movie_format f, struct iot_err *e)
{
	char *argv[] = {FFMPEG,     "-hide_banner", "-loglevel", "error",
	                "-nostdin", "-encoders",    NULL};
	struct movie_enc *enc = calloc(1, sizeof(*enc));
	char want[32], *list = NULL;
	off_t len;
	int ret;

	if (!enc)
		return iot_err_set(e, -ENOMEM, "out of memory");
	enc->fd = enc->err_fd = -1;
	if ((ret = start(enc, argv, -1, e)))
		goto out;
	if ((ret = verdict(enc, reap(enc), e)))
		goto out;
	/* a line of the list: " V....D libx264              libx264 H.264 / AVC / ..." */
	len = lseek(enc->err_fd, 0, SEEK_END);
	list = len > 0 ? calloc(1, (size_t)len + 1) : NULL;
	if (!list || pread(enc->err_fd, list, (size_t)len, 0) != len) {
		ret = iot_err_set(e, -EIO, "cannot read ffmpeg's list of encoders");
		goto out;
	}
	snprintf(want, sizeof(want), " %s ", encoder_name(f));
	if (!strstr(list, want))
		ret = iot_err_set(e, -ENOSYS, "ffmpeg here has no %s encoder (%s)", encoder_name(f),
		                  f == MOVIE_MP4 ? "H.264 for MP4" : "VP9 for WebM");
out:
	free(list);
	enc_free(enc);
	return ret;
}

/* cairo's ARGB32 is a native-endian word per pixel (its alpha opaque here) */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RAW_PIX_FMT "bgr0"
#else
#define RAW_PIX_FMT "0rgb"
#endif

#define MAX_ARGS 64
#define PIPE_BYTES (1 << 20) /* Linux's pipe-max-size for users, unless raised */

/* Append the NULL-terminated arguments to argv (MAX_ARGS in all, the last one NULL). */
static void push(char **argv, size_t *n, ...)
{
	va_list ap;
	char *a;

	va_start(ap, n);
	while ((a = va_arg(ap, char *)) && *n < MAX_ARGS - 1)
		argv[(*n)++] = a;
	va_end(ap);
	argv[*n] = NULL;
}

int movie_enc_open(struct movie_enc **out, const char *path, enum movie_format f, unsigned w,
                   unsigned h, unsigned fps, struct iot_err *e)
{
	struct movie_enc *enc = calloc(1, sizeof(*enc));
	char size[32], rate[16], gop[16], *file = NULL, *argv[MAX_ARGS];
	int pfd[2], ret;
	size_t n = 0;

	*out = NULL;
	if (!enc || asprintf(&file, "file:%s", path) < 0) {
		free(enc);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	enc->fd = enc->err_fd = -1;
	enc->w = w;
	enc->h = h;
	snprintf(size, sizeof(size), "%ux%u", w, h);
	snprintf(rate, sizeof(rate), "%u", fps);
	snprintf(gop, sizeof(gop), "%u", fps * 2); /* a key frame every 2 s: seeking stays quick */
	push(argv, &n, FFMPEG, "-hide_banner", "-nostats", "-loglevel", "error", NULL);
	push(argv, &n, "-f", "rawvideo", "-pix_fmt", RAW_PIX_FMT, "-video_size", size, "-framerate",
	     rate, "-i", "pipe:0", NULL);
	push(argv, &n, "-an", "-vf",
	     "scale=out_color_matrix=bt709:out_range=tv:flags=bilinear,format=yuv420p",
	     "-color_range", "tv", "-colorspace", "bt709", "-color_primaries", "bt709",
	     "-color_trc", "bt709", "-g", gop, "-c:v", encoder_name(f), NULL);
	/* sharp dots on a flat background: a constant quality a little above the defaults */
	if (f == MOVIE_MP4)
		push(argv, &n, "-preset", "veryfast", "-crf", "20", "-tune", "animation",
		     "-movflags", "+faststart", "-f", "mp4", NULL);
	else
		push(argv, &n, "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1", "-crf",
		     "30", "-b:v", "0", "-f", "webm", NULL);
	/* the caller made the file (its name, exclusively); "file:": a name with a colon is not
	 * taken for a protocol */
	push(argv, &n, "-y", file, NULL);

	if (pipe2(pfd, O_CLOEXEC)) {
		ret = iot_err_set(e, -errno, "pipe: %s", strerror(errno));
		goto fail;
	}
	/* a frame in a few writes rather than one per 64 KiB (4 wake-ups of ffmpeg, not 57, at
	 * 720p); if the pipe cannot grow, it works as it is */
	(void)fcntl(pfd[1], F_SETPIPE_SZ, PIPE_BYTES);
	ret = start(enc, argv, pfd[0], e);
	close(pfd[0]);
	enc->fd = pfd[1];
	if (ret)
		goto fail;
	free(file);
	*out = enc;
	return 0;
fail:
	free(file);
	enc_free(enc);
	return ret;
}

/* ffmpeg took no more frames: its own words say why (it ended), or the pipe's. */
static int pipe_failed(struct movie_enc *enc, int err, struct iot_err *e)
{
	if (err == -EPIPE) {
		close(enc->fd);
		enc->fd = -1;
		if (verdict(enc, reap(enc), e))
			return -EIO;
		return iot_err_set(e, -EIO, "ffmpeg ended before the last frame");
	}
	return iot_err_set(e, err, "writing to ffmpeg: %s", strerror(-err));
}

/* Write buf into the pipe with SIGPIPE held back: a dead ffmpeg is EPIPE here, not our end.
 * A SIGPIPE that our write raised is taken back; one pending before is left alone. */
static int write_pipe(int fd, const void *buf, size_t len)
{
	sigset_t pipe, old, pending;
	bool had;
	int ret;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	sigpending(&pending);
	had = sigismember(&pending, SIGPIPE);
	ret = iot_write_all(fd, buf, len, NULL);
	if (ret == -EPIPE && !had) {
		struct timespec zero = {0, 0};

		sigtimedwait(&pipe, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int movie_enc_frame(struct movie_enc *enc, const uint8_t *argb, int stride, struct iot_err *e)
{
	size_t row = (size_t)enc->w * 4;
	int ret = 0;

	if (enc->fd < 0)
		return iot_err_set(e, -EIO, "ffmpeg has ended");
	if ((size_t)stride == row)
		ret = write_pipe(enc->fd, argb, row * enc->h);
	else
		for (unsigned y = 0; y < enc->h && !ret; y++)
			ret = write_pipe(enc->fd, argb + (size_t)y * (size_t)stride, row);
	return ret ? pipe_failed(enc, ret, e) : 0;
}

int movie_enc_close(struct movie_enc *enc, struct iot_err *e)
{
	int ret;

	if (enc->fd >= 0)
		close(enc->fd); /* end of input: ffmpeg flushes its encoder and writes the index */
	enc->fd = -1;
	ret = verdict(enc, reap(enc), e);
	enc_free(enc);
	return ret;
}

void movie_enc_abort(struct movie_enc *enc)
{
	if (!enc)
		return;
	iot_proc_kill(&enc->proc, SIGKILL);
	reap(enc);
	enc_free(enc);
}
