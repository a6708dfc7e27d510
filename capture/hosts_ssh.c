/* SPDX-License-Identifier: MIT */
/* capture --host over OpenSSH: each host's scripts written, its ssh started, its lines read. */
#include "capture/hosts_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 'arg' for a POSIX shell, appended to out. */
int caph_shq(char **out, size_t *len, const char *arg)
{
	size_t need = 3 + strlen(arg) * 4, l = *len;
	char *p = realloc(*out, l + need + 1);

	if (!p)
		return -ENOMEM;
	p[l++] = ' ';
	p[l++] = '\'';
	for (; *arg; arg++) {
		if (*arg == '\'') {
			memcpy(p + l, "'\\''", 4);
			l += 4;
		} else {
			p[l++] = *arg;
		}
	}
	p[l++] = '\'';
	p[l] = 0;
	*out = p;
	*len = l;
	return 0;
}

int caph_append(char **out, size_t *len, const char *s)
{
	size_t n = strlen(s);
	char *p = realloc(*out, *len + n + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p + *len, s, n + 1);
	*out = p;
	*len += n;
	return 0;
}

/* A device as the host's shell tests it: NAME=DEV's DEV, a bare name under /dev. */
const char *caph_dev_path(const char *d)
{
	const char *eq = strchr(d, '=');

	if (eq && eq < d + strcspn(d, "/"))
		return eq + 1;
	return d;
}

/* Whether every host's capture uses the tracefs backend (the one global blk tracer). */
int caph_wants_tracefs(const struct caph_opts *o)
{
	int t = 0;

	for (unsigned i = 0; i + 1 < o->ncapture_args; i++)
		if (!strcmp(o->capture_args[i], "--backend"))
			t = !strcmp(o->capture_args[i + 1], "tracefs");
	return t;
}

char *caph_check_script(const struct caph_host *h, int tracefs)
{
	char *s = NULL;
	size_t n = 0;
	int ret = caph_append(&s, &n,
	                      "v=$(iotape --version 2>/dev/null | head -n 1); echo \"version $v\"; "
	                      "echo \"uid $(id -u)\"; for d in");

	for (unsigned i = 0; !ret && i < h->ndevs; i++)
		ret = caph_shq(&s, &n, caph_dev_path(h->devs[i]));
	ret = ret
	          ?: caph_append(&s, &n,
	                         "; do case $d in /*) p=$d ;; *) p=/dev/$d ;; esac; "
	                         "[ -b \"$p\" ] || echo \"nodev $d\"; done; ");
	if (!ret && h->iface) {
		ret = caph_append(&s, &n, "i=");
		ret = ret ?: caph_shq(&s, &n, h->iface);
		ret = ret
		          ?: caph_append(&s, &n,
		                         "; [ -e \"/sys/class/net/$i\" ] || echo \"noiface $i\"; ");
	}
	/* the tracer held by a live capture (capture/tracefs.c's state file names its pid) */
	if (!ret && tracefs)
		ret = caph_append(
		    &s, &n,
		    "f=/run/iotape-tracefs.state; p=$(sed -n 's/^pid //p' $f 2>/dev/null); "
		    "[ -n \"$p\" ] && kill -0 \"$p\" 2>/dev/null && echo \"tracer $p\"; ");
	ret = ret
	          ?: caph_append(&s, &n,
	                         "echo '" CHECKED_LINE "'; while read -r x; do date +%s%N; done");
	if (ret) {
		free(s);
		return NULL;
	}
	return s;
}

char *caph_capture_script(const struct caph_opts *o, const struct caph_host *h)
{
	char *s = NULL, tmpl[64];
	size_t n = 0;
	int ret;

	/* the local pid in the remote directory's name: whose capture it is, on the host; in the
	 * session's TMPDIR, as mktemp(1) places it, else /tmp */
	snprintf(tmpl, sizeof(tmpl), "iotape-host-%ld.XXXXXX", (long)getpid());
	ret = caph_append(&s, &n, "trap '' PIPE; d=$(mktemp -d -p \"${TMPDIR:-/tmp}\"");
	ret = ret ?: caph_shq(&s, &n, tmpl);
	ret = ret
	          ?: caph_append(&s, &n,
	                         ") || exit 1; trap 'rm -rf \"$d\"' EXIT; "
	                         "iotape capture -o \"$d/run\"");
	for (unsigned i = 0; !ret && i < h->ndevs; i++) {
		ret = caph_append(&s, &n, " -d");
		ret = ret ?: caph_shq(&s, &n, h->devs[i]);
	}
	if (!ret && h->iface) {
		ret = caph_append(&s, &n, " -i");
		ret = ret ?: caph_shq(&s, &n, h->iface);
	}
	for (unsigned i = 0; !ret && i < o->ncapture_args; i++)
		ret = caph_shq(&s, &n, o->capture_args[i]);
	ret =
	    ret
	        ?: caph_append(&s, &n,
	                       " -- sh -c 'echo \"" READY_LINE "\" >&2; exec cat >/dev/null' >&2; "
	                       "echo \"" EXIT_PREFIX "$?\" >&2; "
	                       "[ -f \"$d/run/manifest.json\" ] && { echo '" TAR_LINE "'; "
	                       "tar -C \"$d/run\" -cf - .; }");
	if (ret) {
		free(s);
		return NULL;
	}
	return s;
}

