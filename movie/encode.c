/* SPDX-License-Identifier: MIT */
/* Encoding the frames: libswscale to YUV 4:2:0, libavcodec (x264 or VP9), libavformat (MP4, WebM).
 */
#include "movie/movie_int.h"

#include <errno.h>
#include <stdlib.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

/*
 * FFmpeg's libraries rather than a pipe to the ffmpeg program: no program to find on PATH,
 * errors come back as values with FFmpeg's own words, and frames go from cairo's surface
 * through one colour conversion into the encoder without a copy through a pipe (a 720p frame
 * is 3.7 MB). The encoders are the ones players expect: H.264 in MP4 (4:2:0, BT.709, moov
 * first so that a browser starts playing at once), VP9 in WebM.
 */

struct movie_enc {
	AVFormatContext *fmt;
	AVCodecContext *cc;
	AVStream *st;
	AVFrame *frame;
	AVPacket *pkt;
	struct SwsContext *sws;
	int64_t pts;
};

/* FFmpeg's error as -errno (its own codes, such as a missing encoder, as -EIO) with its words. */
static int av_fail(struct iot_err *e, int averr, const char *what)
{
	char buf[AV_ERROR_MAX_STRING_SIZE];
	int err = averr < 0 && averr > -4096 ? averr : -EIO;

	av_strerror(averr, buf, sizeof(buf));
	return iot_err_set(e, err, "%s: %s", what, buf);
}

static const AVCodec *find_codec(enum movie_format f)
{
	const AVCodec *c;

	if (f == MOVIE_MP4) {
		c = avcodec_find_encoder_by_name("libx264");
		return c ? c : avcodec_find_encoder(AV_CODEC_ID_H264);
	}
	c = avcodec_find_encoder_by_name("libvpx-vp9");
	return c ? c : avcodec_find_encoder(AV_CODEC_ID_VP9);
}

/* Sharp dots on a flat background: a constant quality a little above the encoders' default. */
static void codec_options(AVCodecContext *cc, enum movie_format f, AVDictionary **opt)
{
	if (f == MOVIE_MP4) {
		av_dict_set(opt, "preset", "veryfast", 0);
		av_dict_set(opt, "crf", "20", 0);
		av_dict_set(opt, "tune", "animation", 0);
	} else {
		av_dict_set(opt, "deadline", "realtime", 0);
		av_dict_set(opt, "cpu-used", "8", 0);
		av_dict_set(opt, "row-mt", "1", 0);
		av_dict_set(opt, "crf", "30", 0);
		cc->bit_rate = 0;
	}
}

