/* SPDX-License-Identifier: MIT */
/* No output is ever an input: a command's outputs resolved against its inputs and targets. */
#include "formats/outcheck.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/rundir.h"

#define ENTRIES_MAX 65536 /* a directory's entries looked at (a run directory holds a few) */
#define LINKS_MAX 40      /* as the kernel's MAXSYMLINKS */

struct fid {
	dev_t dev;
	ino_t ino;
};

/* One path, resolved: what it is (when it exists) and every directory above it. */
struct obj {
	const char *arg;    /* as given, for messages */
	const char *what;   /* an output's option; NULL for inputs and targets */
	enum out_kind kind; /* outputs */
	bool target;        /* a replay target rather than an input */
	bool stdio;         /* standard input or output: compared as a file, not placed */
	bool entry;         /* an entry of a directory output, checked for it */
	bool exists;        /* id and mode are set */
	bool placed;        /* path and anc are set */
	struct fid id;
	mode_t mode;
	char path[PATH_MAX]; /* absolute, without symbolic links (its missing end as given) */
	struct fid *anc;     /* the directories above it, its parent first */
	size_t nanc;
};

struct set {
	struct obj *o;
	size_t n, cap;
};

static bool same(struct fid a, struct fid b)
{
	return a.dev == b.dev && a.ino == b.ino;
}

static struct obj *add(struct set *s, const char *arg, struct iot_err *e)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct obj *o = realloc(s->o, cap * sizeof(*o));

		if (!o)
			return iot_err_set(e, -ENOMEM, "out of memory"), NULL;
		s->o = o;
		s->cap = cap;
	}
	memset(&s->o[s->n], 0, sizeof(s->o[0]));
	s->o[s->n].arg = arg;
	return &s->o[s->n++];
}

static void release(struct set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->o[i].anc);
		if (s->o[i].entry)
			free((char *)s->o[i].arg);
	}
	free(s->o);
}

/* The directories above o->path (absolute, no links), by device and inode. */
static int ancestors(struct obj *o)
{
	char p[PATH_MAX];
	size_t cap = 16;

	o->anc = malloc(cap * sizeof(*o->anc));
	if (!o->anc)
		return -ENOMEM;
	snprintf(p, sizeof(p), "%s", o->path);
	for (;;) {
		char *slash = strrchr(p, '/');
		struct stat st;

		if (!slash || (slash == p && !p[1]))
			break;
		slash[slash == p] = '\0'; /* "/a" -> "/" */
		if (stat(p, &st))
			continue;
		if (o->nanc == cap) {
			struct fid *a = realloc(o->anc, 2 * cap * sizeof(*a));

			if (!a)
				return -ENOMEM;
			o->anc = a;
			cap *= 2;
		}
		o->anc[o->nanc++] = (struct fid){st.st_dev, st.st_ino};
	}
	o->placed = true;
	return 0;
}

/*
 * Resolve o->arg: follow symbolic links (also dangling ones, to where they would create a
 * file), then place it under the nearest directory that exists. 0 when it cannot be resolved
 * at all (left to the open that follows), -ENOMEM.
 */
static int resolve(struct obj *o, const char *path)
{
	char p[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
	struct stat st;
	const char *rest;

	snprintf(p, sizeof(p), "%s", path);
	for (int hops = 0;; hops++) {
		char link[PATH_MAX], *slash;
		ssize_t n;

		if (!stat(p, &st)) {
			o->exists = true;
			o->id = (struct fid){st.st_dev, st.st_ino};
			o->mode = st.st_mode;
			if (!realpath(p, o->path))
				return 0;
			return ancestors(o);
		}
		if (errno != ENOENT || hops >= LINKS_MAX || lstat(p, &st) || !S_ISLNK(st.st_mode))
			break;
		n = readlink(p, link, sizeof(link) - 1);
		if (n < 0)
			return 0;
		link[n] = '\0';
		slash = strrchr(p, '/');
		if (link[0] == '/' || !slash) {
			snprintf(p, sizeof(p), "%s", link);
		} else {
			slash[1] = '\0';
			if ((size_t)snprintf(dir, sizeof(dir), "%s%s", p, link) >= sizeof(dir))
				return 0;
			memcpy(p, dir, sizeof(p));
		}
	}
	if (errno != ENOENT)
		return 0;
	/* not there yet: the nearest directory above that is, and the rest as written */
	snprintf(dir, sizeof(dir), "%s", p);
	for (;;) {
		char *slash = strrchr(dir, '/');

		if (!slash) {
			snprintf(dir, sizeof(dir), ".");
			rest = p;
		} else {
			*slash = '\0';
			rest = p + (slash - dir) + 1;
			if (slash == dir)
				snprintf(dir, sizeof(dir), "/");
		}
		if (!stat(dir, &st))
			break;
		if (errno != ENOENT || !strcmp(dir, ".") || !strcmp(dir, "/"))
			return 0;
	}
	if (!realpath(dir, real) ||
	    (size_t)snprintf(o->path, sizeof(o->path), "%s%s%s", real, strcmp(real, "/") ? "/" : "",
	                     rest) >= sizeof(o->path))
		return 0;
	return ancestors(o);
}

/* Standard input or output: only what it is, when it is a regular file. */
static void resolve_stdio(struct obj *o, int fd)
{
	struct stat st;

	o->stdio = true;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		o->exists = true;
		o->id = (struct fid){st.st_dev, st.st_ino};
		o->mode = st.st_mode;
	}
}