/* ssh [-F FILE] -T -o BatchMode=yes ... DEST SCRIPT, with pipes; out_fd >= 0: its stdout. */
int caph_ssh_start(const struct caph_opts *o, const struct caph_host *h, const char *script,
                   int out_fd, struct sshp *s, struct iot_err *e)
{
	const char *argv[16];
	int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, n = 0, ret;

	memset(s, 0, sizeof(*s));
	s->in = s->out = s->err = -1;
	argv[n++] = "ssh";
	if (o->ssh_config) {
		argv[n++] = "-F";
		argv[n++] = o->ssh_config;
	}
	/* no terminal, never a password prompt; a host that stops answering is given up after
	 * about 15 s (the capture on it then stops with its session) */
	argv[n++] = "-T";
	argv[n++] = "-o";
	argv[n++] = "BatchMode=yes";
	argv[n++] = "-o";
	argv[n++] = "ServerAliveInterval=5";
	argv[n++] = "-o";
	argv[n++] = "ServerAliveCountMax=3";
	argv[n++] = "--";
	argv[n++] = h->dest;
	argv[n++] = script;
	argv[n] = NULL;
	if (pipe2(in, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
	    (out_fd < 0 && pipe2(out, O_CLOEXEC))) {
		ret = iot_err_set(e, -errno, "pipe: %s", strerror(errno));
		goto fail;
	}
	{
		/* a process group of its own: a Ctrl-C at the terminal is for iotape, which then
		 * stops each host and brings its run back through this ssh */
		struct iot_spawn_opts so = {.argv = (char *const *)argv,
		                            .fd_in = in[0],
		                            .fd_out = out_fd >= 0 ? out_fd : out[1],
		                            .fd_err = err[1],
		                            .pdeathsig = SIGTERM,
		                            .new_pgrp = 1};

		if ((ret = iot_spawn(&so, &s->p, e)))
			goto fail;
	}
	close(in[0]);
	close(err[1]);
	if (out[1] >= 0)
		close(out[1]);
	s->in = in[1];
	s->err = err[0];
	s->out = out[0];
	if (s->p.exec_errno) {
		iot_proc_wait(&s->p, -1, &s->status);
		close(s->in);
		close(s->err);
		if (s->out >= 0)
			close(s->out);
		return iot_err_set(e, -s->p.exec_errno, "cannot run ssh: %s",
		                   strerror(s->p.exec_errno));
	}
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	return ret;
}

void caph_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Read what fd has into l; each whole line to fn. 0 at EOF (fd closed), 1 otherwise. */
int caph_read_lines(int *fd, struct lines *l, void (*fn)(void *, const char *), void *arg)
{
	ssize_t r = read(*fd, l->buf + l->len, sizeof(l->buf) - 1 - l->len);
	char *nl, *p;

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (r <= 0) {
		if (l->len) { /* a last line without its newline */
			l->buf[l->len] = 0;
			fn(arg, l->buf);
			l->len = 0;
		}
		caph_close_fd(fd);
		return 0;
	}
	l->len += (size_t)r;
	l->buf[l->len] = 0;
	p = l->buf;
	while ((nl = strchr(p, '\n'))) {
		*nl = 0;
		fn(arg, p);
		p = nl + 1;
	}
	l->len -= (size_t)(p - l->buf);
	memmove(l->buf, p, l->len);
	if (l->len == sizeof(l->buf) - 1) { /* a line too long: cut */
		l->buf[l->len] = 0;
		fn(arg, l->buf);
		l->len = 0;
	}
	return 1;
}
