/* SPDX-License-Identifier: MIT */
/* The relay backend: BLKTRACESETUP/START and debugfs relay files, as blktrace(8) does. */
#include "capture/cap_int.h"

#include <fcntl.h>
#include <linux/blktrace_api.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define DEBUGFS "/sys/kernel/debug"

struct relay_dev {
	int fd; /* the block device, holding the trace */
	char name[BLKTRACE_BDEV_SIZE];
	int setup, started;
};

struct cap_backend_state {
	struct relay_dev *d;
	unsigned n;
	int mounted; /* debugfs was mounted by this capture: unmounted at the end */
};

/* Why debugfs refused a relay file, for the message (into buf). */
static const char *lockdown_hint(char *buf, size_t cap)
{
	char text[128], mode[32] = "";

	/* "none [integrity] confidentiality": relay files are refused in the two last modes;
	 * securityfs is often not mounted, so without the file say where to look */
	if (cap_read_str("/sys/kernel/security/lockdown", text, sizeof(text))) {
		snprintf(buf, cap,
		         " (debugfs refused it: is the kernel in lockdown mode? see dmesg)");
		return buf;
	}
	cap_pick_bracketed(text, mode, sizeof(mode));
	if (!strcmp(mode, "none"))
		buf[0] = '\0';
	else
		snprintf(buf, cap, " (kernel lockdown is '%s': debugfs relay files are refused)",
		         mode);
	return buf;
}

static int relay_teardown(struct cap_backend_state *s, struct cap_result *res, json_t *info,
                          struct iot_err *e)
{
	uint64_t dropped = 0;
	json_t *devs = json_array();

	(void)e;
	if (!s) {
		json_decref(devs);
		return 0;
	}
	for (unsigned i = 0; i < s->n; i++) {
		struct relay_dev *d = &s->d[i];
		char p[256];
		uint64_t v = 0;

		if (d->setup) {
			snprintf(p, sizeof(p), DEBUGFS "/block/%s/dropped", d->name);
			if (!cap_read_u64(p, &v))
				dropped += v;
			json_array_append_new(devs, json_pack("{s:s, s:I}", "name", d->name,
			                                      "dropped", (json_int_t)v));
			if (d->started)
				ioctl(d->fd, BLKTRACESTOP);
			ioctl(d->fd, BLKTRACETEARDOWN);
		}
		if (d->fd >= 0)
			close(d->fd);
	}
	if (res)
		res->relay_dropped = dropped;
	if (info)
		json_object_set_new(info, "relay", devs);
	else
		json_decref(devs);
	if (s->mounted)
		cap_unmount_own(DEBUGFS);
	free(s->d);
	free(s);
	return 0;
}

static int relay_start(struct cap_backend_state **out, const struct cap_dev *devs, unsigned n,
                       const struct cap_opts *o, struct cap_reader *rd, struct iot_err *e)
{
	struct cap_backend_state *s = calloc(1, sizeof(*s));
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	char hint[128];
	int ret;

	*out = s;
	if (!s || !(s->d = calloc(n ? n : 1, sizeof(*s->d))))
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++)
		s->d[i].fd = -1;
	s->n = n;
	ret = cap_ensure_mounted(DEBUGFS, "debugfs", e);
	if (ret < 0)
		return ret;
	s->mounted = ret;
	for (unsigned i = 0; i < n; i++) {
		struct relay_dev *d = &s->d[i];
		struct blk_user_trace_setup bus = {
		    .act_mask = o->act_mask ? o->act_mask : 0xffff,
		    .buf_size = 512 * 1024,
		    .buf_nr = 8,
		};

		d->fd = open(devs[i].path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (d->fd < 0)
			return iot_err_set(e, -errno, "'%s': %s", devs[i].path, strerror(errno));
		if (ioctl(d->fd, BLKTRACESETUP, &bus) < 0) {
			int err = errno;

			if (err == EBUSY)
				return iot_err_set(e, -EBUSY, "'%s' is already being traced",
				                   devs[i].name);
			return iot_err_set(e, -err, "relay: BLKTRACESETUP on '%s': %s%s",
			                   devs[i].name, strerror(err),
			                   err == EPERM ? lockdown_hint(hint, sizeof(hint)) : "");
		}
		d->setup = 1;
		memcpy(d->name, bus.name, sizeof(d->name));
		d->name[sizeof(d->name) - 1] = '\0';
		for (long c = 0; c < ncpu; c++) {
			char p[256];
			int fd;

			snprintf(p, sizeof(p), DEBUGFS "/block/%s/trace%ld", d->name, c);
			fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd < 0) {
				int err = errno;

				if (err == ENOENT && c > 0)
					continue; /* CPU not present */
				return iot_err_set(e, -err, "relay: '%s': %s%s", p, strerror(err),
				                   err == EPERM || err == ENOENT
				                       ? lockdown_hint(hint, sizeof(hint))
				                       : "");
			}
			ret = cap_reader_add(rd, fd, (unsigned)c, CAP_STREAM_RELAY, e);
			if (ret)
				return ret;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		if (ioctl(s->d[i].fd, BLKTRACESTART) < 0)
			return iot_err_set(e, -errno, "relay: BLKTRACESTART on '%s': %s",
			                   devs[i].name, strerror(errno));
		s->d[i].started = 1;
	}
	return 0;
}

static void relay_stop(struct cap_backend_state *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		if (s->d[i].started)
			ioctl(s->d[i].fd, BLKTRACESTOP);
		s->d[i].started = 0;
	}
}

const struct cap_blk_ops cap_relay_ops = {
    .name = "relay",
    .start = relay_start,
    .stop = relay_stop,
    .teardown = relay_teardown,
};