/* A directory's entries, each as an object of its own (links into or out of it). */
static int add_entries(struct set *s, size_t parent, bool target, struct iot_err *e)
{
	DIR *d = opendir(s->o[parent].path);
	struct dirent *de;
	size_t n = 0;
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && n++ < ENTRIES_MAX && (de = readdir(d))) {
		char *p;
		struct obj *o;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (asprintf(&p, "%s/%s", s->o[parent].path, de->d_name) < 0) {
			ret = iot_err_set(e, -ENOMEM, "out of memory");
			break;
		}
		if (!(o = add(s, p, e))) {
			free(p);
			ret = -ENOMEM;
			break;
		}
		o->entry = true;
		o->target = target;
		o->what = s->o[parent].what;
		o->kind = OUT_FILE;
		if ((ret = resolve(o, p)) < 0)
			iot_err_set(e, ret, "out of memory");
	}
	closedir(d);
	return ret;
}

static int add_inputs(struct set *in, const char *const *args, size_t n, bool target,
                      struct iot_err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct obj *o;
		struct stat st;
		size_t at = in->n;
		int ret;

		if (!args[i])
			continue;
		if (!target && !strcmp(args[i], "-")) {
			if (!(o = add(in, args[i], e)))
				return -ENOMEM;
			resolve_stdio(o, STDIN_FILENO);
			continue;
		}
		if (!target && stat(args[i], &st) && errno == ENOENT) {
			/* a per-CPU set NAME: its files */
			char **files;
			unsigned nf;
			struct iot_err se;

			if (rundir_set_files(args[i], &files, &nf, &se))
				continue;
			for (unsigned f = 0; f < nf; f++) {
				char *p = strdup(files[f]);

				if (!p || !(o = add(in, p, e))) {
					free(p);
					rundir_free_list(files, nf);
					return iot_err_set(e, -ENOMEM, "out of memory");
				}
				o->entry = true; /* owns its arg */
				if ((ret = resolve(o, p)) < 0) {
					rundir_free_list(files, nf);
					return iot_err_set(e, ret, "out of memory");
				}
			}
			rundir_free_list(files, nf);
			continue;
		}
		if (!(o = add(in, args[i], e)))
			return -ENOMEM;
		o->target = target;
		if ((ret = resolve(o, args[i])) < 0)
			return iot_err_set(e, ret, "out of memory");
		if (o->exists && S_ISDIR(o->mode) && (ret = add_entries(in, at, target, e)))
			return ret;
	}
	return 0;
}

static bool in_anc(const struct obj *o, struct fid id)
{
	for (size_t i = 0; i < o->nanc; i++)
		if (same(o->anc[i], id))
			return true;
	return false;
}

static const char *role(const struct obj *in)
{
	return in->target ? "the replay target" : "the input";
}

/* An output (or an entry of a directory output) against one input or target, in three passes
 * over them all so that the message names the closest relation: is, holds, lies inside. */
