/* SPDX-License-Identifier: MIT */
/* fio client slots: HOST[:PORT]=TARGET arguments and hosts files. */
#include "fioclient/fioclient.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fc_slot_release(struct fc_slot *s)
{
	free(s->host);
	free(s->target);
	memset(s, 0, sizeof(*s));
}

static int port_of(const char *p, size_t n, unsigned *port, struct iot_err *e)
{
	unsigned long v = 0;

	if (!n || n > 5)
		return iot_err_set(e, -EINVAL, "'%.*s' is not a port", (int)n, p);
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return iot_err_set(e, -EINVAL, "'%.*s' is not a port", (int)n, p);
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	if (!v || v > 65535)
		return iot_err_set(e, -EINVAL, "port %lu is out of range", v);
	*port = (unsigned)v;
	return 0;
}

int fc_slot_parse(struct fc_slot *s, const char *arg, struct iot_err *e)
{
	const char *eq = strchr(arg, '='), *h = arg, *he, *colon;
	int ret;

	memset(s, 0, sizeof(*s));
	s->port = FC_DEFAULT_PORT;
	if (!eq || !eq[1])
		return iot_err_set(e, -EINVAL, "'%s' is not HOST[:PORT]=TARGET", arg);
	if (*h == '[') {
		/* [IPV6]:PORT */
		he = memchr(h, ']', (size_t)(eq - h));
		if (!he || he == h + 1)
			return iot_err_set(e, -EINVAL, "'%s': an IPv6 address in [] expected", arg);
		colon = he + 1 < eq && he[1] == ':' ? he + 1 : NULL;
		if (he + 1 != eq && !colon)
			return iot_err_set(e, -EINVAL, "'%s': ':PORT' or '=' after ']'", arg);
		h++;
	} else {
		colon = memchr(h, ':', (size_t)(eq - h));
		if (colon && memchr(colon + 1, ':', (size_t)(eq - colon - 1)))
			return iot_err_set(e, -EINVAL, "'%s': write an IPv6 address as [ADDR]:PORT",
			                   arg);
		he = colon ? colon : eq;
	}
	if (he == h)
		return iot_err_set(e, -EINVAL, "'%s': no host", arg);
	if (colon && (ret = port_of(colon + 1, (size_t)(eq - colon - 1), &s->port, e)))
		return ret;
	s->host = strndup(h, (size_t)(he - h));
	s->target = strdup(eq + 1);
	if (!s->host || !s->target) {
		fc_slot_release(s);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	return 0;
}

const char *fc_slot_name(const struct fc_slot *s, char *buf, size_t len)
{
	snprintf(buf, len, strchr(s->host, ':') ? "[%s]:%u" : "%s:%u", s->host, s->port);
	return buf;
}

bool fc_host_is_local(const char *host)
{
	return !strcmp(host, "localhost") || !strncmp(host, "127.", 4) || !strcmp(host, "::1");
}

static int push_slot(struct fc_slot **slots, unsigned *n, const struct fc_slot *s)
{
	struct fc_slot *v = realloc(*slots, (*n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	*slots = v;
	v[(*n)++] = *s;
	return 0;
}

static int push_map(struct fc_map **maps, unsigned *n, uint32_t dev, unsigned slot)
{
	struct fc_map *v = realloc(*maps, (*n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	*maps = v;
	v[*n].dev = dev;
	v[*n].slot = slot;
	(*n)++;
	return 0;
}

int fc_hosts_file(const char *path, struct fc_slot **slots, unsigned *nslots, struct fc_map **maps,
                  unsigned *nmaps,
                  int (*parse_dev)(const char *s, uint32_t *dev, struct iot_err *e),
                  struct iot_err *e)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0, added = 0;
	int ret = 0;

	if (!f)
		return iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
	while (!ret && getline(&line, &cap, f) > 0) {
		char *save = NULL, *tok, *hash = strchr(line, '#');
		struct fc_slot s;

		lineno++;
		if (hash)
			*hash = 0;
		tok = strtok_r(line, " \t\r\n", &save);
		if (!tok)
			continue;
		if ((ret = fc_slot_parse(&s, tok, e))) {
			iot_err_prefix(e, "'%s': line %u", path, lineno);
			break;
		}
		if (push_slot(slots, nslots, &s)) {
			fc_slot_release(&s);
			ret = iot_err_set(e, -ENOMEM, "out of memory");
			break;
		}
		added++;
		while (!ret && (tok = strtok_r(NULL, " \t\r\n", &save))) {
			uint32_t dev;

			if ((ret = parse_dev(tok, &dev, e)))
				iot_err_prefix(e, "'%s': line %u", path, lineno);
			else if (push_map(maps, nmaps, dev, *nslots - 1))
				ret = iot_err_set(e, -ENOMEM, "out of memory");
		}
	}
	if (!ret && ferror(f))
		ret = iot_err_set(e, -EIO, "'%s': read error", path);
	if (!ret && !added)
		ret = iot_err_set(e, -EINVAL, "'%s': no hosts", path);
	free(line);
	fclose(f);
	return ret;
}