int movie_enc_open(struct movie_enc **out, const char *path, enum movie_format f, unsigned w,
                   unsigned h, unsigned fps, struct iot_err *e)
{
	const char *name = f == MOVIE_MP4 ? "mp4" : "webm";
	struct movie_enc *enc = calloc(1, sizeof(*enc));
	AVDictionary *opt = NULL;
	const AVCodec *codec;
	int ret;

	*out = NULL;
	if (!enc)
		return iot_err_set(e, -ENOMEM, "out of memory");
	ret = avformat_alloc_output_context2(&enc->fmt, NULL, name, path);
	if (ret < 0) {
		ret = av_fail(e, ret, name);
		goto fail;
	}
	codec = find_codec(f);
	if (!codec) {
		ret = iot_err_set(e, -ENOSYS, "FFmpeg has no %s encoder here",
		                  f == MOVIE_MP4 ? "H.264" : "VP9");
		goto fail;
	}
	enc->st = avformat_new_stream(enc->fmt, NULL);
	enc->cc = avcodec_alloc_context3(codec);
	enc->frame = av_frame_alloc();
	enc->pkt = av_packet_alloc();
	if (!enc->st || !enc->cc || !enc->frame || !enc->pkt) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	enc->cc->width = (int)w;
	enc->cc->height = (int)h;
	enc->cc->time_base = (AVRational){1, (int)fps};
	enc->cc->framerate = (AVRational){(int)fps, 1};
	enc->cc->pix_fmt = AV_PIX_FMT_YUV420P;
	enc->cc->gop_size = (int)fps * 2; /* a key frame every 2 s: seeking stays quick */
	enc->cc->color_range = AVCOL_RANGE_MPEG;
	enc->cc->colorspace = AVCOL_SPC_BT709;
	enc->cc->color_primaries = AVCOL_PRI_BT709;
	enc->cc->color_trc = AVCOL_TRC_BT709;
	if (enc->fmt->oformat->flags & AVFMT_GLOBALHEADER)
		enc->cc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
	codec_options(enc->cc, f, &opt);
	ret = avcodec_open2(enc->cc, codec, &opt);
	av_dict_free(&opt);
	if (ret < 0) {
		ret = av_fail(e, ret, codec->name);
		goto fail;
	}
	ret = avcodec_parameters_from_context(enc->st->codecpar, enc->cc);
	if (ret < 0) {
		ret = av_fail(e, ret, codec->name);
		goto fail;
	}
	enc->st->time_base = enc->cc->time_base;
	enc->st->avg_frame_rate = enc->cc->framerate;
	enc->frame->format = enc->cc->pix_fmt;
	enc->frame->width = (int)w;
	enc->frame->height = (int)h;
	ret = av_frame_get_buffer(enc->frame, 0);
	if (ret < 0) {
		ret = av_fail(e, ret, "frame");
		goto fail;
	}
	/* cairo's ARGB32 is a native-endian word per pixel: FFmpeg's RGB32 */
	enc->sws = sws_getContext((int)w, (int)h, AV_PIX_FMT_RGB32, (int)w, (int)h,
	                          AV_PIX_FMT_YUV420P, SWS_BILINEAR, NULL, NULL, NULL);
	if (!enc->sws) {
		ret = iot_err_set(e, -ENOMEM, "no colour conversion to YUV 4:2:0");
		goto fail;
	}
	sws_setColorspaceDetails(enc->sws, sws_getCoefficients(SWS_CS_ITU709), 1,
	                         sws_getCoefficients(SWS_CS_ITU709), 0, 0, 1 << 16, 1 << 16);
	ret = avio_open(&enc->fmt->pb, path, AVIO_FLAG_WRITE);
	if (ret < 0) {
		ret = av_fail(e, ret, path);
		goto fail;
	}
	if (f == MOVIE_MP4)
		av_dict_set(&opt, "movflags", "+faststart", 0);
	ret = avformat_write_header(enc->fmt, &opt);
	av_dict_free(&opt);
	if (ret < 0) {
		ret = av_fail(e, ret, path);
		goto fail;
	}
	*out = enc;
	return 0;
fail:
	movie_enc_abort(enc);
	return ret;
}

/* Move every packet the encoder has ready into the file. */
static int drain(struct movie_enc *enc, struct iot_err *e)
{
	int ret;

	while ((ret = avcodec_receive_packet(enc->cc, enc->pkt)) >= 0) {
		av_packet_rescale_ts(enc->pkt, enc->cc->time_base, enc->st->time_base);
		enc->pkt->stream_index = enc->st->index;
		ret = av_interleaved_write_frame(enc->fmt, enc->pkt);
		if (ret < 0)
			return av_fail(e, ret, "writing the movie");
	}
	if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
		return 0;
	return av_fail(e, ret, enc->cc->codec->name);
}

int movie_enc_frame(struct movie_enc *enc, const uint8_t *argb, int stride, struct iot_err *e)
{
	const uint8_t *src[4] = {argb};
	int srcstride[4] = {stride};
	int ret = av_frame_make_writable(enc->frame);

	if (ret < 0)
		return av_fail(e, ret, "frame");
	sws_scale(enc->sws, src, srcstride, 0, enc->cc->height, enc->frame->data,
	          enc->frame->linesize);
	enc->frame->pts = enc->pts++;
	ret = avcodec_send_frame(enc->cc, enc->frame);
	if (ret < 0)
		return av_fail(e, ret, enc->cc->codec->name);
	return drain(enc, e);
}

int movie_enc_close(struct movie_enc *enc, struct iot_err *e)
{
	int ret = avcodec_send_frame(enc->cc, NULL);

	ret = ret < 0 ? av_fail(e, ret, enc->cc->codec->name) : drain(enc, e);
	if (!ret) {
		int r = av_write_trailer(enc->fmt);

		if (r < 0)
			ret = av_fail(e, r, "writing the movie");
	}
	if (!ret) {
		int r = avio_closep(&enc->fmt->pb);

		if (r < 0)
			ret = av_fail(e, r, "writing the movie");
	}
	movie_enc_abort(enc);
	return ret;
}

void movie_enc_abort(struct movie_enc *enc)
{
	if (!enc)
		return;
	sws_freeContext(enc->sws);
	av_packet_free(&enc->pkt);
	av_frame_free(&enc->frame);
	avcodec_free_context(&enc->cc);
	if (enc->fmt && enc->fmt->pb)
		avio_closep(&enc->fmt->pb);
	avformat_free_context(enc->fmt);
	free(enc);
}