static int against(const struct obj *out, const struct obj *top, const struct obj *in, int pass,
                   struct iot_err *e)
{
	if (!in->exists && !in->placed)
		return 0;
	if (pass == 0 && out->exists && in->exists && same(out->id, in->id)) {
		if (out->entry)
			return iot_err_set(e, -EINVAL, "%s '%s' holds %s '%s' (as '%s')", top->what,
			                   top->arg, role(in), in->arg, out->arg);
		return iot_err_set(e, -EINVAL, "%s '%s' is %s '%s'", out->what, out->arg, role(in),
		                   in->arg);
	}
	if (out->stdio || in->stdio)
		return 0;
	if (pass == 1 && out->exists && in_anc(in, out->id))
		return iot_err_set(e, -EINVAL, "%s '%s' holds %s '%s'", top->what, top->arg,
		                   role(in), in->arg);
	if (pass == 2 && in->exists && !out->entry && in_anc(out, in->id))
		return iot_err_set(e, -EINVAL, "%s '%s' lies inside %s '%s'", out->what, out->arg,
		                   role(in), in->arg);
	return 0;
}

/* Two outputs: not the same file, nor one directory inside the other. */
static int outputs_apart(const struct obj *a, const struct obj *b, struct iot_err *e)
{
	size_t la = strlen(a->path), lb = strlen(b->path);

	if ((a->exists && b->exists && same(a->id, b->id)) ||
	    (a->placed && b->placed && !strcmp(a->path, b->path)))
		return iot_err_set(e, -EINVAL, "%s '%s' and %s '%s' are the same", a->what, a->arg,
		                   b->what, b->arg);
	if (a->kind != OUT_DIR || b->kind != OUT_DIR || !a->placed || !b->placed)
		return 0;
	if ((a->exists && in_anc(b, a->id)) || (la < lb && !strncmp(a->path, b->path, la) &&
	                                        (b->path[la] == '/' || !strcmp(a->path, "/"))))
		return iot_err_set(e, -EINVAL, "%s '%s' lies inside %s '%s'", b->what, b->arg,
		                   a->what, a->arg);
	if ((b->exists && in_anc(a, b->id)) || (lb < la && !strncmp(b->path, a->path, lb) &&
	                                        (a->path[lb] == '/' || !strcmp(b->path, "/"))))
		return iot_err_set(e, -EINVAL, "%s '%s' lies inside %s '%s'", a->what, a->arg,
		                   b->what, b->arg);
	return 0;
}

int out_check(const char *const *inputs, size_t ninputs, const char *const *targets,
              size_t ntargets, const struct out_spec *outs, size_t nouts, struct iot_err *e)
{
	struct set in = {0}, out = {0};
	size_t nmain;
	int ret;

	if ((ret = add_inputs(&in, inputs, ninputs, false, e)) ||
	    (ret = add_inputs(&in, targets, ntargets, true, e)))
		goto done;
	for (size_t i = 0; i < nouts; i++) {
		struct obj *o;

		if (!outs[i].path)
			continue;
		if (!(o = add(&out, outs[i].path, e))) {
			ret = -ENOMEM;
			goto done;
		}
		o->what = outs[i].what ? outs[i].what : "the output";
		o->kind = outs[i].kind;
		if (!strcmp(outs[i].path, "-") && outs[i].kind == OUT_FILE)
			resolve_stdio(o, STDOUT_FILENO);
		else if ((ret = resolve(o, outs[i].path)) < 0) {
			ret = iot_err_set(e, ret, "out of memory");
			goto done;
		}
	}
	nmain = out.n;
	for (size_t i = 0; i < nmain; i++)
		for (size_t j = i + 1; j < nmain; j++)
			if (!out.o[i].stdio && !out.o[j].stdio &&
			    (ret = outputs_apart(&out.o[i], &out.o[j], e)))
				goto done;
	for (size_t i = 0; i < nmain; i++) {
		size_t first = out.n;

		/* a directory output and, when it exists, every entry it already holds */
		if (out.o[i].kind == OUT_DIR && out.o[i].exists && S_ISDIR(out.o[i].mode) &&
		    (ret = add_entries(&out, i, false, e)))
			goto done;
		for (int pass = 0; pass < 3; pass++) {
			for (size_t j = 0; j < in.n; j++)
				if ((ret = against(&out.o[i], &out.o[i], &in.o[j], pass, e)))
					goto done;
			for (size_t k = first; k < out.n; k++)
				for (size_t j = 0; j < in.n; j++)
					if ((ret =
					         against(&out.o[k], &out.o[i], &in.o[j], pass, e)))
						goto done;
		}
	}
done:
	release(&in);
	release(&out);
	return ret;
}
